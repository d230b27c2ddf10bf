package verify_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"gpuquote/internal/i18n"
	"gpuquote/internal/verify"
)

var placeholderRE = regexp.MustCompile(`\{\{\s*\.([A-Za-z][A-Za-z0-9_]*)\s*\}\}`)

func placeholders(s string) []string {
	var out []string
	for _, m := range placeholderRE.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

func readCatalog(t *testing.T, name string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "i18n", "locales", name))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	if err := toml.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v (keys must be flat quoted IDs)", name, err)
	}
	return out
}

// TestMessageCatalogs holds verify.zh-CN.toml and verify.en.toml to the
// messages the package uses: the same IDs in both, none missing, none
// unused, and only placeholders the code supplies.
func TestMessageCatalogs(t *testing.T) {
	zh := readCatalog(t, "verify.zh-CN.toml")
	en := readCatalog(t, "verify.en.toml")
	ids := verify.MessageIDs()
	for _, id := range ids {
		if _, ok := zh[id]; !ok {
			t.Errorf("zh-CN lacks %s", id)
		}
		if _, ok := en[id]; !ok {
			t.Errorf("en lacks %s", id)
		}
	}
	for _, cat := range []map[string]string{zh, en} {
		for id, text := range cat {
			if !slices.Contains(ids, id) {
				t.Errorf("%s is in a catalog but the package never uses it", id)
				continue
			}
			supplied := verify.MessageArgs(id)
			for _, ph := range placeholders(text) {
				if !slices.Contains(supplied, ph) {
					t.Errorf("%s uses {{.%s}}, which the code does not supply (%v)", id, ph, supplied)
				}
			}
		}
	}
	for id, text := range zh {
		if a, b := placeholders(text), placeholders(en[id]); !slices.Equal(a, b) {
			t.Errorf("%s: zh-CN uses %v, en uses %v", id, a, b)
		}
		if !strings.ContainsFunc(text, func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff }) {
			t.Errorf("%s: the zh-CN text has no Chinese: %q", id, text)
		}
	}
}

// TestMessagesRender renders every check of a fixture in both languages
// through the real catalogs: no placeholder is left unfilled.
func TestMessagesRender(t *testing.T) {
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "rtx3090_throttled.csv"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := verify.Parse(string(b))
	if err != nil {
		t.Fatal(err)
	}
	spec := verify.Spec{Name: "NVIDIA GeForce RTX 3090", LoadPowerMinW: 280, LoadPowerMaxW: 350, LoadClockMinMHz: 1600, LoadClockMaxMHz: 1800}
	checks := verify.Evaluate(r, spec)
	_, perr := verify.Parse("NVIDIA GeForce RTX 4090, 24564 MiB")
	pe := perr.(*verify.ParseError)
	for _, l := range i18n.Langs {
		tr := cat.Translator(l)
		for _, c := range checks {
			got := tr.TMap(c.MessageID, c.Args)
			if strings.Contains(got, "<no value>") || strings.HasPrefix(got, "[") {
				t.Errorf("%s %s: %q", l, c.MessageID, got)
			}
		}
		if got := tr.TMap(pe.MessageID, pe.Args); !strings.Contains(got, "1") || strings.Contains(got, "<no value>") {
			t.Errorf("%s parse error renders as %q", l, got)
		}
	}
	en := cat.Translator(i18n.EN)
	power := en.TMap(checks[3].MessageID, checks[3].Args)
	if want := "GPU 0 drew only 40.21 W under load (median of 4 samples at 80 % utilisation or more); a healthy NVIDIA GeForce RTX 3090 draws 280–350 W. The card is power-capped or throttled."; power != want {
		t.Errorf("power reason:\n got %q\nwant %q", power, want)
	}
	zh := cat.Translator(i18n.ZH)
	if clock := zh.TMap(checks[4].MessageID, checks[4].Args); !strings.Contains(clock, "420 MHz") || !strings.Contains(clock, "1600–1800 MHz") {
		t.Errorf("clock reason: %q", clock)
	}
}
