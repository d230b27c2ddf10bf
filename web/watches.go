package web

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/watch"
)

// WatchesView is the list of watches a user sees (docs/RULES.md §24.4):
// the shared ones and their own, each in words, with its state and last
// matches.
type WatchesView struct {
	Page   Page
	Shared []WatchRow
	Mine   []WatchRow
	// MayKeepShared: the reader is an editor and may change shared
	// watches.
	MayKeepShared bool
}

// WatchRow is one watch as its list shows it.
type WatchRow struct {
	ID      int64
	Text    string
	Paused  bool
	Waiting bool // matched, waiting to re-arm
	// WaitingHint says what re-arms a waiting watch.
	WaitingHint string
	MayEdit     bool
	Matches     []WatchMatchRow
	Cooldown    string
}

// WatchMatchRow is one of a watch's last matches.
type WatchMatchRow struct {
	At    string
	Text  string
	Href  string
	Value string
}

// WatchMatch is a stored match as the list reads it.
type WatchMatch struct {
	Cause   string
	QuoteID int64
	Value   decimal.NullDecimal
	At      time.Time
}

// WatchPath is the list's anchor of watch id.
func WatchPath(id int64) string { return "/watches/" + strconv.FormatInt(id, 10) }

// WatchSubject names what w is about: platform · GPU model × count ·
// sharing, in tr's language ("any GPU model" where it names none).
func WatchSubject(tr *i18n.Translator, w watch.Watch) string {
	var parts []string
	if w.PlatformID != 0 {
		parts = append(parts, DisplayName(tr.Lang, w.PlatformZH, w.PlatformEN))
	} else {
		parts = append(parts, tr.T("watch.any_platform"))
	}
	gpu := tr.T("watch.any_gpu")
	if w.GPUModelID != 0 {
		gpu = w.GPU
	}
	if w.GPUCount > 0 {
		gpu += " × " + strconv.Itoa(w.GPUCount)
	}
	parts = append(parts, gpu)
	if w.Sharing != "" {
		parts = append(parts, tr.T(catalog.Sharing(w.Sharing).LabelID()))
	}
	if w.Kind != watch.PriceBelow && w.Currency != "" {
		parts = append(parts, w.Currency)
	}
	return strings.Join(parts, " · ")
}

// WatchText says in words what w watches (docs/RULES.md §24.1).
func WatchText(tr *i18n.Translator, w watch.Watch) string {
	key := "watch.desc." + string(w.Kind)
	if w.Kind == watch.PriceBelow {
		key += "." + string(w.Basis)
	}
	return tr.T(key, "Subject", WatchSubject(tr, w), "Target", money.Group(money.Fixed(w.Target, 2)),
		"Currency", w.Currency, "Percent", w.Percent.String(), "Profile", WatchProfileName(tr, w))
}

// WatchProfileName is a TCO watch's profile's name, or says it was
// deleted.
func WatchProfileName(tr *i18n.Translator, w watch.Watch) string {
	if w.ProfileID == 0 || w.ProfileName == "" {
		return tr.T("watch.profile.deleted")
	}
	return w.ProfileName
}

// watchMatchText words one match by its cause.
func watchMatchText(tr *i18n.Translator, m WatchMatch) (text, href string) {
	kind, id, _ := strings.Cut(m.Cause, ":")
	switch kind {
	case "quote", "stale", "superseded":
		return tr.T("watch.cause."+kind, "ID", id), "/quotes/" + id
	}
	return tr.T("watch.cause.avail"), "/availability"
}

// NewWatchRow draws one watch.
func NewWatchRow(tr *i18n.Translator, w watch.Watch, matches []WatchMatch, mayEdit bool) WatchRow {
	r := WatchRow{ID: w.ID, Text: WatchText(tr, w), Paused: w.Paused, Waiting: !w.Armed, MayEdit: mayEdit,
		Cooldown: tr.T("watch.cooldown_hours.value", "Hours", strconv.Itoa(w.CooldownHours))}
	if r.Waiting {
		r.WaitingHint = tr.T("watch.status.waiting.figure")
		if w.Kind.Discrete() {
			r.WaitingHint = tr.T("watch.status.waiting.cooldown")
		}
	}
	for _, m := range matches {
		text, href := watchMatchText(tr, m)
		row := WatchMatchRow{At: ReportTime(tr, m.At), Text: text, Href: href}
		if m.Value.Valid {
			row.Value = money.Group(money.Fixed(m.Value.Decimal, 2))
		}
		r.Matches = append(r.Matches, row)
	}
	return r
}

// WatchFormView is the form of a new or changed watch.
type WatchFormView struct {
	Page Page
	// ID is the watch changed (0: a new one).
	ID        int64
	Values    url.Values
	Errors    Errors
	Platforms []Option
	GPUs      []Option
	Sharings  []Option
	Kinds     []Option
	Bases     []Option
	// Profiles are the saved usage profiles a TCO watch may price for.
	Profiles []Option
	// Currencies are the ISO codes offered.
	Currencies []string
	// MayShare: an editor may make a new watch shared.
	MayShare bool
}

// Action is where the form posts.
func (v WatchFormView) Action() string {
	if v.ID != 0 {
		return WatchPath(v.ID)
	}
	return "/watches"
}

// NewWatchFormView fills the choices of the watch form.
func NewWatchFormView(tr *i18n.Translator, platforms, gpus, profiles []Option, values url.Values) WatchFormView {
	v := WatchFormView{Values: values, Errors: Errors{}, Platforms: platforms, GPUs: gpus, Profiles: profiles}
	for _, s := range catalog.Sharings {
		v.Sharings = append(v.Sharings, Option{Value: string(s), Label: tr.T(s.LabelID())})
	}
	for _, k := range watch.Kinds {
		v.Kinds = append(v.Kinds, Option{Value: string(k), Label: tr.T("watch.kind." + string(k))})
	}
	for _, b := range watch.Bases {
		v.Bases = append(v.Bases, Option{Value: string(b), Label: tr.T("watch.basis." + string(b))})
	}
	for _, c := range money.Currencies() {
		if c.Priceable() {
			v.Currencies = append(v.Currencies, c.Code)
		}
	}
	return v
}

// WatchValues are a stored watch as the form's values.
func WatchValues(w watch.Watch) url.Values {
	v := url.Values{}
	id := func(n int64) string {
		if n == 0 {
			return ""
		}
		return strconv.FormatInt(n, 10)
	}
	v.Set("platform", id(w.PlatformID))
	v.Set("gpu_model", id(w.GPUModelID))
	v.Set("gpu_count", id(int64(w.GPUCount)))
	v.Set("sharing", w.Sharing)
	v.Set("currency", w.Currency)
	v.Set("kind", string(w.Kind))
	v.Set("basis", string(w.Basis))
	v.Set("profile", id(w.ProfileID))
	if w.Target.Sign() > 0 {
		v.Set("target", money.String(w.Target))
	}
	if w.Percent.Sign() > 0 {
		v.Set("percent", money.String(w.Percent))
	}
	v.Set("cooldown_hours", strconv.Itoa(w.CooldownHours))
	return v
}

// WatchOfferURL is the new-watch form filled with quote q's offer: its
// platform, GPU model, count and currency, and a target 5 % under its
// price per GPU (tax included; hourly, else monthly) (docs/RULES.md §24.4).
func WatchOfferURL(q quote.Quote) string {
	v := url.Values{}
	v.Set("platform", strconv.FormatInt(q.PlatformID, 10))
	v.Set("gpu_model", strconv.FormatInt(q.GPUModelID, 10))
	v.Set("gpu_count", strconv.Itoa(q.GPUCount))
	v.Set("currency", q.Currency)
	v.Set("kind", string(watch.PriceBelow))
	price, basis := q.Hourly, watch.Hourly
	if !price.Valid {
		price, basis = q.Monthly, watch.Monthly
	}
	v.Set("basis", string(basis))
	if price.Valid {
		per := watch.PerGPU(price.Decimal, q.GPUCount, q.PricesIncludeTax, q.TaxRate, decimal.New(1, 0))
		if t := per.Mul(decimal.RequireFromString("0.95")).Round(2); t.Sign() > 0 {
			v.Set("target", t.String())
		}
	}
	return "/watches/new?" + v.Encode()
}
