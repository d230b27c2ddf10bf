// Package i18n holds gpuquote's message catalogs (简体中文 by default,
// English on request) and the middleware that picks the reader's language.
package i18n

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"golang.org/x/text/language"
)

// Lang is a supported interface language.
type Lang string

// The supported languages; Chinese is the default.
const (
	ZH Lang = "zh-CN"
	EN Lang = "en"
)

// Langs lists the supported languages, default first.
var Langs = []Lang{ZH, EN}

// Valid reports whether l is supported.
func (l Lang) Valid() bool { return l == ZH || l == EN }

// Tag is the BCP 47 tag of l.
func (l Lang) Tag() language.Tag {
	if l == EN {
		return language.English
	}
	return language.SimplifiedChinese
}

//go:embed locales/*.toml
var localeFS embed.FS

// Catalog holds every message of every language, loaded once at start-up
// and compiled: a message is a list of literal text and {{.Name}}
// placeholders, so rendering is concatenation (the comparison page renders
// hundreds of messages per request).
type Catalog struct {
	msgs map[Lang]map[string]message
}

// message is a compiled message: text parts with placeholder names between
// them (len(parts) == len(names) + 1).
type message struct {
	parts []string
	names []string
}

// compile splits text at its placeholders, {{.Name}} with optional white
// space inside the braces (Name a letter, then letters, digits or
// underscores); any other template action is an error, caught when the
// catalogs load. A hand-written scanner: a regular expression here
// allocated tens of megabytes per load.
func compile(text string) (message, error) {
	var m message
	last := 0
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "{{")
		if j < 0 {
			break
		}
		start := i + j
		name, end, ok := scanPlaceholder(text, start)
		if !ok {
			i = start + 1
			continue
		}
		m.parts = append(m.parts, text[last:start])
		m.names = append(m.names, name)
		last, i = end, end
	}
	m.parts = append(m.parts, text[last:])
	for _, p := range m.parts {
		if strings.Contains(p, "{{") || strings.Contains(p, "}}") {
			return message{}, fmt.Errorf("only {{.Name}} placeholders are supported: %q", text)
		}
	}
	return m, nil
}

// scanPlaceholder reads a placeholder at text[start:] (which begins with
// "{{") and returns its name and where it ends.
func scanPlaceholder(text string, start int) (name string, end int, ok bool) {
	i := skipSpace(text, start+2)
	if i >= len(text) || text[i] != '.' {
		return "", 0, false
	}
	i++
	n := i
	for i < len(text) && (isLetter(text[i]) || (i > n && (isDigit(text[i]) || text[i] == '_'))) {
		i++
	}
	if i == n {
		return "", 0, false
	}
	name = text[n:i]
	i = skipSpace(text, i)
	if !strings.HasPrefix(text[i:], "}}") {
		return "", 0, false
	}
	return name, i + 2, true
}

// skipSpace skips what \s matches in a regular expression: tab, newline,
// form feed, carriage return and space.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	return i
}

func isLetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }
func isDigit(b byte) bool  { return b >= '0' && b <= '9' }

// Load parses every locales/*.<lang>.toml file. Files are split by feature;
// each feature ships one file per language.
// The embedded files never change and a Catalog is never changed after it
// is loaded, so a process loads them once.
func Load() (*Catalog, error) { return loadEmbedded() }

var loadEmbedded = sync.OnceValues(func() (*Catalog, error) { return LoadFS(localeFS, "locales") })

// LoadFS loads catalogs from dir in fsys (tests use their own).
func LoadFS(fsys fs.FS, dir string) (*Catalog, error) {
	c := &Catalog{msgs: map[Lang]map[string]message{}}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
			continue
		}
		var lang Lang
		switch {
		case strings.HasSuffix(e.Name(), ".zh-CN.toml"):
			lang = ZH
		case strings.HasSuffix(e.Name(), ".en.toml"):
			lang = EN
		default:
			return nil, fmt.Errorf("i18n: %s: name must end in .zh-CN.toml or .en.toml", e.Name())
		}
		buf, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		var raw map[string]any
		if err := toml.Unmarshal(buf, &raw); err != nil {
			return nil, fmt.Errorf("i18n: %s: %w", e.Name(), err)
		}
		flat := map[string]string{}
		if err := flatten("", raw, flat); err != nil {
			return nil, fmt.Errorf("i18n: %s: %w", e.Name(), err)
		}
		if c.msgs[lang] == nil {
			c.msgs[lang] = map[string]message{}
		}
		for id, text := range flat {
			if _, dup := c.msgs[lang][id]; dup {
				return nil, fmt.Errorf("i18n: %s: message %q defined twice", e.Name(), id)
			}
			m, err := compile(text)
			if err != nil {
				return nil, fmt.Errorf("i18n: %s: %s: %w", e.Name(), id, err)
			}
			c.msgs[lang][id] = m
		}
	}
	return c, nil
}

// flatten turns nested TOML tables into dotted message IDs.
func flatten(prefix string, m map[string]any, out map[string]string) error {
	for k, v := range m {
		id := k
		if prefix != "" {
			id = prefix + "." + k
		}
		switch x := v.(type) {
		case string:
			out[id] = x
		case map[string]any:
			if err := flatten(id, x, out); err != nil {
				return err
			}
		default:
			return fmt.Errorf("message %q: want a string, got %T", id, v)
		}
	}
	return nil
}

// IDs returns the sorted message IDs defined for lang.
func (c *Catalog) IDs(lang Lang) []string {
	out := make([]string, 0, len(c.msgs[lang]))
	for id := range c.msgs[lang] {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Has reports whether lang defines id.
func (c *Catalog) Has(lang Lang, id string) bool {
	_, ok := c.msgs[lang][id]
	return ok
}

// Translator renders messages in one language.
type Translator struct {
	Lang Lang
	c    *Catalog
}

// Translator returns the translator for lang (Chinese when unsupported).
func (c *Catalog) Translator(lang Lang) *Translator {
	if !lang.Valid() {
		lang = ZH
	}
	return &Translator{Lang: lang, c: c}
}

// T renders message id. args are alternating name/value pairs for the
// message's placeholders ({{.Name}}). A missing message renders as its id
// in brackets, visible in review and caught by the catalog tests.
func (t *Translator) T(id string, args ...any) string {
	m, ok := t.lookup(id)
	if !ok {
		return "[" + id + "]"
	}
	if len(m.names) == 0 {
		return m.parts[0]
	}
	return m.render(func(name string) (any, bool) {
		for i := 0; i+1 < len(args); i += 2 {
			if k, _ := args[i].(string); k == name {
				return args[i+1], true
			}
		}
		return nil, false
	})
}

// Plural renders the message family id for the count n: id+".one" when
// n is 1, id+".other" otherwise (Chinese says both alike), with
// {{.Count}} and the name/value pairs in args.
func (t *Translator) Plural(id string, n int, args ...any) string {
	if n == 1 {
		id += ".one"
	} else {
		id += ".other"
	}
	return t.T(id, append([]any{"Count", n}, args...)...)
}

// TMap renders message id with its placeholder values given as a map.
func (t *Translator) TMap(id string, data map[string]any) string {
	m, ok := t.lookup(id)
	if !ok {
		return "[" + id + "]"
	}
	if len(m.names) == 0 {
		return m.parts[0]
	}
	return m.render(func(name string) (any, bool) {
		v, ok := data[name]
		return v, ok
	})
}

func (t *Translator) lookup(id string) (message, bool) {
	if t == nil || t.c == nil {
		return message{}, false
	}
	m, ok := t.c.msgs[t.Lang][id]
	return m, ok
}

// render fills the placeholders; a value not given renders as "<no value>"
// (as text/template would), which the catalog tests look for.
func (m message) render(value func(string) (any, bool)) string {
	var b strings.Builder
	for i, name := range m.names {
		b.WriteString(m.parts[i])
		if v, ok := value(name); ok {
			switch x := v.(type) {
			case string:
				b.WriteString(x)
			case int:
				b.WriteString(strconv.Itoa(x))
			default:
				fmt.Fprint(&b, x)
			}
		} else {
			b.WriteString("<no value>")
		}
	}
	b.WriteString(m.parts[len(m.parts)-1])
	return b.String()
}

type ctxKey struct{}

// WithTranslator returns ctx carrying t (templ components read it back).
func WithTranslator(ctx context.Context, t *Translator) context.Context {
	return context.WithValue(ctx, ctxKey{}, t)
}

// FromContext returns the translator in ctx, or nil.
func FromContext(ctx context.Context) *Translator {
	t, _ := ctx.Value(ctxKey{}).(*Translator)
	return t
}

// T renders message id in the language carried by ctx.
func T(ctx context.Context, id string, args ...any) string {
	return FromContext(ctx).T(id, args...)
}

// LangOf returns the language carried by ctx (Chinese when none).
func LangOf(ctx context.Context) Lang {
	if t := FromContext(ctx); t != nil {
		return t.Lang
	}
	return ZH
}

var matcher = language.NewMatcher([]language.Tag{language.SimplifiedChinese, language.English})

// Negotiate picks the language: the cookie value when it names a supported
// language, else the best Accept-Language match, else Chinese.
func Negotiate(cookie, acceptLanguage string) Lang {
	if l := Lang(cookie); l.Valid() {
		return l
	}
	if acceptLanguage == "" {
		return ZH
	}
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return ZH
	}
	_, idx, conf := matcher.Match(tags...)
	if conf == language.No {
		return ZH
	}
	if idx == 1 {
		return EN
	}
	return ZH
}
