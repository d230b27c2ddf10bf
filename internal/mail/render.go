// Package mail sends the mail of notifications (docs/RULES.md §18.4): it
// renders a notice's mail when it is queued and, in serve, sends the
// queue over SMTP with retries.
package mail

import (
	"strings"

	"gpuquote/internal/i18n"
	"gpuquote/internal/notify"
)

// Renderer writes the mail of a notice in both languages, Simplified
// Chinese first (users keep no language of their own), with an absolute
// link from the site's address.
type Renderer struct {
	Catalog *i18n.Catalog
	// BaseURL is the site's address without a trailing slash.
	BaseURL string
}

// Render returns a notice's subject and body for the user named.
func (r Renderer) Render(it notify.Item, recipientName string) (subject, body string) {
	zh, en := r.Catalog.Translator(i18n.ZH), r.Catalog.Translator(i18n.EN)
	// One prefix, then the sentence in each language.
	subject = oneLine(zh.T("notify.mail.subject", "Text", notify.Sentence(zh, it)) + " / " + notify.Sentence(en, it))
	link := r.BaseURL + it.Path()
	body = r.bilingual(recipientName, func(b *strings.Builder, tr *i18n.Translator) {
		b.WriteString(notify.Sentence(tr, it))
		b.WriteString("\n")
		if it.Comment != "" {
			b.WriteString("\n")
			b.WriteString(tr.T("notify.comment", "Comment", it.Comment))
			b.WriteString("\n")
		}
		b.WriteString("\n")
		b.WriteString(tr.T("notify.mail.open", "URL", link))
		b.WriteString("\n\n")
		b.WriteString(tr.T("notify.mail.footer", "URL", r.BaseURL+"/notifications"))
	})
	return subject, body
}

// RenderDigest returns a daily digest's subject and body for the user
// named (docs/RULES.md §18.4): in each language, one sentence and link per
// notice listed, oldest first, then how many more it holds.
func (r Renderer) RenderDigest(items []notify.Item, more int, recipientName string) (subject, body string) {
	zh, en := r.Catalog.Translator(i18n.ZH), r.Catalog.Translator(i18n.EN)
	n := len(items) + more
	subject = oneLine(zh.Plural("notify.digest.subject", n) + " / " + en.Plural("notify.digest.subject", n))
	body = r.bilingual(recipientName, func(b *strings.Builder, tr *i18n.Translator) {
		b.WriteString(tr.Plural("notify.digest.intro", n))
		b.WriteString("\n")
		for _, it := range items {
			b.WriteString("\n- ")
			b.WriteString(oneLine(notify.Sentence(tr, it)))
			b.WriteString("\n  ")
			b.WriteString(r.BaseURL + it.Path())
			b.WriteString("\n")
		}
		if more > 0 {
			b.WriteString("\n")
			b.WriteString(tr.Plural("notify.digest.more", more))
			b.WriteString("\n")
		}
		b.WriteString("\n")
		b.WriteString(tr.T("notify.digest.footer", "URL", r.BaseURL+"/notifications", "Account", r.BaseURL+"/account"))
	})
	return subject, body
}

// bilingual writes a mail's body: Simplified Chinese, then English after
// a signature line, each the greeting to the user named, then what part
// writes, then a line's end.
func (r Renderer) bilingual(recipientName string, part func(b *strings.Builder, tr *i18n.Translator)) string {
	var b strings.Builder
	for i, lang := range []i18n.Lang{i18n.ZH, i18n.EN} {
		if i > 0 {
			b.WriteString("\n-- \n\n")
		}
		tr := r.Catalog.Translator(lang)
		b.WriteString(tr.T("notify.mail.greeting", "Name", recipientName))
		b.WriteString("\n\n")
		part(&b, tr)
		b.WriteString("\n")
	}
	return b.String()
}

// oneLine keeps a header on one line and within the queue's bound.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 900 {
		s = string(r[:900]) + "…"
	}
	return s
}
