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
	"strings"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
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

// Catalog holds every message of every language, loaded once at start-up.
type Catalog struct {
	bundle *goi18n.Bundle
	// plain holds messages without template actions, looked up without
	// going through the template engine (the common, hot case).
	plain      map[Lang]map[string]string
	localizers map[Lang]*goi18n.Localizer
	ids        map[Lang]map[string]bool
}

// Load parses every locales/*.<lang>.toml file. Files are split by feature;
// each feature ships one file per language.
func Load() (*Catalog, error) { return LoadFS(localeFS, "locales") }

// LoadFS loads catalogs from dir in fsys (tests use their own).
func LoadFS(fsys fs.FS, dir string) (*Catalog, error) {
	b := goi18n.NewBundle(language.SimplifiedChinese)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	c := &Catalog{bundle: b, plain: map[Lang]map[string]string{}, localizers: map[Lang]*goi18n.Localizer{}, ids: map[Lang]map[string]bool{}}
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
		if c.plain[lang] == nil {
			c.plain[lang] = map[string]string{}
			c.ids[lang] = map[string]bool{}
		}
		for id, text := range flat {
			if c.ids[lang][id] {
				return nil, fmt.Errorf("i18n: %s: message %q defined twice", e.Name(), id)
			}
			c.ids[lang][id] = true
			if strings.Contains(text, "{{") {
				if err := b.AddMessages(lang.Tag(), &goi18n.Message{ID: id, Other: text}); err != nil {
					return nil, fmt.Errorf("i18n: %s: %w", e.Name(), err)
				}
				continue
			}
			c.plain[lang][id] = text
		}
	}
	for _, l := range Langs {
		c.localizers[l] = goi18n.NewLocalizer(b, string(l))
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
	out := make([]string, 0, len(c.ids[lang]))
	for id := range c.ids[lang] {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Has reports whether lang defines id.
func (c *Catalog) Has(lang Lang, id string) bool { return c.ids[lang][id] }

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
// message's template ({{.Name}}). A missing message renders as its id in
// brackets, visible in review and caught by the catalog tests.
func (t *Translator) T(id string, args ...any) string {
	var data map[string]any
	if len(args) > 1 {
		data = make(map[string]any, len(args)/2)
		for i := 0; i+1 < len(args); i += 2 {
			data[fmt.Sprint(args[i])] = args[i+1]
		}
	}
	return t.TMap(id, data)
}

// TMap renders message id with its template data given as a map.
func (t *Translator) TMap(id string, data map[string]any) string {
	if t == nil || t.c == nil {
		return "[" + id + "]"
	}
	if s, ok := t.c.plain[t.Lang][id]; ok {
		return s
	}
	s, err := t.c.localizers[t.Lang].Localize(&goi18n.LocalizeConfig{MessageID: id, TemplateData: data})
	if err != nil || !t.c.ids[t.Lang][id] {
		return "[" + id + "]"
	}
	return s
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
