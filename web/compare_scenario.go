package web

import (
	"net/url"

	"github.com/shopspring/decimal"

	"gpuquote/internal/compare"
	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
)

// CompareRowB is one quote's figures under usage profile B, and B − A.
type CompareRowB struct {
	Priced                           bool
	Reasons                          []string
	ChosenModeID                     string
	TCO, TCOPessimistic, HiddenShare string
	Effective, BreakEven, Unpriced   string
	DiffTCO, DiffPessimistic         string
	DiffTCOSign, DiffPessimisticSign int
}

// CompareScenario adds profile B to a formatted comparison: each row's B
// figures and their difference from A, and what B changes (labelled as
// the form labels them, in the form's order). rows are the comparison's,
// in v.Rows' order.
func CompareScenario(tr *i18n.Translator, v *[]CompareRow, changes *[]ReportFact, b *compare.Scenario, rows []compare.Row, in compare.Input) {
	if b == nil || len(b.ProfileErrors) > 0 {
		return
	}
	*changes = ScenarioChanges(tr, b.Changes)
	cur := in.ReportCurrency
	m := func(d decimal.Decimal) string { return FormatMoney(tr.Lang, decimal.NewNullDecimal(d), cur) }
	diff := func(d decimal.NullDecimal) (string, int) {
		if !d.Valid {
			return "", 0
		}
		return signedMoney(tr, d.Decimal, cur), d.Decimal.Sign()
	}
	for i, r := range rows {
		if i >= len(*v) {
			break
		}
		br, ok := b.Rows[r.Quote.ID]
		if !ok {
			continue
		}
		out := &CompareRowB{Priced: br.Priced, Reasons: ReasonTexts(tr, br.Reasons)}
		if br.Priced {
			res := br.Result
			out.ChosenModeID = res.ChosenMode.LabelID()
			out.TCO, out.TCOPessimistic = m(res.TCO), m(res.TCOPessimistic)
			out.HiddenShare = percent(tr, res.HiddenShare)
			out.Effective = hourRate(tr, decimal.NewNullDecimal(res.EffectivePerGPUHour), cur)
			if res.BreakEvenHours.Valid {
				out.BreakEven = tr.T("compare.hours", "Hours", money.Fixed(res.BreakEvenHours.Decimal, 2))
			}
			out.Unpriced = unpricedText(tr, res.PessimisticUnpriced)
			d := compare.DifferenceOf(r, br, ok)
			out.DiffTCO, out.DiffTCOSign = diff(d.TCO)
			out.DiffPessimistic, out.DiffPessimisticSign = diff(d.TCOPessimistic)
		}
		(*v)[i].B = out
	}
}

// ScenarioChanges names what profile B changes, as "label: value" facts
// in the form's order.
func ScenarioChanges(tr *i18n.Translator, changes url.Values) []ReportFact {
	var out []ReportFact
	for _, sec := range ProfileSections(changes, nil) {
		for _, f := range sec.Fields {
			if f.Value == "" {
				continue
			}
			out = append(out, ReportFact{Label: tr.T(f.LabelID), Value: fieldText(tr, f)})
		}
	}
	return out
}

// scenarioFieldID starts the element id of every field of profile B.
var scenarioFieldID = Field{Name: compare.ScenarioPrefix + "profile."}.ID()

// ScenarioSections are profile B's form fields: every profile field named
// "b.profile.…", empty meaning "as in A" (a yes/no field becomes a choice
// of as-in-A, yes and no), so a link carries only what B changes. errs are
// the problems by B field name.
func ScenarioSections(values url.Values, errs map[string]string) []Section {
	a := ProfileSections(url.Values{}, nil)
	out := make([]Section, 0, len(a))
	for _, sec := range a {
		s := Section{TitleID: sec.TitleID}
		for _, f := range sec.Fields {
			f.Name = compare.ScenarioPrefix + f.Name
			f.Value, f.Error = values.Get(f.Name), errs[f.Name]
			f.HintID = ""
			switch f.Kind {
			case "checkbox":
				f.Kind = "select"
				f.Options = []Option{{Value: "", LabelID: "compare.scenario.same"}, {Value: "true", LabelID: "report.yes"},
					{Value: "false", LabelID: "report.no"}}
			case "select":
				opts := []Option{{Value: "", LabelID: "compare.scenario.same"}}
				for _, o := range f.Options {
					if o.Value != "" {
						opts = append(opts, o)
					}
				}
				f.Options = opts
			}
			if f.Value != "" || f.Error != "" {
				s.Open = true
			}
			s.Fields = append(s.Fields, f)
		}
		out = append(out, s)
	}
	return out
}
