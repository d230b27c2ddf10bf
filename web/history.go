package web

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/svgchart"
	"gpuquote/internal/tco"
)

// SourceURL returns source when it is an http(s) link worth linking to.
func SourceURL(source string) string {
	if u, err := url.Parse(source); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return source
	}
	return ""
}

// ChangeText words a price move from prev to cur in percent with one
// decimal and a sign ("+35.0 %"); a move from 0 has no percentage.
func ChangeText(tr *i18n.Translator, prev, cur decimal.NullDecimal) string {
	if !prev.Valid || !cur.Valid {
		return ""
	}
	if prev.Decimal.Sign() == 0 {
		return tr.T("history.change.from_zero")
	}
	// (cur − prev) ÷ prev × 100, rounded half away from zero once.
	pct := money.QuoRound([]decimal.Decimal{cur.Decimal.Sub(prev.Decimal), decimal.NewFromInt(100)}, []decimal.Decimal{prev.Decimal}, 1)
	s := money.Fixed(pct, 1)
	if pct.Sign() > 0 {
		s = "+" + s
	}
	return tr.T("history.change.pct", "Pct", s)
}

// NewHistoryCharts draws the hourly and the monthly chart of one currency's
// samples, one line per offer (the versions of one quote series), on the
// same date axis.
func NewHistoryCharts(tr *i18n.Translator, platform, gpu, currency string, points []market.PricePoint) HistoryCharts {
	out := HistoryCharts{Currency: currency}
	from, to := points[0].AsOf, points[len(points)-1].AsOf
	draw := func(kind string, price func(market.PricePoint) decimal.NullDecimal) string {
		var offers []int64
		byOffer := map[int64][]svgchart.Point{}
		names := map[int64]string{}
		// points come oldest first, so the last valid one is the latest.
		var (
			n            int
			lo, hi, last decimal.Decimal
			fromAt, toAt time.Time
		)
		for _, p := range points {
			d := price(p)
			if !d.Valid {
				continue
			}
			if _, ok := byOffer[p.SeriesID]; !ok {
				offers = append(offers, p.SeriesID)
			}
			// The newest version's label names the offer.
			names[p.SeriesID] = tr.T("history.series.offer", "Label", p.Label, "Count", strconv.Itoa(p.GPUCount), "Series", strconv.FormatInt(p.SeriesID, 10))
			text := FormatMoney(tr.Lang, d, currency)
			byOffer[p.SeriesID] = append(byOffer[p.SeriesID], svgchart.Point{At: p.AsOf, Value: d.Decimal,
				Title: tr.T("history.chart.point", "Date", FormatDate(p.AsOf), "Version", strconv.Itoa(p.Version), "Price", text)})
			if n == 0 || d.Decimal.LessThan(lo) {
				lo = d.Decimal
			}
			if n == 0 || d.Decimal.GreaterThan(hi) {
				hi = d.Decimal
			}
			if n == 0 {
				fromAt = p.AsOf
			}
			last, toAt = d.Decimal, p.AsOf
			n++
		}
		if n == 0 {
			return ""
		}
		ch := svgchart.Chart{ID: "chart-" + kind + "-" + currency, From: from, To: to,
			YLabel: tr.T("history.chart."+kind, "Currency", currency)}
		ch.Title = tr.T("history.chart.title", "Price", ch.YLabel, "Platform", platform, "GPU", gpu)
		nd := func(d decimal.Decimal) string { return FormatMoney(tr.Lang, decimal.NewNullDecimal(d), currency) }
		ch.Desc = tr.T("history.chart.desc", "Count", strconv.Itoa(n), "From", FormatDate(fromAt), "To", FormatDate(toAt),
			"Min", nd(lo), "Max", nd(hi), "Last", nd(last))
		for _, k := range offers {
			ch.Series = append(ch.Series, svgchart.Series{Name: names[k], Points: byOffer[k]})
		}
		return svgchart.Render(ch)
	}
	out.Hourly = draw("hourly", func(p market.PricePoint) decimal.NullDecimal { return p.Hourly })
	out.Monthly = draw("monthly", func(p market.PricePoint) decimal.NullDecimal { return p.Monthly })
	return out
}

// HistoryView is the price history page of one platform × GPU model.
type HistoryView struct {
	Page Page
	// Platforms and GPUs are the chooser's choices; Platform and GPU the
	// chosen ids as given.
	Platforms, GPUs []Option
	Platform, GPU   string
	// Selected is true when both exist; their display names follow.
	Selected     bool
	PlatformName string
	GPUName      string
	// Currencies lists the currencies of the samples ("CNY, USD").
	Currencies string
	Charts     []HistoryCharts
	// Rows are every sample, newest first.
	Rows []HistoryRow
}

// HistoryCharts are the two charts of one currency, as inline SVG from
// package svgchart (which escapes every text it writes); "" when no sample
// has that price.
type HistoryCharts struct {
	Currency string
	Hourly   string
	Monthly  string
}

// HistoryRow is one sample of the table, already formatted.
type HistoryRow struct {
	QuoteID   int64
	Version   int
	State     string
	AsOf      string
	Currency  string
	Hourly    string
	Monthly   string
	Label     string
	GPUCount  int
	Source    string
	SourceURL string
	// Stale marks a current published sample past the re-check age.
	Stale bool
	// Changes word each price that jumped ("hourly +35.0 %").
	Changes []string
}

// NewHistoryChoice is the price history page for the platform and GPU
// model ids asked for (as given): the chooser's choices and, when both
// are given, the names of what they pick. pair is what they pick; found
// says both ids name a platform and a GPU model of the choices.
func NewHistoryChoice(lang i18n.Lang, platforms, gpus []market.RefName, platform, gpu string) (v HistoryView, pair market.PlatformGPU, found bool) {
	v = HistoryView{Platforms: RefOptions(lang, platforms), GPUs: GPUOptions(gpus), Platform: platform, GPU: gpu}
	if v.Platform == "" || v.GPU == "" {
		return v, pair, false
	}
	pid, err1 := strconv.ParseInt(v.Platform, 10, 64)
	gid, err2 := strconv.ParseInt(v.GPU, 10, 64)
	if err1 != nil || err2 != nil {
		return v, pair, false
	}
	for _, p := range platforms {
		if p.ID == pid {
			v.PlatformName = DisplayName(lang, p.Names[0], p.Names[1])
		}
	}
	for _, g := range gpus {
		if g.ID == gid {
			v.GPUName = g.Names[0]
		}
	}
	if v.PlatformName == "" || v.GPUName == "" {
		return v, pair, false
	}
	v.Selected = true
	return v, market.PlatformGPU{PlatformID: pid, GPUModelID: gid}, true
}

// WithPoints is the history page v of one platform × GPU model with its
// dated samples (oldest first): two charts per currency and the table of
// every sample, newest first, stale ones marked as of today.
func (v HistoryView) WithPoints(tr *i18n.Translator, points []market.PricePoint, today time.Time) HistoryView {
	stale := tco.StaleBefore(today)
	var currencies []string
	byCurrency := map[string][]market.PricePoint{}
	for _, p := range points {
		if _, ok := byCurrency[p.Currency]; !ok {
			currencies = append(currencies, p.Currency)
		}
		byCurrency[p.Currency] = append(byCurrency[p.Currency], p)
	}
	v.Currencies = strings.Join(currencies, ", ")
	for _, cur := range currencies {
		v.Charts = append(v.Charts, NewHistoryCharts(tr, v.PlatformName, v.GPUName, cur, byCurrency[cur]))
	}
	for i := len(points) - 1; i >= 0; i-- {
		p := points[i]
		r := HistoryRow{QuoteID: p.ID, Version: p.Version, State: p.State, AsOf: FormatDate(p.AsOf),
			Currency: p.Currency, Hourly: FormatMoney(tr.Lang, p.Hourly, p.Currency), Monthly: FormatMoney(tr.Lang, p.Monthly, p.Currency),
			Label: p.Label, GPUCount: p.GPUCount, Source: p.Source, SourceURL: SourceURL(p.Source),
			Stale: p.State == quote.Published && p.AsOf.Before(stale)}
		r.Changes = jumpChanges(tr, p.HourlyJump, p.PrevHourly, p.Hourly, p.MonthlyJump, p.PrevMonthly, p.Monthly)
		v.Rows = append(v.Rows, r)
	}
	return v
}

// jumpChanges words each price that jumped ("hourly +35.0 %").
func jumpChanges(tr *i18n.Translator, hourlyJump bool, prevHourly, hourly decimal.NullDecimal,
	monthlyJump bool, prevMonthly, monthly decimal.NullDecimal) []string {
	var out []string
	if hourlyJump {
		out = append(out, tr.T("history.change.hourly", "Change", ChangeText(tr, prevHourly, hourly)))
	}
	if monthlyJump {
		out = append(out, tr.T("history.change.monthly", "Change", ChangeText(tr, prevMonthly, monthly)))
	}
	return out
}
