package routes_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layers of docs/ARCHITECTURE.md, as imports: who may import whom.
const module = "gpuquote/"

var (
	// doors answer HTTP; only the route table (and what builds the
	// server: the command and the test app) imports them.
	doors = []string{"internal/pages", "internal/api"}
	// plumbing is the server both doors stand on.
	plumbing = "internal/server"
	// table is the route table, the one package that sees both doors.
	table = "internal/routes"
	// storeUsers may import the store: the server and its doors, the
	// mail queue's worker, the sample data loader and the test helpers
	// (testutil, testfactory).
	// Services and domain packages never do: they define what they read
	// as interfaces the store implements.
	storeUsers = []string{"internal/server", "internal/pages", "internal/api", "internal/mail", "internal/sample", "internal/testutil", "internal/testfactory"}
	// builders construct the whole server.
	builders = []string{"cmd/gpuquote", "internal/testutil", table}
)

// imports lists the module's packages imported by the non-test Go files
// of dir (relative to the module root), by path within the module.
func imports(t *testing.T, root, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range pf.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out, rest) {
				out = append(out, rest)
			}
		}
	}
	slices.Sort(out)
	return out
}

// packages lists the module's package folders: internal/*, web and cmd/*.
func packages(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{"internal/*", "cmd/*", "web"} {
		dirs, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				rel, _ := filepath.Rel(root, d)
				out = append(out, filepath.ToSlash(rel))
			}
		}
	}
	return out
}

// TestLayers: the doors (pages, api) stand on the server and never on each
// other; the server knows neither door; only the route table and what
// builds the server import a door or the table; services and domain
// packages import no store, server or door.
func TestLayers(t *testing.T) {
	root := filepath.Join("..", "..")
	pkgs := packages(t, root)
	for _, want := range append([]string{plumbing, table, "internal/compare", "internal/vendorq"}, doors...) {
		if !slices.Contains(pkgs, want) {
			t.Fatalf("package %s is missing: the layers below name it", want)
		}
	}
	for _, p := range pkgs {
		for _, im := range imports(t, root, p) {
			switch {
			case slices.Contains(doors, im) && !slices.Contains(builders, p):
				t.Errorf("%s imports the door %s: only the route table does", p, im)
			case im == table && !slices.Contains(builders, p):
				t.Errorf("%s imports the route table: only what builds the server does", p)
			case im == plumbing && p != table && !slices.Contains(doors, p) && !slices.Contains(builders, p):
				t.Errorf("%s imports the server: only its doors and the route table do", p)
			case im == "internal/store" && !slices.Contains(storeUsers, p) && !strings.HasPrefix(p, "cmd/"):
				t.Errorf("%s imports the store: services and domain packages define what they read as interfaces", p)
			}
		}
	}
}
