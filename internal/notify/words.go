package notify

import (
	"strconv"

	"gpuquote/internal/i18n"
)

// About names what a notice is about, read with it: the report's number
// and title, or the quote's platform, GPU model and count.
type About struct {
	ReportNumber string
	ReportTitle  string
	PlatformZH   string
	PlatformEN   string
	GPU          string
	GPUCount     int
}

// Item is a stored notice with the names it is worded with (who acted and
// what it is about).
type Item struct {
	Notification
	About About
}

// Path is where a notice leads, relative to the site: /reports/:id or
// /quotes/:id (docs/RULES.md §18.4).
func (it Item) Path() string {
	id := strconv.FormatInt(it.EntityID, 10)
	if it.Entity == "quote" {
		return "/quotes/" + id
	}
	return "/reports/" + id
}

// Label names the report or quote in tr's language.
func Label(tr *i18n.Translator, it Item) string {
	if it.Entity == "quote" {
		platform := it.About.PlatformZH
		if tr.Lang == i18n.EN && it.About.PlatformEN != "" || platform == "" {
			platform = it.About.PlatformEN
		}
		if platform == "" && it.About.GPU == "" {
			return tr.T("notify.quote_gone", "ID", strconv.FormatInt(it.EntityID, 10))
		}
		return tr.T("quote.detail.title", "Platform", platform, "GPU", it.About.GPU, "Count", strconv.Itoa(it.About.GPUCount))
	}
	if it.About.ReportNumber == "" {
		return tr.T("notify.report_gone", "ID", strconv.FormatInt(it.EntityID, 10))
	}
	return tr.T("notify.report_label", "Number", it.About.ReportNumber, "Title", it.About.ReportTitle)
}

// Actor names who acted, in tr's language ("the system" when nobody did).
func Actor(tr *i18n.Translator, it Item) string {
	if it.ActorName == "" {
		return tr.T("notify.actor.system")
	}
	return it.ActorName
}

// Sentence says who did what to which report or quote, in tr's language
// (docs/RULES.md §18.4); the comment, if any, is shown apart.
func Sentence(tr *i18n.Translator, it Item) string {
	return tr.T("notify.text."+string(it.Kind), "Actor", Actor(tr, it), "What", Label(tr, it))
}
