package web

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/compare"
	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/svgchart"
	"gpuquote/internal/tco"
	"gpuquote/internal/vendorq"
)

// The view models of a comparison and a saved report, built from the
// comparison's rows or a report's snapshot: the same table and charts for
// both, so a report shows what the compare page showed.

// CompareTable formats the priced rows, the sortable headers and the
// exchange rates used; CompareCharts draws the charts.
func CompareTable(tr *i18n.Translator, v *CompareView, rows []compare.Row, in compare.Input, values url.Values, sortKey string, desc bool) {
	cur := in.ReportCurrency
	m := func(d decimal.Decimal) string { return FormatMoney(tr.Lang, decimal.NewNullDecimal(d), cur) }
	rate := func(d decimal.NullDecimal) string { return hourRate(tr, d, cur) }
	v.ReportCur = cur
	for _, it := range catalog.Items {
		v.ItemLabelIDs = append(v.ItemLabelIDs, it.LabelID)
	}
	usedRates := map[string]tco.FX{}
	for _, r := range rows {
		q := r.Quote
		row := CompareRow{ID: q.ID, Name: QuoteName(tr, q), NameHead: quoteHead(tr, q), NameOffer: shorten(q.Label, offerNameRunes),
			URL:          "/quotes/" + strconv.FormatInt(q.ID, 10),
			QuestionsURL: QuestionsURL(values, q.ID),
			Archived:     q.State == quote.Archived, NotReviewed: quote.IsProposal(q.State), ProposalState: q.State, Eligible: r.Eligible(), Priced: r.Priced, Reasons: ReasonTexts(tr, r.Reasons),
			CheapestConfirmed: r.CheapestConfirmed, CheapestPessimistic: r.CheapestPessimistic}
		if r.Priced {
			res := r.Result
			if q.Currency != cur {
				usedRates[q.Currency] = tco.FX{Rate: res.FXRate, Date: res.FXDate}
			}
			row.ChosenModeID = res.ChosenMode.LabelID()
			for _, md := range res.Modes {
				row.Modes = append(row.Modes, CompareMode{Mode: string(md.Mode), LabelID: md.Mode.LabelID(), Total: m(md.TCO),
					Allowed: md.Status == catalog.ModeAllowed, Chosen: md.Mode == res.ChosenMode})
			}
			if res.BreakEvenHours.Valid {
				row.BreakEven = tr.T("compare.hours", "Hours", money.Fixed(res.BreakEvenHours.Decimal, 2))
			}
			row.BreakEvenNote = breakEvenNote(tr, q.Hourly.Valid, q.Monthly.Valid, res.BreakEvenHours.Valid, q.CommitmentMonths)
			row.Compute, row.Hidden, row.OneOff = m(res.ComputeTotal), m(res.HiddenTotal), m(res.OneOffTotal)
			row.TCO, row.TCOPessimistic = m(res.TCO), m(res.TCOPessimistic)
			row.HiddenShare, row.HiddenSharePessimistic = percent(tr, res.HiddenShare), percent(tr, res.HiddenSharePessimistic)
			row.Unpriced = unpricedText(tr, res.PessimisticUnpriced)
			row.Effective = rate(decimal.NewNullDecimal(res.EffectivePerGPUHour))
			row.PerReference = rate(res.PerReferenceGPUHour)
			row.PerMillionTokens = rate(res.CostPerMillionTokens)
			for _, f := range res.Flags {
				row.FlagIDs = append(row.FlagIDs, f.LabelID())
			}
			for _, l := range res.Lines {
				cl := CompareLine{Item: string(l.Item), Status: string(l.Status)}
				if l.Status == catalog.StatusCharged {
					cl.Amount = m(l.Amount)
				} else {
					cl.StatusID = l.Status.LabelID()
					if l.ReferenceAmount.Valid {
						cl.Reference = m(l.ReferenceAmount.Decimal)
						if l.ReferenceUnitPrice.Valid {
							u := l.ReferenceUnitPrice.Decimal
							cl.ReferenceUnitPrice = money.FormatPlaces(u, q.Currency, string(tr.Lang), max(2, int32(money.Places(u))))
							if it, ok := catalog.LookupItem(l.Item); ok {
								if id := it.UnitLabelID(l.Unit); id != "" {
									cl.ReferenceUnitPrice += " " + tr.T(id)
								}
							}
						}
						cl.Source = report.ReferenceSourceText(tr.TMap, string(l.ReferenceSource), l.ReferenceQuoteID)
					}
				}
				row.Lines = append(row.Lines, cl)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	var froms []string
	for from := range usedRates {
		froms = append(froms, from)
	}
	sort.Strings(froms)
	for _, from := range froms {
		fx := usedRates[from]
		date := tr.T("compare.fx.undated")
		if !fx.Date.IsZero() {
			date = FormatDate(fx.Date)
		}
		v.FXNotes = append(v.FXNotes, tr.T("compare.fx", "From", from, "To", cur, "Rate", money.String(fx.Rate), "Date", date))
	}
	v.Crossings = CrossingsView(tr, rows, in)
	for _, k := range []struct{ key, labelID string }{
		{compare.SortTCO, "calc.result.tco"}, {compare.SortPessimistic, "calc.result.tco_pessimistic"},
		{compare.SortEffective, "calc.result.effective"}, {compare.SortHidden, "calc.result.hidden_share"},
		{compare.SortBreakEven, "calc.result.break_even_hours"},
	} {
		q := url.Values{}
		for key, vs := range values {
			q[key] = vs
		}
		q.Set("sort", k.key)
		dir := "asc"
		if k.key == sortKey && !desc {
			dir = "desc"
		}
		q.Set("dir", dir)
		v.Sorts = append(v.Sorts, CompareSort{Key: k.key, LabelID: k.labelID, URL: "/compare?" + q.Encode(),
			Active: k.key == sortKey, Desc: k.key == sortKey && desc})
	}
}

// offerNameRunes is how much of an offer's name a table shows; the rest is
// in the full name (the link's title and the detail).
const offerNameRunes = 48

// shorten cuts s to n characters, marking the cut with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// signedMoney is a difference of money with its sign: +, − (a minus
// sign), or ± for none.
func signedMoney(tr *i18n.Translator, d decimal.Decimal, cur string) string {
	sign := "+"
	switch d.Sign() {
	case 0:
		sign = "±"
	case -1:
		sign = "−"
	}
	return sign + FormatMoney(tr.Lang, decimal.NewNullDecimal(d.Abs()), cur)
}

// percent formats a fraction as a percentage with 2 places ("" for none).
func percent(tr *i18n.Translator, d decimal.NullDecimal) string {
	if !d.Valid {
		return ""
	}
	return tr.T("calc.result.percent", "Value", money.Fixed(d.Decimal.Mul(decimal.NewFromInt(100)), 2))
}

// hourRate formats a per-hour rate with 4 places ("" for none).
func hourRate(tr *i18n.Translator, d decimal.NullDecimal, cur string) string {
	if !d.Valid {
		return ""
	}
	return money.FormatPlaces(d.Decimal, cur, string(tr.Lang), 4)
}

// unpricedText says what a pessimistic TCO leaves out, naming the items
// no reference priced ("" when it leaves out nothing).
func unpricedText[K ~string](tr *i18n.Translator, unpriced []K) string {
	if len(unpriced) == 0 {
		return ""
	}
	var items []string
	for _, it := range unpriced {
		items = append(items, InSentence(tr, tr.T(ItemLabelID(string(it)))))
	}
	return tr.T("pessimistic.unpriced", "Items", strings.Join(items, tr.T("list.separator")))
}

// CompareCharts gives v the cost curves and the cost make-up of the rows
// the engine priced and of the own-hardware options (owns).
func CompareCharts(tr *i18n.Translator, v *CompareView, rows []compare.Row, in compare.Input, owns ...compare.OwnRow) {
	v.CurvesSVG, v.BarsSVG = Charts(tr, rows, in, owns...)
}

// ChartNames is what the charts of rows and owns read besides the priced
// figures, the profile and the report currency: the names they show, in
// the reader's language, as read for this request (docs/RULES.md §20.4).
func ChartNames(tr *i18n.Translator, rows []compare.Row, owns []compare.OwnRow) string {
	var b strings.Builder
	b.WriteString(string(tr.Lang))
	for _, r := range rows {
		b.WriteByte(0)
		b.WriteString(QuoteName(tr, r.Quote))
	}
	b.WriteByte(1)
	for _, o := range owns {
		b.WriteByte(0)
		b.WriteString(o.Version.Name)
	}
	return b.String()
}

// Charts draws the cost curves and the cost make-up of the rows the
// engine priced (ruled-out ones too, since they are shown greyed).
// Own-hardware options (owns) draw a line each: their cost per month and
// server against running hours, with the profile's hours marked. Besides
// rows' and owns' figures, the profile and the report currency, it reads
// only the language and the names ChartNames lists.
func Charts(tr *i18n.Translator, rows []compare.Row, in compare.Input, owns ...compare.OwnRow) (curvesSVG, barsSVG string) {
	cur := in.ReportCurrency
	m := func(d decimal.Decimal) string { return FormatMoney(tr.Lang, decimal.NewNullDecimal(d), cur) }
	curves := svgchart.CurveChart{ID: "cmp-curves", Title: tr.T("compare.chart.curves.title", "Currency", cur),
		Desc: tr.T("compare.charts.curves"), XLabel: tr.T("compare.chart.hours"), YLabel: tr.T("compare.chart.per_month", "Currency", cur),
		LegendHourly: tr.T("mode.hourly"), LegendMonthly: tr.T("mode.monthly"), LegendSpot: tr.T("mode.spot"),
		LegendBreakEven: tr.T("calc.result.break_even_hours")}
	bars := svgchart.BarChart{ID: "cmp-bars", Title: tr.T("compare.chart.bars.title", "Currency", cur), Desc: tr.T("compare.charts.bars"),
		XLabel: tr.T("calc.result.tco") + " (" + cur + ")", LegendCompute: tr.T("calc.result.compute"),
		LegendHidden: tr.T("calc.result.hidden"), LegendOneOff: tr.T("calc.result.one_off")}
	for _, r := range rows {
		if !r.Priced {
			continue
		}
		name := QuoteName(tr, r.Quote)
		hourly, monthly, spot := compare.UnitPrices(r, in.Profile)
		cq := svgchart.CurveQuote{Name: name, Hourly: hourly, Monthly: monthly, Spot: spot, BreakEvenHours: r.Result.BreakEvenHours}
		if r.Result.BreakEvenHours.Valid {
			cq.BreakEvenLabel = tr.T("compare.hours", "Hours", money.Fixed(r.Result.BreakEvenHours.Decimal, 2))
		}
		curves.Quotes = append(curves.Quotes, cq)
		res := r.Result
		bars.Bars = append(bars.Bars, svgchart.Bar{Name: name, Compute: res.ComputeTotal, Hidden: res.HiddenTotal, OneOff: res.OneOffTotal,
			ComputeText: m(res.ComputeTotal), HiddenText: m(res.HiddenTotal), OneOffText: m(res.OneOffTotal), TotalText: m(res.TCO)})
	}
	curves.Crossings = crossingMarks(tr, rows)
	for _, o := range owns {
		if !o.Priced {
			continue
		}
		name := tr.T("compare.own.legend", "Name", o.Version.Name)
		if o.Curve.Valid {
			curves.Own = append(curves.Own, svgchart.CurveOwn{Name: name, At0: o.Curve.At0, At730: o.Curve.At730})
		}
		// Its bar, as the curves draw its line: the setup line is its
		// one-off cost, every other line its compute; it has no hidden
		// costs (docs/RULES.md §8.6).
		res := o.Result
		setup := decimal.Zero
		for _, l := range res.Lines {
			if l.Item == tco.OwnSetup {
				setup = setup.Add(l.Amount)
			}
		}
		compute := res.TCO.Sub(setup)
		bars.Bars = append(bars.Bars, svgchart.Bar{Name: name, Compute: compute, OneOff: setup,
			ComputeText: m(compute), HiddenText: m(decimal.Zero), OneOffText: m(setup), TotalText: m(res.TCO)})
	}
	if len(curves.Own) > 0 {
		curves.LegendOwn = tr.T("compare.own.legend.kind")
		curves.MarkHours = decimal.NewNullDecimal(in.Profile.HoursPerMonth)
		curves.MarkLabel = tr.T("compare.own.chart.your_hours", "Hours", money.Group(money.String(in.Profile.HoursPerMonth)))
	}
	return svgchart.CostCurves(curves), svgchart.StackedBars(bars)
}
func ReasonTexts(tr *i18n.Translator, rs []compare.Reason) []string {
	var out []string
	for _, r := range rs {
		out = append(out, tr.TMap(r.MessageID, r.Args))
	}
	return out
}

// ItemLabelID is a hidden-cost item's label.
func ItemLabelID(key string) string {
	if it, ok := catalog.LookupItem(catalog.ItemKey(key)); ok {
		return it.LabelID
	}
	return key
}

// ReportTime is a moment as reports show it, in UTC.
func ReportTime(tr *i18n.Translator, at time.Time) string {
	return tr.T("report.time.utc", "Time", at.UTC().Format("2006-01-02 15:04"))
}

// ReportProfile lists the frozen profile's fields that were given, with
// their labels, in the form's order.
func ReportProfile(tr *i18n.Translator, snap report.Snapshot) []ReportFact {
	var out []ReportFact
	for _, sec := range ProfileSections(snap.PageValues(), nil) {
		for _, f := range sec.Fields {
			if f.Value == "" {
				continue
			}
			out = append(out, ReportFact{Label: tr.T(f.LabelID), Value: fieldText(tr, f)})
		}
	}
	return out
}

// fieldText is a profile field's value as a reader reads it: yes or no, a
// choice's label, or the value as typed.
func fieldText(tr *i18n.Translator, f Field) string {
	val := f.Value
	switch f.Kind {
	case "checkbox":
		val = tr.T("report.yes")
		if f.Value != "true" && f.Value != "on" && f.Value != "1" {
			val = tr.T("report.no")
		}
	case "select":
		for _, o := range f.Options {
			if o.Value == f.Value && o.LabelID != "" {
				val = tr.T(o.LabelID)
			}
		}
	}
	return val
}

// ReportSummary formats the snapshot's summary.
func ReportSummary(tr *i18n.Translator, snap report.Snapshot) ReportSummaryView {
	cur := snap.ReportCurrency
	m := func(d decimal.Decimal) string { return FormatMoney(tr.Lang, decimal.NewNullDecimal(d), cur) }
	sum := snap.Summary()
	v := ReportSummaryView{Eligible: sum.Eligible, RuledOut: sum.RuledOut, UnconfirmedLines: sum.UnconfirmedLines}
	if sum.Recommended < 0 {
		return v
	}
	rec := snap.Rows[sum.Recommended]
	v.HasRecommendation = true
	v.Recommended = QuoteName(tr, rec.Quote.AsQuote(rec.GPU))
	v.RecommendedURL = "/quotes/" + strconv.FormatInt(rec.Quote.ID, 10)
	v.ChosenModeID = catalog.Mode(rec.Result.ChosenMode).LabelID()
	v.TCO, v.Pessimistic, v.Range = m(rec.Result.TCO), m(rec.Result.TCOPessimistic), m(sum.Range.Decimal)
	v.HasRange = sum.Range.Valid && sum.Range.Decimal.Sign() > 0
	for _, f := range rec.Result.Flags {
		if catalog.Flag(f) != catalog.FlagUnconfirmedLines || sum.UnconfirmedLines == 0 {
			v.Risks = append(v.Risks, tr.T(catalog.Flag(f).LabelID()))
		}
	}
	if sum.Next >= 0 {
		next := snap.Rows[sum.Next]
		v.HasNext = true
		v.Next = QuoteName(tr, next.Quote.AsQuote(next.GPU))
		v.Savings = m(sum.Savings.Decimal)
		if sum.SavingsPct.Valid {
			v.SavingsPct = percent(tr, sum.SavingsPct)
		}
	}
	return v
}

// NewReportChanges formats what recomputing changed, offer by offer.
func NewReportChanges(tr *i18n.Translator, old, new report.Snapshot) ReportChanges {
	d := report.Compare(old, new)
	out := ReportChanges{OldDate: d.OldDate, NewDate: d.NewDate, RulesChanged: d.RulesChanged, RefsChanged: d.ReferencePricesChanged}
	version := func(r *report.Row) string {
		if r == nil {
			return ""
		}
		return tr.T("quote.version_short", "Version", strconv.Itoa(r.Quote.Version)) + " · " + r.Quote.AsOf
	}
	rate := func(fx report.FXRate, ok bool) string {
		if !ok {
			return tr.T("report.changes.no_rate")
		}
		if fx.Base == fx.Quote {
			return tr.T("report.changes.same_currency")
		}
		date := fx.Date
		if date == "" {
			date = tr.T("compare.fx.undated")
		}
		return tr.T("compare.fx", "From", fx.Base, "To", fx.Quote, "Rate", money.String(fx.Rate), "Date", date)
	}
	money2 := func(r *report.Row, cur string, pick func(*report.Result) decimal.Decimal) string {
		if r == nil || !r.Priced || r.Result == nil {
			return tr.T("report.changes.not_priced")
		}
		return FormatMoney(tr.Lang, decimal.NewNullDecimal(pick(r.Result)), cur)
	}
	delta := func(d decimal.NullDecimal, cur string) string {
		if !d.Valid || d.Decimal.IsZero() {
			return ""
		}
		return signedMoney(tr, d.Decimal, cur)
	}
	for _, ch := range d.Changes {
		row := ReportChangeRow{Added: ch.Old == nil, Removed: ch.New == nil, Changed: ch.Changed(),
			OldVersion: version(ch.Old), NewVersion: version(ch.New), VersionChanged: ch.VersionChanged,
			OldRate: rate(ch.OldRate, ch.OldRateOK), NewRate: rate(ch.NewRate, ch.NewRateOK), RateChanged: ch.RateChanged,
			ModeChanged: ch.ModeChanged}
		named := ch.New
		if named == nil {
			named = ch.Old
			row.NewVersion, row.NewRate = tr.T("report.changes.gone"), ""
		}
		if ch.Old == nil {
			row.OldVersion = tr.T("report.changes.new_offer")
		}
		row.Name = QuoteName(tr, named.Quote.AsQuote(named.GPU))
		if ch.Old != nil && ch.Old.Priced && ch.Old.Result != nil {
			row.OldModeID = catalog.Mode(ch.Old.Result.ChosenMode).LabelID()
		}
		if ch.New != nil && ch.New.Priced && ch.New.Result != nil {
			row.NewModeID = catalog.Mode(ch.New.Result.ChosenMode).LabelID()
		}
		tcoOf := func(r *report.Result) decimal.Decimal { return r.TCO }
		pessOf := func(r *report.Result) decimal.Decimal { return r.TCOPessimistic }
		row.OldTCO, row.NewTCO = money2(ch.Old, old.ReportCurrency, tcoOf), money2(ch.New, new.ReportCurrency, tcoOf)
		row.OldPess, row.NewPess = money2(ch.Old, old.ReportCurrency, pessOf), money2(ch.New, new.ReportCurrency, pessOf)
		row.TCODelta, row.PessDelta = delta(ch.TCODelta, new.ReportCurrency), delta(ch.PessimDelta, new.ReportCurrency)
		out.Rows = append(out.Rows, row)
	}
	out.Own = ownChangeRows(tr, d, old, new)
	return out
}

// QuestionsURL links to the questions one quote raises for the profile in
// values (the team's volumes make them exact).
func QuestionsURL(values url.Values, quoteID int64) string {
	q := url.Values{}
	for k, vs := range values {
		if strings.HasPrefix(k, "profile.") && len(vs) > 0 && vs[0] != "" {
			q[k] = vs
		}
	}
	q.Set("quote", strconv.FormatInt(quoteID, 10))
	return "/compare/questions?" + q.Encode()
}

// FrozenReportParts are the parts of a report's page drawn from its
// snapshot alone: the full table and charts (the comparison's own
// formatting), the summary, the availability and facts as frozen, the
// inputs and the vendor questions.
func FrozenReportParts(tr *i18n.Translator, snap report.Snapshot) ReportView {
	var f ReportView
	var cv CompareView
	in, rows := compare.Thaw(snap)
	CompareTable(tr, &cv, rows, in, snap.PageValues(), snap.Sort, snap.Descending)
	CompareScenario(tr, &cv.Rows, &cv.ScenarioChanges, compare.ThawScenario(snap, rows), rows, in)
	CompareCharts(tr, &cv, rows, in)
	f.Rows, f.ItemLabelIDs, f.FXNotes, f.CurvesSVG, f.BarsSVG = cv.Rows, cv.ItemLabelIDs, cv.FXNotes, cv.CurvesSVG, cv.BarsSVG
	f.ScenarioChanges = cv.ScenarioChanges
	f.Crossings = cv.Crossings
	f.Summary = ReportSummary(tr, snap)
	f.Profile = ReportProfile(tr, snap)
	f.Availability, f.AvailabilityDay = ReportAvailability(tr, snap)
	f.Facts = ReportFacts(tr, snap)
	if snap.VRAMFloorGB.Valid {
		f.VRAMFloor = money.Fixed(snap.VRAMFloorGB.Decimal, 2)
	}
	for _, rp := range snap.ReferencePrices {
		date := rp.Date
		if date == "" {
			date = tr.T("compare.fx.undated")
		}
		text := tr.T("report.inputs.reference", "Item", tr.T(ItemLabelID(rp.Item)),
			"Price", money.FormatPlaces(rp.UnitPrice, rp.Currency, string(tr.Lang), max(2, int32(money.Places(rp.UnitPrice)))),
			"Unit", tr.T(refItem(rp.Item).UnitLabelID(catalog.Unit(rp.Unit))), "Date", date)
		if rp.Source == string(tco.SourceMarket) {
			text += " · " + report.ReferenceSourceText(tr.TMap, rp.Source, rp.QuoteID)
		}
		f.ReferencePrices = append(f.ReferencePrices, text)
	}
	for _, row := range snap.Rows {
		sq := row.Quote.AsQuote(row.GPU)
		name := QuoteName(tr, sq)
		title := name + " · " + tr.T("quote.version_short", "Version", strconv.Itoa(sq.Version)) + " · " + row.Quote.AsOf
		f.Questions = append(f.Questions, ReportQuestions{ID: row.Quote.ID, Name: name,
			Text: vendorq.PlainText(title, vendorq.Frozen(row), tr.TMap)})
	}
	return f
}

// refItem is the catalog item of a reference price (the zero item, with
// generic unit labels, for a key no longer in the catalog).
func refItem(key string) catalog.Item {
	it, _ := catalog.LookupItem(catalog.ItemKey(key))
	return it
}

// breakEvenNote is what the break-even column says beside (or instead of)
// the hours: that the offer has only an hourly or only a monthly price, or
// that its monthly price binds for a commitment of more than a month, so
// the hours hold only for a rental at least that long (docs/RULES.md §4.6).
func breakEvenNote(tr *i18n.Translator, hourly, monthly, has bool, commitment int) string {
	switch {
	case !has && hourly && !monthly:
		return tr.T("compare.break_even.hourly_only")
	case !has && monthly && !hourly:
		return tr.T("compare.break_even.monthly_only")
	case has && commitment > 1:
		return tr.T("compare.break_even.commitment", "Months", commitment)
	}
	return ""
}
