package web

import (
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/compare"
	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/svgchart"
)

// CrossingView is one break-even across two offers of the same platform,
// GPU model and GPU count, formatted (docs/RULES.md §4.7).
type CrossingView struct {
	// Kind is "hours" (hourly-only against monthly-only) or "months"
	// (monthly-only against yearly-only).
	Kind string
	// Head names what the two offers share: platform · GPU × n.
	Head string
	// Flexible and Committed are the two offers: the one without the
	// commitment and the one with it.
	Flexible, Committed CrossingOffer
	// Value is the figure to 0.01 ("148.62"); Text is it with its unit.
	Value, Text string
	// Meaning says which offer costs less on either side of it.
	Meaning string
	// Converted says the figure was computed in the report currency, when
	// the two offers quote in different currencies ("" otherwise).
	Converted string
	// Differs names the spec fields on which the offers differ; NoDiffer
	// says none of the stated ones does.
	Differs  string
	NoDiffer string
}

// CrossingOffer is one offer of a crossing.
type CrossingOffer struct {
	Name     string // the offer's label, shortened
	FullName string
	URL      string
	Price    string // its price in its own currency, per hour, month or year
}

// CrossingsView formats the break-even points across the compared offers
// (none when no offer without a commitment meets one with it).
func CrossingsView(tr *i18n.Translator, rows []compare.Row, in compare.Input) []CrossingView {
	var out []CrossingView
	for _, c := range compare.Crossings(rows) {
		a, b := rows[c.Flexible].Quote, rows[c.Committed].Quote
		value := money.Fixed(c.Value, 2)
		v := CrossingView{Kind: string(c.Kind), Head: quoteHead(tr, a), Value: value,
			Flexible: crossingOffer(tr, a), Committed: crossingOffer(tr, b)}
		switch c.Kind {
		case compare.CrossingHours:
			v.Text = tr.T("compare.hours", "Hours", value)
			if c.Value.GreaterThan(hoursPerMonth) {
				v.Meaning = tr.T("compare.crossings.hours.beyond")
			} else {
				v.Meaning = tr.T("compare.crossings.hours.meaning", "Hours", value)
			}
		case compare.CrossingMonths:
			v.Text = tr.T("compare.crossings.months", "Months", value)
			if c.Value.GreaterThan(monthsPerYear) {
				v.Meaning = tr.T("compare.crossings.months.beyond")
			} else {
				v.Meaning = tr.T("compare.crossings.months.meaning", "Months", value)
			}
		}
		if a.Currency != b.Currency {
			v.Converted = tr.T("compare.crossings.converted", "Currency", in.ReportCurrency)
		}
		if len(c.Differs) == 0 {
			v.NoDiffer = tr.T("compare.crossings.specs.same")
		} else {
			names := make([]string, len(c.Differs))
			for i, name := range c.Differs {
				names[i] = name
				if f, ok := quote.FieldByName(name); ok {
					names[i] = tr.T(f.LabelID)
				}
			}
			v.Differs = strings.Join(names, tr.T("list.separator"))
		}
		out = append(out, v)
	}
	return out
}

// The most hours a month has and months a year has: beyond them a
// crossing is never reached.
var (
	hoursPerMonth = decimal.NewFromInt(730)
	monthsPerYear = decimal.NewFromInt(12)
)

// crossingOffer names an offer by its label (its platform and GPU are the
// row's) with its price.
func crossingOffer(tr *i18n.Translator, q quote.Quote) CrossingOffer {
	o := CrossingOffer{Name: shorten(q.Label, offerNameRunes), FullName: QuoteName(tr, q), URL: "/quotes/" + strconv.FormatInt(q.ID, 10)}
	if o.Name == "" {
		o.Name = o.FullName
	}
	switch {
	case q.Hourly.Valid:
		o.Price = tr.T("compare.crossings.price.hourly", "Price", FormatMoney(tr.Lang, q.Hourly, q.Currency))
	case q.Monthly.Valid:
		o.Price = tr.T("compare.crossings.price.monthly", "Price", FormatMoney(tr.Lang, q.Monthly, q.Currency))
	case q.Yearly.Valid:
		o.Price = tr.T("compare.crossings.price.yearly", "Price", FormatMoney(tr.Lang, q.Yearly, q.Currency))
	}
	return o
}

// crossingMarks are the crossings of hours the cost-curve chart marks: the
// hourly line of one priced row meets the monthly line of another. The
// chart holds the priced rows in order, so a row's index there counts the
// priced rows before it.
func crossingMarks(tr *i18n.Translator, rows []compare.Row) []svgchart.CurveCrossing {
	curveIndex := make([]int, len(rows))
	n := 0
	for i, r := range rows {
		curveIndex[i] = n
		if r.Priced {
			n++
		}
	}
	var out []svgchart.CurveCrossing
	for _, c := range compare.Crossings(rows) {
		if c.Kind != compare.CrossingHours {
			continue
		}
		hours := tr.T("compare.hours", "Hours", money.Fixed(c.Value, 2))
		out = append(out, svgchart.CurveCrossing{Hourly: curveIndex[c.Flexible], Monthly: curveIndex[c.Committed], Hours: c.Value, Label: hours,
			Title: tr.T("compare.crossings.chart", "Hourly", QuoteName(tr, rows[c.Flexible].Quote), "Monthly", QuoteName(tr, rows[c.Committed].Quote),
				"Hours", hours)})
	}
	return out
}
