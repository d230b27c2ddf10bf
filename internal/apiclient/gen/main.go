// Command gen writes internal/apiclient/client.gen.go: the client
// oapi-codegen (a tool of go.mod) generates from the description the server
// serves (apispec.Document). go generate runs it in internal/apiclient.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"gpuquote/internal/apispec"
)

func main() {
	if err := generate("oapi-codegen.yaml", "client.gen.go"); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// generate runs oapi-codegen with the configuration at config on the
// served description and writes the client to out.
func generate(config, out string) error {
	doc, err := apispec.Document()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "apiclient")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "openapi.json")
	if err := os.WriteFile(in, doc, 0o600); err != nil {
		return err
	}
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", config, "-o", out, in)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go tool oapi-codegen: %w", err)
	}
	return nil
}
