package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gpuquote/internal/i18n"
	"gpuquote/internal/store"
)

// writtenAudit reads the store's sources and returns every audit action
// the code can write (each Action… constant, and any action or entity
// written literally in an AuditEntry) and every entity written.
func writtenAudit(t *testing.T) (actions, entities map[string]string) {
	t.Helper()
	actions, entities = map[string]string{}, map[string]string{}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	consts := map[string]string{}
	var entries []*ast.CompositeLit
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.ValueSpec:
				for i, id := range x.Names {
					if strings.HasPrefix(id.Name, "Action") && i < len(x.Values) {
						if s, ok := stringLit(x.Values[i]); ok {
							consts[id.Name] = s
							actions[s] = fset.Position(id.Pos()).String()
						}
					}
				}
			case *ast.CompositeLit:
				if id, ok := x.Type.(*ast.Ident); ok && id.Name == "AuditEntry" {
					entries = append(entries, x)
				}
			}
			return true
		})
	}
	for _, e := range entries {
		for _, el := range e.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, _ := kv.Key.(*ast.Ident)
			if key == nil {
				continue
			}
			pos := fset.Position(kv.Pos()).String()
			switch key.Name {
			case "Entity":
				s, ok := stringLit(kv.Value)
				if !ok {
					t.Errorf("%s: the entity is not a literal string; list it here", pos)
				}
				entities[s] = pos
			case "Action":
				if s, ok := stringLit(kv.Value); ok {
					actions[s] = pos
				}
			}
		}
	}
	if len(consts) == 0 || len(entities) == 0 {
		t.Fatalf("found %d actions and %d entities in the sources", len(consts), len(entities))
	}
	return actions, entities
}

func stringLit(e ast.Expr) (string, bool) {
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(b.Value)
	return s, err == nil
}

// TestEveryAuditActionIsListed: every action and entity the store can
// write is in the audit page's filter lists, once, and has its words in
// both catalogs, so the page never shows a raw key.
func TestEveryAuditActionIsListed(t *testing.T) {
	actions, entities := writtenAudit(t)
	c, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	for a, pos := range actions {
		if !slices.Contains(store.AuditActions, a) {
			t.Errorf("%s: action %q is not in store.AuditActions (the filter)", pos, a)
		}
	}
	for e, pos := range entities {
		if !slices.Contains(store.AuditEntities, e) {
			t.Errorf("%s: entity %q is not in store.AuditEntities (the filter)", pos, e)
		}
	}
	for _, list := range [][]string{store.AuditActions, store.AuditEntities} {
		seen := map[string]bool{}
		for _, v := range list {
			if seen[v] {
				t.Errorf("%q is listed twice", v)
			}
			seen[v] = true
		}
	}
	for _, l := range i18n.Langs {
		for _, a := range store.AuditActions {
			if !c.Has(l, "audit.action."+a) {
				t.Errorf("%s: no words for action %q (audit.action.%s)", l, a, a)
			}
		}
		for _, e := range store.AuditEntities {
			if !c.Has(l, "entity."+e) {
				t.Errorf("%s: no words for entity %q (entity.%s)", l, e, e)
			}
		}
	}
}
