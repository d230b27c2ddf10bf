package i18n

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// placeholderPattern is the placeholder's definition as a regular
// expression, the reference compile's scanner is held to.
var placeholderPattern = regexp.MustCompile(`\{\{\s*\.([A-Za-z][A-Za-z0-9_]*)\s*\}\}`)

// compileByPattern is compile written with placeholderPattern.
func compileByPattern(text string) (message, bool) {
	var m message
	last := 0
	for _, loc := range placeholderPattern.FindAllStringSubmatchIndex(text, -1) {
		m.parts = append(m.parts, text[last:loc[0]])
		m.names = append(m.names, text[loc[2]:loc[3]])
		last = loc[1]
	}
	m.parts = append(m.parts, text[last:])
	for _, p := range m.parts {
		if strings.Contains(p, "{{") || strings.Contains(p, "}}") {
			return message{}, false
		}
	}
	return m, true
}

// TestCompileMatchesThePlaceholderPattern: the scanner splits every text
// as the pattern does and refuses the same ones, for tricky texts and for
// every message of the catalogs.
func TestCompileMatchesThePlaceholderPattern(t *testing.T) {
	texts := []string{"", "plain", "a {{.Name}} b", "{{ .X_1 }}", "{{\f.F}}", "{{\t.A\n}}x{{.B}}", "{{.A}}{{.B}}", "{{{.A}}",
		"{{.A}}}", "{{.1x}}", "{{ . A }}", "{{.A", "x {{ y", "}}", "{{.A_}} {{.a9}}", "{{.Ä}}", "{{.A }} {{ .B}}", "{{{{.A}}}}",
		"报价 {{.Count}} 份", "{{.A\x00}}"}
	for _, lang := range Langs {
		c, err := Load()
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range c.IDs(lang) {
			m := c.msgs[lang][id]
			var b strings.Builder
			for i, p := range m.parts {
				b.WriteString(p)
				if i < len(m.names) {
					b.WriteString("{{." + m.names[i] + "}}")
				}
			}
			texts = append(texts, b.String())
		}
	}
	for _, text := range texts {
		got, err := compile(text)
		want, ok := compileByPattern(text)
		if (err == nil) != ok {
			t.Errorf("%q: compile error %v, the pattern accepts it: %v", text, err, ok)
			continue
		}
		if !slices.Equal(got.parts, want.parts) || !slices.Equal(got.names, want.names) {
			t.Errorf("%q: compile gives %q %q, the pattern %q %q", text, got.parts, got.names, want.parts, want.names)
		}
	}
}
