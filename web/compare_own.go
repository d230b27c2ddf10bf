package web

import (
	"strconv"

	"github.com/shopspring/decimal"

	"gpuquote/internal/compare"
	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/own"
	"gpuquote/internal/tco"
)

// Own-hardware options on the compare page (docs/RULES.md §8.6): the
// options the reader may tick beside the quotes, and each ticked one
// priced with the comparison's profile.

// CompareOwnCandidate is an own-hardware option the reader may tick: its
// current version.
type CompareOwnCandidate struct {
	// ID is the version's id (the page state's compare.OwnParam).
	ID       int64
	Name     string
	GPU      string
	Purchase string
	Shared   bool
	Selected bool
}

// CompareOwnRow is one ticked own-hardware option, formatted.
type CompareOwnRow struct {
	ID   int64
	Name string
	URL  string
	// Version is "v3"-style, with the GPU and count.
	Version     string
	Electricity string
	Priced      bool
	Errors      []string
	Lines       []RentBuyLine
	Upfront     string
	TCO         string
	Effective   string
	Crossings   []CompareOwnCrossing
	Sensitivity []CompareOwnVariant
	// Most names the variant that moves the tco most (""
	// when none moves it).
	Most string
}

// CompareOwnCrossing is where owning stops costing more than one rental.
type CompareOwnCrossing struct {
	QuoteID   int64
	Rental    string
	FromMonth string
	FromHours string
	// Month and Hours are the points (0: none), for tests and styling.
	Month, Hours int
}

// CompareOwnVariant is the option's tco under one moved assumption.
type CompareOwnVariant struct {
	Key     string
	LabelID string
	TCO     string
	Delta   string
	Most    bool
}

// OwnCandidates lists the options the reader may tick, each at its current
// version, ticked when the page state names that version; a ticked version
// that is not listed (an older one, from a shared link) comes after them,
// ticked, so the next change keeps it.
func OwnCandidates(tr *i18n.Translator, opts []own.Option, ticked []int64, priced []compare.OwnRow) []CompareOwnCandidate {
	on, listed := map[int64]bool{}, map[int64]bool{}
	for _, id := range ticked {
		on[id] = true
	}
	out := make([]CompareOwnCandidate, 0, len(opts))
	add := func(v own.Version, shared bool) {
		listed[v.ID] = true
		out = append(out, CompareOwnCandidate{ID: v.ID, Name: v.Name, GPU: ownGPU(tr, v), Shared: shared, Selected: on[v.ID],
			Purchase: FormatMoney(tr.Lang, decimal.NewNullDecimal(v.PurchasePrice), v.Currency)})
	}
	for _, o := range opts {
		add(o.Current, o.Shared)
	}
	for _, r := range priced {
		if !listed[r.Version.ID] {
			add(r.Version, false)
		}
	}
	return out
}

// ownGPU is "NVIDIA RTX 4090 × 8".
func ownGPU(tr *i18n.Translator, v own.Version) string {
	return tr.T("compare.own.gpu", "GPU", v.GPU(), "Count", strconv.Itoa(v.GPUCount))
}

// CompareOwn formats the priced own-hardware options: their seven lines,
// cash up front, tco and cost per GPU-hour, the crossing with each rental
// in words, and the sensitivity; their rates join the page's notes
// (CompareCharts draws their lines in the cost curves).
func CompareOwn(tr *i18n.Translator, v *CompareView, rows []compare.Row, owns []compare.OwnRow, in compare.Input) {
	cur := in.ReportCurrency
	v.ReportCur = cur
	m := func(d decimal.Decimal) string { return FormatMoney(tr.Lang, decimal.NewNullDecimal(d), cur) }
	names := map[int64]string{}
	for _, r := range rows {
		names[r.Quote.ID] = QuoteName(tr, r.Quote)
	}
	hours := money.Group(money.String(in.Profile.HoursPerMonth))
	for _, o := range owns {
		ver := o.Version
		row := CompareOwnRow{ID: ver.ID, Name: ver.Name, Priced: o.Priced,
			URL:     "/own-hardware/" + strconv.FormatInt(ver.OptionID, 10) + "?version=" + strconv.Itoa(ver.Version),
			Version: tr.T("quote.version_short", "Version", strconv.Itoa(ver.Version)) + " · " + ownGPU(tr, ver)}
		kwh := money.FormatPlaces(o.Electricity.KWhPrice, ver.Currency, string(tr.Lang), max(2, int32(money.Places(o.Electricity.KWhPrice))))
		if o.Electricity.SampleID != 0 {
			row.Electricity = tr.T("compare.own.kwh.sample", "Price", kwh, "Region", o.Electricity.Region,
				"Date", FormatDate(o.Electricity.AsOf), "Source", o.Electricity.Source)
		} else if o.Priced || len(o.Errors) == 0 || o.Errors[0].Code != compare.CodeNoElectricitySample {
			row.Electricity = tr.T("compare.own.kwh.own", "Price", kwh)
		}
		for _, e := range o.Errors {
			switch e.Code {
			case tco.CodeFXRateRequired:
				row.Errors = append(row.Errors, tr.T(compare.ReasonNoRate, "From", ver.Currency, "To", cur))
			default:
				row.Errors = append(row.Errors, tr.TMap(e.MessageID, e.Args))
			}
		}
		if o.Priced {
			res := o.Result
			if res.Currency != cur {
				v.FXNotes = addFXNote(tr, v.FXNotes, res.Currency, cur, tco.FX{Rate: res.FXRate, Date: res.FXDate})
			}
			for _, l := range res.Lines {
				row.Lines = append(row.Lines, RentBuyLine{Item: string(l.Item), LabelID: l.Item.LabelID(), Amount: m(l.Amount)})
			}
			row.Upfront, row.TCO = m(res.UpfrontCash), m(res.TCO)
			row.Effective = hourRate(tr, decimal.NewNullDecimal(res.EffectivePerGPUHour), cur)
			for _, x := range o.Crossings {
				c := CompareOwnCrossing{QuoteID: x.QuoteID, Rental: names[x.QuoteID], Month: x.FromMonth, Hours: x.FromHours}
				if x.FromMonth > 0 {
					c.FromMonth = tr.T("compare.own.from_month", "Month", strconv.Itoa(x.FromMonth), "Hours", hours) + PastLife(tr, x.FromMonth, ver.LifeMonths)
				} else {
					c.FromMonth = plural(tr, "compare.own.from_month.none", tco.MaxMonths/12, "Hours", hours)
				}
				if x.FromHours > 0 {
					c.FromHours = plural(tr, "compare.own.from_hours", x.FromHours)
				} else {
					c.FromHours = tr.T("compare.own.from_hours.none", "Max", "730")
				}
				row.Crossings = append(row.Crossings, c)
			}
			most, mostKey := decimal.Zero, ""
			for _, s := range o.Sensitivity {
				d := s.TCO.Sub(res.TCO)
				if d.Abs().GreaterThan(most) {
					most, mostKey = d.Abs(), s.Key
				}
				row.Sensitivity = append(row.Sensitivity, CompareOwnVariant{Key: s.Key, LabelID: "compare.own.variant." + s.Key,
					TCO: m(s.TCO), Delta: signedMoney(tr, d, cur)})
			}
			for i := range row.Sensitivity {
				if row.Sensitivity[i].Key == mostKey {
					row.Sensitivity[i].Most = true
					row.Most = tr.T(row.Sensitivity[i].LabelID)
				}
			}
		}
		v.OwnRows = append(v.OwnRows, row)
	}
}

// addFXNote adds the note of a rate from → to unless the page names it
// already.
func addFXNote(tr *i18n.Translator, notes []string, from, to string, fx tco.FX) []string {
	date := tr.T("compare.fx.undated")
	if !fx.Date.IsZero() {
		date = FormatDate(fx.Date)
	}
	n := tr.T("compare.fx", "From", from, "To", to, "Rate", money.String(fx.Rate), "Date", date)
	for _, x := range notes {
		if x == n {
			return notes
		}
	}
	return append(notes, n)
}

// PastLife says, after the month from which owning is cheaper, that the
// month lies past the machine's life, by when it would need replacing
// (docs/RULES.md §17.2); "" when it does not.
func PastLife(tr *i18n.Translator, month, life int) string {
	if life <= 0 || month <= life {
		return ""
	}
	return tr.T("own.crossing.past_life", "Life", life)
}
