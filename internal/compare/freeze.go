package compare

import (
	"context"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"gpuquote/internal/catalog"
	"gpuquote/internal/facts"
	"gpuquote/internal/market"
	"gpuquote/internal/report"
	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
	"gpuquote/internal/vendorq"
)

// ReportReader is what freezing a comparison for a saved report reads
// besides the comparison itself: the platforms' answers to the SLA clauses
// and written confirmations (they decide the frozen vendor questions), and
// the current version of each quote series (for recomputing).
type ReportReader interface {
	Reader
	PlatformTermsByPlatform(ctx context.Context, platformIDs []int64) (map[int64][]market.PlatformTerm, error)
	CurrentQuoteVersions(ctx context.Context, seriesIDs []int64) (map[int64]int64, error)
}

// Frozen is a comparison computed now and frozen for a report, with what
// keeps it from being saved.
type Frozen struct {
	Snapshot report.Snapshot
	// ProfileErrors are the usage profile's problems; TooMany says more
	// than MaxSelected quotes were asked for; Empty says no quote could be
	// compared. Any of them keeps the snapshot from being saved.
	ProfileErrors []tcoapi.FieldError
	TooMany       bool
	Empty         bool
	// OwnTooMany says more than MaxOwnSelected own-hardware options were
	// asked for; it too keeps the snapshot from being saved.
	OwnTooMany bool
}

// Savable reports whether the frozen comparison may be saved as a report.
func (f Frozen) Savable() bool {
	return len(f.ProfileErrors) == 0 && !f.TooMany && !f.OwnTooMany && !f.Empty
}

// FreezeValues computes the comparison of a page state for today, as the
// compare page does, and freezes it; own-hardware options only when shared
// (FreezeValuesFor names the reader).
func FreezeValues(ctx context.Context, r ReportReader, values url.Values, today time.Time) (Frozen, error) {
	return FreezeValuesFor(ctx, r, values, today, Viewer{})
}

// FreezeValuesFor is FreezeValues for viewer: the own-hardware options
// asked for that viewer may read are priced and frozen with the quotes
// (docs/RULES.md §11.7).
func FreezeValuesFor(ctx context.Context, r ReportReader, values url.Values, today time.Time, viewer Viewer) (Frozen, error) {
	return (*Cache)(nil).FreezeValuesFor(ctx, r, values, today, viewer)
}

// FreezeValuesFor is compare.FreezeValuesFor priced through the kept
// comparisons (docs/RULES.md §20.1), as the compare page is: a report saved
// or a comparison asked for through the API right after the page showed
// it is not priced again. A nil cache prices on the spot.
func (c *Cache) FreezeValuesFor(ctx context.Context, r ReportReader, values url.Values, today time.Time, viewer Viewer) (Frozen, error) {
	cmp, err := loadFor(ctx, r, c, values, today, viewer, "")
	if err != nil {
		return Frozen{}, err
	}
	var platformIDs []int64
	for _, q := range cmp.Selected {
		platformIDs = append(platformIDs, q.PlatformID)
	}
	terms, err := r.PlatformTermsByPlatform(ctx, platformIDs)
	if err != nil {
		return Frozen{}, err
	}
	vterms := map[int64][]vendorq.Term{}
	for _, id := range platformIDs {
		vterms[id] = vendorq.TermsOf(terms[id])
	}
	errs := cmp.ProfileErrors
	if cmp.B != nil {
		errs = append(slices.Clip(errs), cmp.B.ProfileErrors...)
	}
	return Frozen{Snapshot: Freeze(cmp, vterms), ProfileErrors: errs, TooMany: cmp.TooMany, OwnTooMany: cmp.OwnTooMany,
		Empty: len(cmp.ProfileErrors) == 0 && len(cmp.Rows) == 0}, nil
}

// Recompute freezes a report's comparison again with today's data: the
// same profile and offers, each at its version published today (a
// withdrawn offer keeps its old version), today's rates and reference
// prices (docs/RULES.md §11.5); own-hardware options only when shared
// (RecomputeFor names the reader).
func Recompute(ctx context.Context, r ReportReader, snap report.Snapshot, today time.Time) (Frozen, error) {
	return RecomputeFor(ctx, r, snap, today, Viewer{})
}

// RecomputeFor is Recompute for viewer: each own-hardware option the
// report froze is priced again at its newest version with today's
// electricity, when viewer may read it (docs/RULES.md §11.7).
func RecomputeFor(ctx context.Context, r ReportReader, snap report.Snapshot, today time.Time, viewer Viewer) (Frozen, error) {
	values := snap.PageValues()
	var series []int64
	bySeries := map[string]int64{}
	for _, row := range snap.Rows {
		series = append(series, row.Quote.SeriesID)
		bySeries[strconv.FormatInt(row.Quote.ID, 10)] = row.Quote.SeriesID
	}
	current, err := r.CurrentQuoteVersions(ctx, series)
	if err != nil {
		return Frozen{}, err
	}
	var ids []string
	for _, q := range values["q"] {
		if id, ok := current[bySeries[q]]; ok {
			q = strconv.FormatInt(id, 10)
		}
		ids = append(ids, q)
	}
	values["q"] = ids
	if err := currentOwnValues(ctx, r, snap, values); err != nil {
		return Frozen{}, err
	}
	return FreezeValuesFor(ctx, r, values, today, viewer)
}

// currentOwnValues names, in the page state, each own-hardware option the
// snapshot froze at its newest version (docs/RULES.md §11.7): an archived
// option at its last one, which is its newest. Whether the recomputing
// reader may see it is the comparison's to decide, as on the compare page.
func currentOwnValues(ctx context.Context, r ReportReader, snap report.Snapshot, values url.Values) error {
	if len(values[OwnParam]) == 0 || len(snap.Own) == 0 {
		return nil
	}
	optionOf := map[string]int64{}
	for _, o := range snap.Own {
		optionOf[strconv.FormatInt(o.Option.ID, 10)] = o.Option.OptionID
	}
	var ids []string
	for _, v := range values[OwnParam] {
		if optionID, ok := optionOf[v]; ok {
			// Options are never deleted (docs/RULES.md §17.4).
			o, err := r.OwnOptionByID(ctx, optionID)
			if err != nil {
				return err
			}
			if o.Current.ID != 0 {
				v = strconv.FormatInt(o.Current.ID, 10)
			}
		}
		ids = append(ids, v)
	}
	values[OwnParam] = ids
	return nil
}

// keepValue reports whether a page-state key belongs in a report.
func keepValue(k string) bool {
	return strings.HasPrefix(k, "profile.") || strings.HasPrefix(k, ScenarioPrefix+"profile.") || k == "report_currency" ||
		k == "q" || k == "sort" || k == "dir" || k == OwnParam
}

// Freeze turns a comparison into a report's snapshot. The rows' vendor
// questions are computed now, with the profile's volumes, as the questions
// page does (terms are each platform's answers, by platform id), so the
// report keeps the questions as they were.
func Freeze(cmp *Comparison, terms map[int64][]vendorq.Term) report.Snapshot {
	in := cmp.In
	s := report.Snapshot{Version: report.SnapshotVersion, RulesVersion: tco.RulesVersion, FiguresDate: report.DateText(in.Today),
		Values: map[string][]string{}, ReportCurrency: in.ReportCurrency, Profile: report.ProfileOf(in.Profile),
		VRAMFloorGB: cmp.Floor, Sort: cmp.SortKey, Descending: cmp.Desc}
	compared := map[string]bool{}
	for _, r := range cmp.Rows {
		compared[strconv.FormatInt(r.Quote.ID, 10)] = true
	}
	ownCompared := map[string]bool{}
	for _, o := range cmp.Own {
		ownCompared[strconv.FormatInt(o.Version.ID, 10)] = true
	}
	for k, vs := range cmp.Values {
		if !keepValue(k) {
			continue
		}
		var kept []string
		for _, v := range vs {
			v = strings.TrimSpace(v)
			if v == "" || (k == "q" && !compared[v]) || (k == OwnParam && !ownCompared[v]) {
				continue
			}
			if (k == "q" || k == OwnParam) && slices.Contains(kept, v) {
				continue
			}
			kept = append(kept, v)
		}
		if len(kept) > 0 {
			s.Values[k] = kept
		}
	}
	if _, ok := s.Values["report_currency"]; !ok {
		s.Values["report_currency"] = []string{in.ReportCurrency}
	}
	currencies := map[string]bool{}
	for _, r := range cmp.Rows {
		currencies[r.Quote.Currency] = true
	}
	for _, cur := range slices.Sorted(maps.Keys(currencies)) {
		if fx, ok := in.Rates[cur]; ok && cur != in.ReportCurrency {
			s.FXRates = append(s.FXRates, report.FXRate{Base: cur, Quote: in.ReportCurrency, Rate: fx.Rate, Date: report.DateText(fx.Date)})
		}
	}
	s.ReferencePrices, s.ReferenceRates = frozenReferences(cmp, currencies)
	for _, r := range cmp.Rows {
		row := report.Row{Quote: report.QuoteOf(r.Quote), GPU: report.GPU{ID: r.GPU.ID, Vendor: r.GPU.Vendor, Name: r.GPU.Name,
			VRAMGB: r.GPU.VRAMGB, Interconnect: r.GPU.Interconnect}, Priced: r.Priced, CheapestConfirmed: r.CheapestConfirmed,
			CheapestPessimistic: r.CheapestPessimistic, Reasons: []report.Message{}}
		for _, rs := range r.Reasons {
			row.Reasons = append(row.Reasons, report.MessageOf(rs.MessageID, rs.Args))
		}
		if r.Priced {
			res := report.ResultOf(r.Result)
			row.Result = &res
		}
		row.Questions = []report.QuestionGroup{}
		qc := vendorq.ContextFor(r.Quote, in.Profile, in.Today)
		qc.Terms = terms[r.Quote.PlatformID]
		for _, g := range vendorq.For(r.Quote, qc) {
			qg := report.QuestionGroup{Kind: string(g.Kind), LabelID: g.LabelID, Number: g.Number}
			for _, q := range g.Questions {
				qg.Questions = append(qg.Questions, report.MessageOf(q.MessageID, q.Args))
			}
			row.Questions = append(row.Questions, qg)
		}
		s.Rows = append(s.Rows, row)
	}
	if s.Rows == nil {
		s.Rows = []report.Row{}
	}
	if b := cmp.B; b != nil && len(b.ProfileErrors) == 0 {
		sc := &report.Scenario{Changes: map[string]string{}, Profile: report.ProfileOf(b.Profile), Rows: []report.ScenarioRow{}}
		for k := range b.Changes {
			sc.Changes[k] = b.Changes.Get(k)
		}
		for _, r := range cmp.Rows {
			br, ok := b.Rows[r.Quote.ID]
			if !ok {
				continue
			}
			row := report.ScenarioRow{QuoteID: r.Quote.ID, Priced: br.Priced, Reasons: []report.Message{}}
			for _, rs := range br.Reasons {
				row.Reasons = append(row.Reasons, report.MessageOf(rs.MessageID, rs.Args))
			}
			if br.Priced {
				res := report.ResultOf(br.Result)
				row.Result = &res
			}
			sc.Rows = append(sc.Rows, row)
		}
		s.ScenarioB = sc
	}
	s.Own = frozenOwn(cmp.Own)
	s.Availability = frozenAvailability(cmp)
	s.Facts = frozenFacts(cmp)
	return s
}

// frozenFacts freezes the facts in force of the compared rows' platforms,
// as the comparison's facts section shows them (docs/RULES.md §18.3); nil
// when the comparison read none, so the snapshot has no "facts".
func frozenFacts(cmp *Comparison) []report.PlatformFacts {
	if cmp.Facts == nil || len(cmp.Rows) == 0 {
		return nil
	}
	var out []report.PlatformFacts
	for _, pf := range RowFacts(cmp.Rows, cmp.Facts, cmp.In.Today) {
		p := report.PlatformFacts{PlatformID: pf.PlatformID, NameZH: pf.NameZH, NameEN: pf.NameEN, Facts: []report.FactAnswer{}}
		for _, k := range facts.Kinds {
			f := pf.InForce[k]
			a := report.FactAnswer{Kind: string(k), Value: string(f.Value), Minutes: f.Minutes, FactID: f.ID}
			if f.ID != 0 {
				a.AsOf, a.Source = f.AsOf.Format(time.DateOnly), f.Source
			}
			if a.Value == "" {
				a.Value = string(facts.Unknown)
			}
			p.Facts = append(p.Facts, a)
		}
		out = append(out, p)
	}
	return out
}

// frozenOwn freezes the comparison's own-hardware options like its quotes
// (docs/RULES.md §11.7): each option version with every input, the
// electricity price it was priced with (named by sample id), and its
// figures; nil when there are none, so the snapshot has no "own" at all.
func frozenOwn(rows []OwnRow) []report.OwnRow {
	var out []report.OwnRow
	for _, o := range rows {
		fr := report.OwnRow{Option: report.OwnOptionOf(o.Version), Electricity: report.OwnElectricityOf(o.Electricity),
			Priced: o.Priced, Errors: []report.OwnFieldError{}, Crossings: []report.OwnCrossing{}, Sensitivity: []report.OwnVariant{}}
		for _, e := range o.Errors {
			fr.Errors = append(fr.Errors, report.OwnFieldError{Field: e.Field, Code: e.Code, Message: report.MessageOf(e.MessageID, e.Args)})
		}
		if o.Priced {
			res := report.OwnResultOf(o.Result)
			fr.Result = &res
		}
		for _, c := range o.Crossings {
			fr.Crossings = append(fr.Crossings, report.OwnCrossing{QuoteID: c.QuoteID, FromMonth: c.FromMonth, FromHours: c.FromHours})
		}
		for _, v := range o.Sensitivity {
			fr.Sensitivity = append(fr.Sensitivity, report.OwnVariant{Key: v.Key, TCO: v.TCO})
		}
		out = append(out, fr)
	}
	return out
}

// ThawOwn reads a snapshot's own-hardware options back as the comparison's
// rows, from the frozen figures alone (none for a snapshot without any).
func ThawOwn(s report.Snapshot) []OwnRow {
	var out []OwnRow
	for _, o := range s.Own {
		row := OwnRow{OwnCandidate: OwnCandidate{Version: o.Option.AsVersion(), Electricity: o.Electricity.AsElectricity()},
			Priced: o.Priced && o.Result != nil}
		for _, e := range o.Errors {
			row.Errors = append(row.Errors, tco.FieldError{Field: e.Field, Code: e.Code, MessageID: e.Message.ID, Args: e.Message.ArgsMap()})
		}
		if row.Priced {
			row.Result = o.Result.TCOResult()
		}
		for _, c := range o.Crossings {
			row.Crossings = append(row.Crossings, OwnCrossing{QuoteID: c.QuoteID, Crossings: tco.Crossings{FromMonth: c.FromMonth, FromHours: c.FromHours}})
		}
		for _, v := range o.Sensitivity {
			row.Sensitivity = append(row.Sensitivity, OwnVariant{Key: v.Key, TCO: v.TCO})
		}
		out = append(out, row)
	}
	return out
}

// frozenReferences are the reference prices that could price a compared
// quote's unconfirmed lines, in the input's order (the editors', then the
// market's), each with its date — a market reference with its quote's —
// and the dated rates that convert them into the quotes' currencies
// (docs/RULES.md §3.6, §11.1). A reference in a currency with no rate into
// any compared quote's could price nothing and is left out.
func frozenReferences(cmp *Comparison, quoteCurrencies map[string]bool) ([]report.ReferencePrice, []report.FXRate) {
	in := cmp.In
	var refs []report.ReferencePrice
	used := map[CurrencyPair]bool{}
	for i, rp := range in.ReferencePrices {
		usable := rp.Currency == "" || quoteCurrencies[rp.Currency]
		for cur := range quoteCurrencies {
			if _, ok := in.AllRates[CurrencyPair{From: rp.Currency, To: cur}]; ok && rp.Currency != cur {
				used[CurrencyPair{From: rp.Currency, To: cur}], usable = true, true
			}
		}
		if !usable {
			continue
		}
		ref := report.ReferencePrice{Item: string(rp.Item), Currency: rp.Currency, Unit: string(rp.Unit), UnitPrice: rp.UnitPrice,
			Source: string(rp.Source), QuoteID: rp.QuoteID}
		// The engine input carries no dates; the comparison's lists do, in
		// the same order.
		switch editors := len(cmp.ReferencePrices); {
		case rp.Source == tco.SourceMarket && i-editors >= 0 && i-editors < len(cmp.MarketPrices):
			ref.Date = report.DateText(cmp.MarketPrices[i-editors].AsOf)
		case rp.Source != tco.SourceMarket && i < editors:
			ref.Date = report.DateText(cmp.ReferencePrices[i].AsOf)
		}
		refs = append(refs, ref)
	}
	var rates []report.FXRate
	for _, p := range slices.SortedFunc(maps.Keys(used), func(a, b CurrencyPair) int {
		return strings.Compare(a.From+a.To, b.From+b.To)
	}) {
		fx := in.AllRates[p]
		rates = append(rates, report.FXRate{Base: p.From, Quote: p.To, Rate: fx.Rate, Date: report.DateText(fx.Date)})
	}
	return refs, rates
}

// Thaw reads a snapshot back as the comparison's engine input and rows, in
// table order, for the comparison's formatting code: a saved report shows
// its table as the compare page did, from the frozen figures alone.
func Thaw(s report.Snapshot) (Input, []Row) {
	in := Input{Profile: s.Profile.TCOProfile(), ReportCurrency: s.ReportCurrency, Today: report.ParseDate(s.FiguresDate),
		Rates: map[string]tco.FX{}}
	for _, r := range s.FXRates {
		in.Rates[r.Base] = tco.FX{Rate: r.Rate, Date: report.ParseDate(r.Date)}
	}
	for _, rp := range s.ReferencePrices {
		in.ReferencePrices = append(in.ReferencePrices, tco.ReferencePrice{Item: catalog.ItemKey(rp.Item), Unit: catalog.Unit(rp.Unit),
			UnitPrice: rp.UnitPrice, Currency: rp.Currency, Source: tco.ReferenceSource(rp.Source), QuoteID: rp.QuoteID})
	}
	in.AllRates = map[CurrencyPair]tco.FX{}
	for _, r := range s.ReferenceRates {
		in.AllRates[CurrencyPair{From: r.Base, To: r.Quote}] = tco.FX{Rate: r.Rate, Date: report.ParseDate(r.Date)}
	}
	rows := make([]Row, 0, len(s.Rows))
	for _, r := range s.Rows {
		gpu := market.GPUModel{ID: r.GPU.ID, Vendor: r.GPU.Vendor, Name: r.GPU.Name, VRAMGB: r.GPU.VRAMGB, Interconnect: r.GPU.Interconnect}
		row := Row{Candidate: Candidate{Quote: r.Quote.AsQuote(r.GPU), GPU: gpu}, Priced: r.Priced && r.Result != nil,
			CheapestConfirmed: r.CheapestConfirmed, CheapestPessimistic: r.CheapestPessimistic}
		for _, m := range r.Reasons {
			row.Reasons = append(row.Reasons, Reason{MessageID: m.ID, Args: m.ArgsMap()})
		}
		if row.Priced {
			row.Result = r.Result.TCOResult()
		}
		rows = append(rows, row)
	}
	return in, rows
}

// ThawScenario reads a snapshot's profile B back as the comparison's, for
// the same formatting code as the compare page (nil when it has none).
func ThawScenario(s report.Snapshot, rows []Row) *Scenario {
	if s.ScenarioB == nil {
		return nil
	}
	b := &Scenario{Changes: url.Values{}, Profile: s.ScenarioB.Profile.TCOProfile(), Rows: map[int64]Row{}}
	for k, v := range s.ScenarioB.Changes {
		b.Changes.Set(k, v)
	}
	for _, r := range rows {
		sr, ok := s.ScenarioRowOf(r.Quote.ID)
		if !ok {
			continue
		}
		row := Row{Candidate: r.Candidate, Priced: sr.Priced && sr.Result != nil}
		for _, m := range sr.Reasons {
			row.Reasons = append(row.Reasons, Reason{MessageID: m.ID, Args: m.ArgsMap()})
		}
		if row.Priced {
			row.Result = sr.Result.TCOResult()
		}
		b.Rows[r.Quote.ID] = row
	}
	return b
}
