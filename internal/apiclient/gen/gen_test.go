package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestClientIsGenerated: the committed client is exactly what the pinned
// oapi-codegen generates from the description the server serves now, so
// the journey test (internal/server) drives the client an integrator
// would generate today; make generate writes it again.
func TestClientIsGenerated(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "client.gen.go")
	if err := generate(filepath.Join("..", "oapi-codegen.yaml"), out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join("..", "client.gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Fatalf("internal/apiclient/client.gen.go is not what the description generates (%d bytes, generated %d): run make generate and commit it",
			len(committed), len(got))
	}
}
