package apispec

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// lintTools is the folder of the pinned OpenAPI linters (package.json and
// package-lock.json; make test runs npm ci there).
var lintTools = filepath.Join("..", "..", "tools", "oaslint")

// lintRun runs one linter of lintTools on the document at doc and returns
// its standard output (JSON). A linter that is not installed fails the
// test, saying how to install it.
func lintRun(t *testing.T, doc string, tool string, args ...string) []byte {
	t.Helper()
	bin := filepath.Join(lintTools, "node_modules", ".bin", tool)
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the OpenAPI linter %s is not installed: run npm ci --prefix tools/oaslint (make test does): %v", tool, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, doc)...)
	cmd.Dir = lintTools
	// No update notices, no telemetry: the linters read one local file.
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_UPDATE_NOTIFIER=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if stdout.Len() == 0 {
		t.Fatalf("%s gave no report (%v): %s", tool, err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// TestOpenAPILinters: the served description (Document, the bytes
// /api/v1/openapi.json answers) passes both linters an integrator is
// likely to run, with their default rule sets, without a single error or
// warning: Spectral with spectral:oas and Redocly with its recommended
// rules, at the versions pinned in tools/oaslint (docs/RULES.md §19.6).
func TestOpenAPILinters(t *testing.T) {
	t.Parallel()
	b, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := filepath.Abs(filepath.Join(t.TempDir(), "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(doc, b, 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("spectral", func(t *testing.T) {
		t.Parallel()
		out := lintRun(t, doc, "spectral", "lint", "--ruleset", ".spectral.yaml", "--format", "json", "--quiet", "--fail-severity", "error")
		var problems []struct {
			Code     string   `json:"code"`
			Message  string   `json:"message"`
			Severity int      `json:"severity"` // 0 error, 1 warning, 2 information, 3 hint
			Path     []string `json:"path"`
		}
		if err := json.Unmarshal(out, &problems); err != nil {
			t.Fatalf("spectral's report is not JSON: %v\n%s", err, out)
		}
		for _, p := range problems {
			if p.Severity <= 1 {
				t.Errorf("spectral %s at %v: %s", p.Code, p.Path, p.Message)
			}
		}
	})
	t.Run("redocly", func(t *testing.T) {
		t.Parallel()
		out := lintRun(t, doc, "redocly", "lint", "--config", "redocly.yaml", "--format", "json")
		var report struct {
			Totals struct {
				Errors   *int `json:"errors"`
				Warnings *int `json:"warnings"`
			} `json:"totals"`
			Problems []struct {
				RuleID   string `json:"ruleId"`
				Severity string `json:"severity"`
				Message  string `json:"message"`
				Location []struct {
					Pointer string `json:"pointer"`
				} `json:"location"`
			} `json:"problems"`
		}
		if err := json.Unmarshal(out, &report); err != nil || report.Totals.Errors == nil || report.Totals.Warnings == nil {
			t.Fatalf("redocly's report is not the JSON expected (%v):\n%s", err, out)
		}
		for _, p := range report.Problems {
			where := ""
			if len(p.Location) > 0 {
				where = p.Location[0].Pointer
			}
			t.Errorf("redocly %s %s at %s: %s", p.Severity, p.RuleID, where, p.Message)
		}
		if *report.Totals.Errors+*report.Totals.Warnings > 0 && len(report.Problems) == 0 {
			t.Errorf("redocly counts %d errors and %d warnings", *report.Totals.Errors, *report.Totals.Warnings)
		}
	})
}
