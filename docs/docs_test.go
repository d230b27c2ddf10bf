// Package docs holds the repository's documents; its test keeps them
// honest: every document a file cites is in the repository, and every
// section of docs/RULES.md a comment cites exists.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gpuquote/internal/quote"
)

var (
	// outside names documents that are not in the repository.
	outside = regexp.MustCompile(`\b(TCO|DOMAIN|CONVENTIONS)\.md\b`)
	// cited finds "docs/RULES.md §3.2" (and further "§…" of the same cite).
	cited   = regexp.MustCompile(`docs/RULES\.md((?:[ ,]*(?:and )?§[0-9]+(?:\.[0-9]+)?(?:–§[0-9]+)?)+)`)
	section = regexp.MustCompile(`§([0-9]+(?:\.[0-9]+)?)`)
	heading = regexp.MustCompile(`(?m)^#{2,3} ([0-9]+(?:\.[0-9]+)?)\.? `)
)

// walk calls fn with every text file of the repository.
func walk(t *testing.T, fn func(path, text string)) {
	t.Helper()
	root := ".."
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".data", "bin", "node_modules", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".templ", ".sql", ".md", ".toml", ".sh", ".yml", ".css", ".js":
		default:
			if filepath.Base(p) != "Makefile" && filepath.Base(p) != "Dockerfile" {
				return nil
			}
		}
		if strings.HasSuffix(p, "_templ.go") || strings.HasSuffix(p, "docs_test.go") || strings.HasSuffix(p, ".min.js") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fn(p, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNoFileCitesADocumentOutsideTheRepository(t *testing.T) {
	walk(t, func(p, text string) {
		for i, line := range strings.Split(text, "\n") {
			if outside.MatchString(line) {
				t.Errorf("%s:%d cites a document outside the repository: %s", p, i+1, strings.TrimSpace(line))
			}
		}
	})
}

func TestCitedRuleSectionsExist(t *testing.T) {
	rules, err := os.ReadFile("RULES.md")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(string(rules), -1) {
		have[m[1]] = true
	}
	n := 0
	walk(t, func(p, text string) {
		for _, c := range cited.FindAllStringSubmatch(text, -1) {
			for _, s := range section.FindAllStringSubmatch(c[1], -1) {
				n++
				if !have[s[1]] {
					t.Errorf("%s cites docs/RULES.md §%s, which has no such section", p, s[1])
				}
			}
		}
	})
	if n < 50 {
		t.Fatalf("only %d citations found: the scan is broken", n)
	}
}

// TestCSVDocumentsEveryColumn: docs/CSV.md has a row for every column of
// a quote and every field of a line, so a field added to a quote is
// documented where people read the format.
func TestCSVDocumentsEveryColumn(t *testing.T) {
	doc, err := os.ReadFile("CSV.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range quote.Fields {
		if !strings.Contains(string(doc), "| `"+f.Name+"` |") {
			t.Errorf("docs/CSV.md has no row for the column %s", f.Name)
		}
	}
	for _, f := range quote.LineFields {
		if !strings.Contains(string(doc), "| `<item>."+f+"` |") {
			t.Errorf("docs/CSV.md has no row for the line field %s", f)
		}
	}
}

// TestContributingNamesRealFiles: every file or folder a recipe of
// docs/CONTRIBUTING.md names exists (a `<area>` stands for any name), every
// test it names is a test function somewhere, and the six recipes are
// there.
func TestContributingNamesRealFiles(t *testing.T) {
	b, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	recipes := regexp.MustCompile(`(?m)^## [1-6]\. `).FindAllString(doc, -1)
	if len(recipes) != 6 {
		t.Errorf("docs/CONTRIBUTING.md has %d numbered recipes, want 6", len(recipes))
	}
	var tests strings.Builder
	self, err := os.ReadFile("docs_test.go") // walk leaves this file out
	if err != nil {
		t.Fatal(err)
	}
	tests.Write(self)
	walk(t, func(p, text string) {
		if strings.HasSuffix(p, "_test.go") {
			tests.WriteString(text)
		}
	})
	placeholder := regexp.MustCompile(`<[a-z]+>`)
	paths, names := 0, 0
	for _, m := range regexp.MustCompile("`([^`\\s]+)`").FindAllStringSubmatch(doc, -1) {
		tok := m[1]
		switch {
		case strings.HasPrefix(tok, "Test"):
			names++
			if !strings.Contains(tests.String(), "func "+tok+"(") {
				t.Errorf("docs/CONTRIBUTING.md names %s, which is no test", tok)
			}
		case strings.Contains(tok, "/") && !strings.HasPrefix(tok, "/") && !strings.ContainsAny(tok, "(){}"):
			paths++
			pattern := filepath.Join("..", placeholder.ReplaceAllString(tok, "*"))
			found, err := filepath.Glob(pattern)
			if err != nil || len(found) == 0 {
				t.Errorf("docs/CONTRIBUTING.md names %s, which is not in the repository", tok)
			}
		}
	}
	if paths < 30 || names < 5 {
		t.Fatalf("only %d paths and %d tests found: the scan is broken", paths, names)
	}
}

// TestArchitectureMapsEveryPackage: the package map of
// docs/ARCHITECTURE.md names every package under internal/ and cmd/.
func TestArchitectureMapsEveryPackage(t *testing.T) {
	b, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob(filepath.Join("..", "*", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range dirs {
		rel, _ := filepath.Rel("..", filepath.Dir(f))
		rel = filepath.ToSlash(rel)
		if seen[rel] || !(strings.HasPrefix(rel, "internal/") || strings.HasPrefix(rel, "cmd/")) {
			continue
		}
		seen[rel] = true
		if !strings.Contains(string(b), rel+"/") {
			t.Errorf("docs/ARCHITECTURE.md's package map does not name %s/", rel)
		}
	}
	if len(seen) < 20 {
		t.Fatalf("only %d packages found: the scan is broken", len(seen))
	}
}
