package web

import (
	"net/url"
	"strconv"
	"time"

	"gpuquote/internal/avail"
	"gpuquote/internal/compare"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
)

// AvailabilityStat is one window's statistics of a platform × GPU model,
// formatted (docs/RULES.md §18.2).
type AvailabilityStat struct {
	Days     int
	Attempts int
	Obtained int
	// Rate is the success rate rounded half up to one place ("66.7");
	// Median the median wait in minutes ("" when no attempt obtained GPUs).
	Rate   string
	Median string
}

// None says the window holds no record.
func (s AvailabilityStat) None() bool { return s.Attempts == 0 }

// AvailabilityStats formats the statistics of every window.
func AvailabilityStats(stats []avail.Stat) []AvailabilityStat {
	out := make([]AvailabilityStat, 0, len(stats))
	for _, s := range stats {
		v := AvailabilityStat{Days: s.Days, Attempts: s.Attempts, Obtained: s.Obtained}
		if r := s.RatePct(); r.Valid {
			v.Rate = r.Decimal.StringFixed(1)
		}
		if s.MedianWait.Valid {
			v.Median = specNumber(s.MedianWait.Decimal)
		}
		out = append(out, v)
	}
	return out
}

// FrozenAvailabilityStats formats a report's frozen windows.
func FrozenAvailabilityStats(ws []report.AvailabilityWindow) []AvailabilityStat {
	out := make([]AvailabilityStat, 0, len(ws))
	for _, w := range ws {
		v := AvailabilityStat{Days: w.Days, Attempts: w.Attempts, Obtained: w.Obtained}
		if w.RatePct.Valid {
			v.Rate = w.RatePct.Decimal.StringFixed(1)
		}
		if w.MedianWaitMinutes.Valid {
			v.Median = specNumber(w.MedianWaitMinutes.Decimal)
		}
		out = append(out, v)
	}
	return out
}

// AvailabilityText says one window's statistics in a sentence: "3 of 4
// attempts obtained GPUs (75.0 %), median wait 12 min", or "no records".
func AvailabilityText(tr *i18n.Translator, s AvailabilityStat) string {
	if s.None() {
		return tr.T("availability.stat.none")
	}
	text := plural(tr, "availability.stat.summary", s.Attempts, "Obtained", s.Obtained, "Rate", s.Rate)
	if s.Median != "" {
		sep := ", "
		if tr.Lang == i18n.ZH {
			sep = "，"
		}
		text += sep + tr.T("availability.stat.median", "Minutes", s.Median)
	}
	return text
}

// AvailabilityForm is the record form: where it came from (hidden), what
// was typed (kept on every error) and the problems by field.
type AvailabilityForm struct {
	CSRF       string
	QuoteID    int64
	TrialID    int64
	PlatformID int64
	GPUModelID int64
	Values     map[string]string
	Errors     Errors
}

// V is a typed value of the form.
func (f AvailabilityForm) V(name string) string { return f.Values[name] }

// NewAvailabilityForm is an empty form for an attempt made now (UTC).
func NewAvailabilityForm(csrf string, now time.Time) AvailabilityForm {
	return AvailabilityForm{CSRF: csrf, Errors: Errors{}, Values: map[string]string{
		"attempted_at": now.UTC().Format("2006-01-02T15:04"), "gpu_count": "1", "wait_minutes": "0"}}
}

// AvailabilityPanel is the availability box of a quote or trial page: its
// platform × GPU model's statistics, a link to every record and the form.
type AvailabilityPanel struct {
	ListURL string
	Day     string
	Stats   []AvailabilityStat
	Form    AvailabilityForm
}

// AvailabilityURL is the page of a platform × GPU model's records.
func AvailabilityURL(platformID, gpuModelID int64) string {
	return "/availability?" + url.Values{"platform": {strconv.FormatInt(platformID, 10)},
		"gpu": {strconv.FormatInt(gpuModelID, 10)}}.Encode()
}

// AvailabilityRow is one record in the list.
type AvailabilityRow struct {
	ID          int64
	AttemptedAt string
	GPUCount    int
	Obtained    bool
	WaitMinutes string
	Note        string
	QuoteID     int64
	TrialID     int64
	RecordedBy  string
}

// NewAvailabilityRow formats a record.
func NewAvailabilityRow(tr *i18n.Translator, r avail.Record) AvailabilityRow {
	when := r.CreatedAt.UTC().Format("2006-01-02 15:04") + " UTC"
	by := tr.T("availability.recorded_by_system", "When", when)
	if r.CreatedByName != "" {
		by = tr.T("availability.recorded_by", "Name", r.CreatedByName, "When", when)
	}
	return AvailabilityRow{ID: r.ID, AttemptedAt: r.AttemptedAt.UTC().Format("2006-01-02 15:04") + " UTC", GPUCount: r.GPUCount,
		Obtained: r.Obtained, WaitMinutes: strconv.Itoa(r.WaitMinutes), Note: r.Note, QuoteID: r.QuoteID, TrialID: r.TrialID,
		RecordedBy: by}
}

// AvailabilityPageView is the page of one platform × GPU model's records:
// the statistics, the records newest attempt first, and the form.
type AvailabilityPageView struct {
	Page     Page
	Platform string
	GPU      string
	Day      string
	Stats    []AvailabilityStat
	Rows     []AvailabilityRow
	Pager    Pager
	Form     AvailabilityForm
}

// AvailabilityFilterOption is one choice of the compare page's filter.
type AvailabilityFilterOption struct {
	Value    string
	Pct      int
	Selected bool
}

// AvailabilityFilterOptions are the compare page's filter choices with the
// one asked for selected.
func AvailabilityFilterOptions(asked string) []AvailabilityFilterOption {
	var out []AvailabilityFilterOption
	for _, p := range avail.FilterRates {
		v := strconv.Itoa(p)
		out = append(out, AvailabilityFilterOption{Value: v, Pct: p, Selected: v == asked})
	}
	return out
}

// CompareAvailabilityRow is one priced row's availability on the compare
// page or a report: the row's name, its pair's record page and the
// statistics of each window.
type CompareAvailabilityRow struct {
	// QuoteID is the first of the compared quotes on the platform × GPU
	// model, QuoteIDs all of them, in table order; Quotes their names.
	QuoteID  int64
	QuoteIDs []int64
	Quotes   []string
	// Name is the platform × GPU model's.
	Name  string
	URL   string
	Stats []AvailabilityStat
}

// availabilityGroups folds the rows of one platform × GPU model into one, in
// table order: the pair's statistics are shown once, with the quotes they
// cover (docs/RULES.md §18.2).
type availabilityGroups struct {
	rows []CompareAvailabilityRow
	at   map[market.PlatformGPU]int
}

// add puts quote q's pair on the list, with its statistics stats (read only
// for a pair not seen yet).
func (a *availabilityGroups) add(tr *i18n.Translator, q quote.Quote, url string, stats func() []AvailabilityStat) {
	pair := market.PlatformGPU{PlatformID: q.PlatformID, GPUModelID: q.GPUModelID}
	if a.at == nil {
		a.at = map[market.PlatformGPU]int{}
	}
	i, seen := a.at[pair]
	if !seen {
		i = len(a.rows)
		a.at[pair] = i
		a.rows = append(a.rows, CompareAvailabilityRow{QuoteID: q.ID, URL: url, Stats: stats(),
			Name: DisplayName(tr.Lang, q.PlatformNameZH, q.PlatformNameEN) + " · " + q.GPUVendor + " " + q.GPUName})
	}
	a.rows[i].QuoteIDs = append(a.rows[i].QuoteIDs, q.ID)
	a.rows[i].Quotes = append(a.rows[i].Quotes, QuoteName(tr, q))
}

// ReportAvailability is each row of a report with its platform × GPU
// model's frozen availability, in table order, and the windows' last day;
// none for a snapshot without availability.
func ReportAvailability(tr *i18n.Translator, snap report.Snapshot) ([]CompareAvailabilityRow, string) {
	if len(snap.Availability) == 0 {
		return nil, ""
	}
	var out availabilityGroups
	day := ""
	for _, r := range snap.Rows {
		a, ok := snap.AvailabilityOf(r.Quote.PlatformID, r.GPU.ID)
		if !ok {
			continue
		}
		day = a.Day
		out.add(tr, r.Quote.AsQuote(r.GPU), AvailabilityURL(a.PlatformID, a.GPUModelID),
			func() []AvailabilityStat { return FrozenAvailabilityStats(a.Windows) })
	}
	return out.rows, day
}

// AddCompareAvailability puts each priced row's availability on the compare
// page (docs/RULES.md §18.2).
func AddCompareAvailability(tr *i18n.Translator, v *CompareView, cmp *compare.Comparison) {
	if cmp.Availability == nil {
		return
	}
	v.AvailabilityDay = cmp.In.Today.Format(time.DateOnly)
	var out availabilityGroups
	for _, r := range cmp.Rows {
		if !r.Priced {
			continue
		}
		out.add(tr, r.Quote, AvailabilityURL(r.Quote.PlatformID, r.Quote.GPUModelID),
			func() []AvailabilityStat { return AvailabilityStats(cmp.AvailabilityOf(r)) })
	}
	v.Availability = out.rows
}

// NewAvailabilityPanel is the availability box of a quote or trial page
// for pair on today, with its statistics and form.
func NewAvailabilityPanel(pair market.PlatformGPU, today time.Time, stats []avail.Stat, f AvailabilityForm) *AvailabilityPanel {
	return &AvailabilityPanel{ListURL: AvailabilityURL(pair.PlatformID, pair.GPUModelID), Day: today.Format(time.DateOnly),
		Stats: AvailabilityStats(stats), Form: f}
}

// AvailabilityRecords is one page of the records of attempts of Pair, a
// platform × GPU model, with its statistics on Today and the form as it
// stands.
type AvailabilityRecords struct {
	Pair                 market.PlatformGPU
	Platform             market.Platform
	GPU                  market.GPUModel
	Today                time.Time
	Stats                []avail.Stat
	Records              []avail.Record
	Page, PerPage, Total int
	Form                 AvailabilityForm
}

// NewAvailabilityPageView builds the records page of a platform × GPU
// model: the statistics, the records newest attempt first with their
// pager, and the form (csrf its token).
func NewAvailabilityPageView(tr *i18n.Translator, in AvailabilityRecords, csrf string) AvailabilityPageView {
	p, g := in.Platform, in.GPU
	v := AvailabilityPageView{Platform: DisplayName(tr.Lang, p.NameZH, p.NameEN), GPU: g.Vendor + " " + g.Name,
		Day: in.Today.Format(time.DateOnly), Stats: AvailabilityStats(in.Stats), Form: in.Form,
		Pager: Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total, Base: AvailabilityURL(in.Pair.PlatformID, in.Pair.GPUModelID)}}
	for _, r := range in.Records {
		v.Rows = append(v.Rows, NewAvailabilityRow(tr, r))
	}
	v.Form.CSRF = csrf
	if v.Form.Errors == nil {
		v.Form.Errors = Errors{}
	}
	return v
}

// TypedAvailabilityForm is the record form of pair as posted (values),
// with its problems, to be shown again.
func TypedAvailabilityForm(in avail.Input, pair market.PlatformGPU, values url.Values, errs Errors) AvailabilityForm {
	f := AvailabilityForm{QuoteID: in.QuoteID, TrialID: in.TrialID, PlatformID: pair.PlatformID, GPUModelID: pair.GPUModelID,
		Values: map[string]string{}, Errors: errs}
	for _, k := range []string{"attempted_at", "gpu_count", "obtained", "wait_minutes", "note"} {
		f.Values[k] = values.Get(k)
	}
	return f
}
