package web

import (
	"time"

	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
)

// DashboardView is the editors' dashboard.
type DashboardView struct {
	Page       Page
	Published  int
	Drafts     int
	StaleTotal int
	JumpTotal  int
	// Stale are current quotes past the re-check age, oldest first.
	Stale      []DashboardQuote
	StalePager Pager
	// Jumps are the newest current quotes that moved more than 30 %.
	Jumps []DashboardJump
}

// DashboardQuote is one quote of a dashboard list, already formatted.
type DashboardQuote struct {
	QuoteID    int64
	PlatformID int64
	GPUModelID int64
	Platform   string
	GPU        string
	GPUCount   int
	Label      string
	Currency   string
	AsOf       string
	AgeDays    int
	Hourly     string
	Monthly    string
}

// DashboardJump is a current quote with the previous sample it jumped from.
type DashboardJump struct {
	DashboardQuote
	PrevID      int64
	PrevAsOf    string
	PrevHourly  string
	PrevMonthly string
	Changes     []string
}

// DashboardRecords is what the dashboard lists: the counts of published
// quotes and drafts, one page of the stale quotes (oldest first) and the
// recent price jumps, each with its total, as of Today.
type DashboardRecords struct {
	Published, Drafts int
	Stale             []quote.Quote
	StaleTotal        int
	Jumps             []market.PriceJump
	JumpTotal         int
	Page, PerPage     int
	Today             time.Time
}

// NewDashboardView builds the editors' dashboard: the counts, the stale
// quotes with their pager and the price jumps, formatted for the reader.
func NewDashboardView(tr *i18n.Translator, in DashboardRecords) DashboardView {
	lang := tr.Lang
	ageDays := func(asOf time.Time) int { return int(in.Today.Sub(asOf).Hours() / 24) }
	v := DashboardView{Published: in.Published, Drafts: in.Drafts, StaleTotal: in.StaleTotal, JumpTotal: in.JumpTotal,
		StalePager: Pager{Page: in.Page, PerPage: in.PerPage, Total: in.StaleTotal, Base: "/dashboard"}}
	for _, q := range in.Stale {
		v.Stale = append(v.Stale, DashboardQuote{QuoteID: q.ID, PlatformID: q.PlatformID, GPUModelID: q.GPUModelID,
			Platform: DisplayName(lang, q.PlatformNameZH, q.PlatformNameEN), GPU: q.GPUVendor + " " + q.GPUName,
			GPUCount: q.GPUCount, Label: q.Label, Currency: q.Currency, AsOf: FormatDate(q.AsOf), AgeDays: ageDays(q.AsOf),
			Hourly: FormatMoney(lang, q.Hourly, q.Currency), Monthly: FormatMoney(lang, q.Monthly, q.Currency)})
	}
	for _, j := range in.Jumps {
		r := DashboardJump{DashboardQuote: DashboardQuote{QuoteID: j.QuoteID, PlatformID: j.PlatformID, GPUModelID: j.GPUModelID,
			Platform: DisplayName(lang, j.PlatformNameZH, j.PlatformNameEN), GPU: j.GPUVendor + " " + j.GPUName,
			GPUCount: j.GPUCount, Label: j.Label, Currency: j.Currency, AsOf: FormatDate(j.AsOf), AgeDays: ageDays(j.AsOf),
			Hourly: FormatMoney(lang, j.Hourly, j.Currency), Monthly: FormatMoney(lang, j.Monthly, j.Currency)},
			PrevID: j.PrevID, PrevAsOf: FormatDate(j.PrevAsOf),
			PrevHourly: FormatMoney(lang, j.PrevHourly, j.Currency), PrevMonthly: FormatMoney(lang, j.PrevMonthly, j.Currency)}
		r.Changes = jumpChanges(tr, j.HourlyJump, j.PrevHourly, j.Hourly, j.MonthlyJump, j.PrevMonthly, j.Monthly)
		v.Jumps = append(v.Jumps, r)
	}
	return v
}
