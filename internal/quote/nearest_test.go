package quote

import (
	"strings"
	"testing"
	"time"

	"gpuquote/internal/market"
)

func TestNearest(t *testing.T) {
	names := []string{"NVIDIA GeForce RTX 3090", "GeForce RTX 3090", "NVIDIA GeForce RTX 4090", "GeForce RTX 4090", "HOSTKEY"}
	for _, c := range []struct{ in, want string }{
		{"NVIDIA RTX 4090", "NVIDIA GeForce RTX 4090"},
		{"nvidia  geforce-rtx 4090", "NVIDIA GeForce RTX 4090"},
		{"GeForce RTX 409", "GeForce RTX 4090"},
		{"HOSTKY", "HOSTKEY"},
		{"Quantum Annealer Q9", ""},
		{"", ""},
	} {
		for i := 0; i < 3; i++ { // the same answer every time
			if got := Nearest(c.in, names); got != c.want {
				t.Errorf("Nearest(%q) = %q, want %q", c.in, got, c.want)
			}
		}
	}
	// A tie goes to the earlier name.
	if got := Nearest("RTX 5090", []string{"RTX 4090", "RTX 3090"}); got != "RTX 4090" {
		t.Errorf("tie: %q", got)
	}
}

// TestReadAliasResolvesAndSuggests: Read resolves a GPU model by an alias,
// and an unknown name gets the message naming the nearest one.
func TestReadAliasResolvesAndSuggests(t *testing.T) {
	refs := NewRefs([]market.RefName{{ID: 7, Names: []string{"HOSTKEY", "HOSTKEY"}}},
		[]market.RefName{{ID: 3, Names: []string{"NVIDIA GeForce RTX 4090", "GeForce RTX 4090", "NVIDIA RTX 4090"}}})
	if id, ok := refs.GPUModel("nvidia rtx 4090"); !ok || id != 3 {
		t.Fatalf("alias: %d %v", id, ok)
	}
	_, errs := Read(func(name string) string {
		return map[string]string{"platform": "HOSTKEY", "gpu_model": "NVIDIA RTX 4009"}[name]
	}, refs, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	m := errs["gpu_model"]
	if m.ID != MsgUnknownGPUSuggest || len(m.Args) != 2 || !strings.EqualFold(m.Args[1].(string), "NVIDIA RTX 4090") {
		t.Fatalf("gpu_model problem: %+v", m)
	}
}
