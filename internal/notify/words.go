package notify

import (
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
)

// About names what a notice is about, read with it: the report's number
// and title, or the quote's platform, GPU model and count; for a bill,
// also its report's id, its month and what it overcharges in its
// currency.
type About struct {
	ReportNumber string
	ReportTitle  string
	PlatformZH   string
	PlatformEN   string
	GPU          string
	GPUCount     int
	// ReportID, BillMonth, BillOvercharge and BillCurrency are a bill's
	// (entity "bill").
	ReportID       int64
	BillMonth      time.Time
	BillOvercharge decimal.Decimal
	BillCurrency   string
	// The Watch… fields are a watch event's (entity "watch_event"): its
	// watch, cause, observed figure and quote (0 for none), and the
	// watch's condition (WatchProfile: a TCO watch's profile's name, ""
	// when deleted).
	WatchID       int64
	WatchCause    string
	WatchValue    decimal.NullDecimal
	WatchQuoteID  int64
	WatchKind     string
	WatchBasis    string
	WatchCurrency string
	WatchTarget   decimal.Decimal
	WatchPercent  decimal.Decimal
	WatchProfile  string
}

// Item is a stored notice with the names it is worded with (who acted and
// what it is about).
type Item struct {
	Notification
	About About
}

// Path is where a notice leads, relative to the site: /reports/:id,
// /quotes/:id or a bill's /reports/:report/bills/:id (docs/RULES.md
// §18.4).
func (it Item) Path() string {
	id := strconv.FormatInt(it.EntityID, 10)
	switch it.Entity {
	case "quote":
		return "/quotes/" + id
	case "bill":
		return "/reports/" + strconv.FormatInt(it.About.ReportID, 10) + "/bills/" + id
	case "watch_event":
		if it.About.WatchQuoteID != 0 {
			return "/quotes/" + strconv.FormatInt(it.About.WatchQuoteID, 10)
		}
		return "/watches#watch-" + strconv.FormatInt(it.About.WatchID, 10)
	}
	return "/reports/" + id
}

// Label names the report, quote or bill in tr's language.
func Label(tr *i18n.Translator, it Item) string {
	if it.Entity == "bill" {
		if it.About.ReportNumber == "" {
			return tr.T("notify.bill_gone", "ID", strconv.FormatInt(it.EntityID, 10))
		}
		return tr.T("notify.bill_label", "Month", billMonth(it), "Number", it.About.ReportNumber)
	}
	if it.Entity == "watch_event" && it.About.WatchQuoteID == 0 {
		return watchPair(tr, it)
	}
	if it.Entity == "quote" || it.Entity == "watch_event" {
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
// (docs/RULES.md §18.4); the comment, if any, is shown apart. A bill's
// sentence says what the bill overcharges: "The 2026-11 bill of
// R-2026-0003 overcharges 1.70 EUR."
func Sentence(tr *i18n.Translator, it Item) string {
	if it.Entity == "bill" {
		return tr.T("notify.text."+string(it.Kind), "Actor", Actor(tr, it), "What", Label(tr, it),
			"Month", billMonth(it), "Number", it.About.ReportNumber,
			"Amount", money.Group(money.Fixed(it.About.BillOvercharge, 2)), "Currency", it.About.BillCurrency)
	}
	if it.Entity == "watch_event" {
		return WatchSentence(tr, it)
	}
	return tr.T("notify.text."+string(it.Kind), "Actor", Actor(tr, it), "What", Label(tr, it))
}

// WatchSentence says what a watch's event found (docs/RULES.md §24.2):
// "Watch matched: Aliyun · H100 × 8 at 9.50 CNY per GPU-hour (target
// 10.00)", in tr's language, by the cause's kind.
func WatchSentence(tr *i18n.Translator, it Item) string {
	a := it.About
	value := ""
	if a.WatchValue.Valid {
		value = money.Group(money.Fixed(a.WatchValue.Decimal, 2))
	}
	cause, _, _ := strings.Cut(a.WatchCause, ":")
	key := "notify.watch." + a.WatchKind
	if cause == "stale" || cause == "superseded" {
		key = "notify.watch." + cause
	}
	if a.WatchKind == "price_below" {
		key += "." + a.WatchBasis
	}
	profile := a.WatchProfile
	if profile == "" {
		profile = tr.T("watch.profile.deleted")
	}
	return tr.T(key, "What", Label(tr, it), "Value", value, "Currency", a.WatchCurrency,
		"Target", money.Group(money.Fixed(a.WatchTarget, 2)), "Percent", a.WatchPercent.String(), "Profile", profile)
}

// watchPair names an event's platform × GPU model when it has no quote.
func watchPair(tr *i18n.Translator, it Item) string {
	platform := it.About.PlatformZH
	if tr.Lang == i18n.EN && it.About.PlatformEN != "" || platform == "" {
		platform = it.About.PlatformEN
	}
	switch {
	case platform == "":
		return it.About.GPU
	case it.About.GPU == "":
		return platform
	}
	return platform + " · " + it.About.GPU
}

// billMonth is a bill's month as YYYY-MM.
func billMonth(it Item) string { return it.About.BillMonth.Format("2006-01") }
