package web

import (
	"strconv"
	"unicode"
	"unicode/utf8"

	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
)

// DisplayName picks the name in the reader's language, falling back to
// the other.
func DisplayName(lang i18n.Lang, zh, en string) string {
	if lang == i18n.EN && en != "" || zh == "" {
		return en
	}
	return zh
}

// QuoteName names a quote in lists, tables and charts: platform · GPU × n
// · label.
func QuoteName(tr *i18n.Translator, q quote.Quote) string {
	name := quoteHead(tr, q)
	if q.Label != "" {
		name += " · " + q.Label
	}
	return name
}

// quoteHead is a quote's name without its offer label: platform · GPU × n.
func quoteHead(tr *i18n.Translator, q quote.Quote) string {
	return tr.T("quote.detail.title", "Platform", DisplayName(tr.Lang, q.PlatformNameZH, q.PlatformNameEN),
		"GPU", q.GPUVendor+" "+q.GPUName, "Count", strconv.Itoa(q.GPUCount))
}

// RefOptions turns platforms into select choices, named in the reader's
// language.
func RefOptions(lang i18n.Lang, refs []market.RefName) []Option {
	out := make([]Option, len(refs))
	for i, r := range refs {
		out[i] = Option{Value: strconv.FormatInt(r.ID, 10), Label: DisplayName(lang, r.Names[0], r.Names[1])}
	}
	return out
}

// GPUOptions labels GPU models "Vendor Name" in every language.
func GPUOptions(refs []market.RefName) []Option {
	out := make([]Option, len(refs))
	for i, r := range refs {
		out[i] = Option{Value: strconv.FormatInt(r.ID, 10), Label: r.Names[0]}
	}
	return out
}

// InSentence is a name as it reads inside an English sentence: a capital
// that only starts the name is lowered ("excludes egress traffic"), an
// abbreviation keeps its capitals ("IP"). Other languages keep the name.
func InSentence(tr *i18n.Translator, name string) string {
	if tr.Lang != i18n.EN {
		return name
	}
	first, n := utf8.DecodeRuneInString(name)
	if !unicode.IsUpper(first) {
		return name
	}
	if second, _ := utf8.DecodeRuneInString(name[n:]); unicode.IsUpper(second) {
		return name
	}
	return string(unicode.ToLower(first)) + name[n:]
}
