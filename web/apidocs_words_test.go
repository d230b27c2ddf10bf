package web

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/apispec"
	"gpuquote/internal/i18n"
)

// servedDocsView is the docs page's view of the served description.
func servedDocsView(t *testing.T) APIDocsView {
	t.Helper()
	doc, err := apispec.Document()
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewAPIDocsView(doc)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// hasHan reports whether s holds a Chinese character.
func hasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// tomlLine is the catalog line that holds text under id.
func tomlLine(id, text string) string {
	return strconv.Quote(id) + " = " + `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(text) + `"`
}

// TestAPIDocsTextsAreInTheCatalogs: every description /api/docs shows has
// its message in both catalogs (apidocs_text.*.toml), the English one the
// document's very text and the Chinese one Chinese; no message is left for
// a description the page no longer shows (docs/RULES.md §19.6). A new or
// changed description fails here until both catalogs have it.
func TestAPIDocsTextsAreInTheCatalogs(t *testing.T) {
	texts := servedDocsView(t).Texts()
	if len(texts) < 100 {
		t.Fatalf("only %d descriptions on the page: the view lost them", len(texts))
	}
	en, zh := testCatalog.Translator(i18n.EN), testCatalog.Translator(i18n.ZH)
	shown := map[string]string{}
	var write []string
	for _, x := range texts {
		if other, twice := shown[x.ID]; twice {
			t.Errorf("%s names two texts: %q and %q", x.ID, other, x.Text)
		}
		shown[x.ID] = x.Text
		switch {
		case !testCatalog.Has(i18n.EN, x.ID):
			t.Errorf("%s (%q) is not in the English catalog", x.ID, x.Text)
			write = append(write, tomlLine(x.ID, x.Text))
		case en.T(x.ID) != x.Text:
			t.Errorf("%s: the English catalog says %q, the document %q", x.ID, en.T(x.ID), x.Text)
			write = append(write, tomlLine(x.ID, x.Text))
		}
		switch {
		case !testCatalog.Has(i18n.ZH, x.ID):
			t.Errorf("%s is not in the Chinese catalog", x.ID)
		case !hasHan(zh.T(x.ID)):
			t.Errorf("%s: the Chinese catalog's %q is not Chinese", x.ID, zh.T(x.ID))
		}
	}
	for _, l := range i18n.Langs {
		for _, id := range testCatalog.IDs(l) {
			if _, ok := shown[id]; strings.HasPrefix(id, apiDocTextPrefix) && !ok {
				t.Errorf("%s's %s is no description the page shows: remove it", l, id)
			}
		}
	}
	if len(write) > 0 {
		t.Logf("the document's words for apidocs_text.en.toml (and, translated, apidocs_text.zh-CN.toml):\n%s", strings.Join(write, "\n"))
	}
}

// TestAPIDocsPageReadsInTheReadersLanguage: on /api/docs in Chinese every
// summary and description holds Chinese; in English none does. Identifiers,
// codes and paths stay as they are inside the Chinese text.
func TestAPIDocsPageReadsInTheReadersLanguage(t *testing.T) {
	v := servedDocsView(t)
	for _, lang := range i18n.Langs {
		doc := render(t, lang, APIDocs(v))
		var shown, wrong []string
		doc.Find(".apidoc-summary, .apidoc-desc").Each(func(_ int, s *goquery.Selection) {
			x := text(s)
			if x == "" {
				return
			}
			shown = append(shown, x)
			if hasHan(x) != (lang == i18n.ZH) {
				wrong = append(wrong, x)
			}
		})
		if len(shown) < len(v.Texts()) {
			t.Errorf("%s: %d texts shown, the view holds %d descriptions", lang, len(shown), len(v.Texts()))
		}
		if len(wrong) > 0 {
			what := "hold no Chinese"
			if lang == i18n.EN {
				what = "hold Chinese"
			}
			t.Errorf("%s: %d of %d summaries and descriptions %s, such as %s", lang, len(wrong), len(shown), what,
				strings.Join(wrong[:min(3, len(wrong))], " | "))
		}
		// Each operation's description is on the page, under its summary.
		for _, g := range v.Groups {
			for _, op := range g.Ops {
				got := text(doc.Find(`#` + apiDocAnchor("op", op.ID) + ` > p.apidoc-desc`))
				if want := testCatalog.Translator(lang).T(op.Description.ID); op.Description.IsZero() || got != want {
					t.Errorf("%s: %s's description %q, want %q", lang, op.ID, got, want)
				}
			}
		}
	}
}

// TestAPIDocTextIDs: each description's message ID says where it stands.
func TestAPIDocTextIDs(t *testing.T) {
	v := servedDocsView(t)
	var ids []string
	for _, x := range v.Texts() {
		ids = append(ids, x.ID)
	}
	for _, want := range []string{
		"apidoc.text.tag.quotes",
		"apidoc.text.op.listQuotes",
		"apidoc.text.op.listQuotes.param.stale",
		"apidoc.text.op.listQuotes.200",
		"apidoc.text.op.publishQuote.body",
		"apidoc.text.param.Cursor",
		"apidoc.text.response.NotFound",
		"apidoc.text.schema.QuoteInput",
		"apidoc.text.prop.QuoteInput.hourly",
	} {
		if !slices.Contains(ids, want) {
			t.Errorf("no description %s among %d", want, len(ids))
		}
	}
}
