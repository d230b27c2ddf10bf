package i18n

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestCatalogsHaveTheSameMessages(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	zh, en := c.IDs(ZH), c.IDs(EN)
	if len(zh) == 0 {
		t.Fatal("empty catalog")
	}
	for _, id := range zh {
		if !c.Has(EN, id) {
			t.Errorf("%q is in zh-CN but not in en", id)
		}
	}
	for _, id := range en {
		if !c.Has(ZH, id) {
			t.Errorf("%q is in en but not in zh-CN", id)
		}
	}
	for _, l := range Langs {
		for _, id := range c.IDs(l) {
			if got := c.Translator(l).T(id, "ID", "x", "Page", 1, "Pages", 2, "Total", 3, "Email", "e", "Time", "t"); strings.HasPrefix(got, "[") || got == "" {
				t.Errorf("%s %q renders as %q", l, id, got)
			}
		}
	}
}

// literalIDs finds message IDs written literally in calls such as
// T(ctx, "x"), translator(c).T("x"), .T("x"), a form problem
// (r.Fail("field", "x"), errs.Set(…), errs.Add(…)), a constant Msg… = "x"
// and in fields named …ID: "x".
var literalIDs = regexp.MustCompile(`(?:\bT\((?:ctx, )?|LabelID: |ID: |titleID = |ErrorID = |(?:Fail|Set|Add)\([^,()]+, |\bMsg\w* += |"ok", |"error", |return ")"([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)"`)

// TestEveryUsedMessageExists scans the Go and templ sources for literal
// message IDs and checks both catalogs define them.
func TestEveryUsedMessageExists(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("..", "..")
	found := 0
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".data" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(p, "_templ.go") || strings.HasSuffix(p, "_test.go") ||
			!(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".templ")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range literalIDs.FindAllStringSubmatch(string(b), -1) {
			id := m[1]
			if strings.HasSuffix(id, ".") || strings.Count(id, ".") == 0 {
				continue
			}
			found++
			for _, l := range Langs {
				if !c.Has(l, id) {
					t.Errorf("%s uses message %q, missing in %s", p, id, l)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 50 {
		t.Fatalf("only %d message uses found: the scan is broken", found)
	}
}

func TestNegotiate(t *testing.T) {
	cases := []struct {
		cookie, accept string
		want           Lang
	}{
		{"", "", ZH},
		{"", "en-US,en;q=0.9", EN},
		{"", "zh-CN,zh;q=0.9,en;q=0.8", ZH},
		{"", "zh-TW", ZH},
		{"", "fr-FR", ZH},
		{"", "de, en;q=0.5", EN},
		{"en", "zh-CN", EN},
		{"zh-CN", "en", ZH},
		{"xx", "en", EN},
		{"", "garbage;;;q=x", ZH},
	}
	for _, c := range cases {
		if got := Negotiate(c.cookie, c.accept); got != c.want {
			t.Errorf("Negotiate(%q, %q) = %s, want %s", c.cookie, c.accept, got, c.want)
		}
	}
}

func TestTemplatesAndMissing(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Translator(EN).T("pager.status", "Page", 2, "Pages", 5, "Total", 99); got != "Page 2 of 5, 99 in all" {
		t.Errorf("template: %q", got)
	}
	if got := c.Translator(ZH).T("pager.status", "Page", 2, "Pages", 5, "Total", 99); got != "第 2 / 5 页，共 99 条" {
		t.Errorf("template zh: %q", got)
	}
	if got := c.Translator(EN).T("no.such.message"); got != "[no.such.message]" {
		t.Errorf("missing: %q", got)
	}
}
