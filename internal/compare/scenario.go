package compare

import (
	"net/url"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
)

// ScenarioPrefix names the fields of the second usage profile (B) in a page
// state: "b.profile.hours_per_month" is B's hours per month. B is the first
// profile (A) with the fields B gives changed, so a link carries only what
// differs — keep stopped vs release, 100 h vs 300 h, one instance vs four
// (docs/RULES.md §8.5).
const ScenarioPrefix = "b."

// Scenario is profile B of a comparison: the same quotes, rates and
// references priced for a second usage profile.
type Scenario struct {
	// Changes are B's fields that differ from A's, by profile field name
	// ("profile.hours_per_month"), as given.
	Changes url.Values
	// Profile is B's usage profile; ProfileErrors its problems, each named
	// by its B field ("b.profile.months"). No row is priced while there
	// are any.
	Profile       tco.Profile
	ProfileErrors []tcoapi.FieldError
	// Rows are B's rows by quote id (every row of A that could be run).
	Rows map[int64]Row
}

// ScenarioChanges reads B's fields from a page state: every non-empty
// "b.profile.*" value by its profile field name. ok is false when B gives
// none (there is no scenario B).
func ScenarioChanges(values url.Values) (changes url.Values, ok bool) {
	changes = url.Values{}
	for k, vs := range values {
		name, isB := strings.CutPrefix(k, ScenarioPrefix)
		if !isB || !strings.HasPrefix(name, "profile.") || len(vs) == 0 || strings.TrimSpace(vs[0]) == "" {
			continue
		}
		changes.Set(name, vs[0])
	}
	return changes, len(changes) > 0
}

// ScenarioValues is B's profile as a page state: A's profile fields with
// B's changes over them.
func ScenarioValues(values url.Values, changes url.Values) url.Values {
	out := url.Values{}
	for k, vs := range values {
		if strings.HasPrefix(k, "profile.") {
			out[k] = append([]string(nil), vs...)
		}
	}
	for k, vs := range changes {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// runScenario prices the candidates for B, when the page state has one.
func runScenario(values url.Values, cs []Candidate, in Input) *Scenario {
	changes, ok := ScenarioChanges(values)
	if !ok {
		return nil
	}
	s := &Scenario{Changes: changes, Rows: map[int64]Row{}}
	s.Profile, s.ProfileErrors = tcoapi.ProfileFromForm(ScenarioValues(values, changes))
	for i := range s.ProfileErrors {
		s.ProfileErrors[i].Field = ScenarioPrefix + s.ProfileErrors[i].Field
	}
	if len(s.ProfileErrors) > 0 || len(cs) == 0 {
		return s
	}
	in.Profile = s.Profile
	for _, r := range Run(cs, in) {
		s.Rows[r.Quote.ID] = r
	}
	return s
}

// Difference is B's figure minus A's, for the rows priced in both.
type Difference struct {
	TCO, TCOPessimistic decimal.NullDecimal
}

// DifferenceOf is B − A for one quote (none when either is not priced).
func DifferenceOf(a Row, b Row, bok bool) Difference {
	if !bok || !a.Priced || !b.Priced {
		return Difference{}
	}
	return Difference{TCO: decimal.NewNullDecimal(b.Result.TCO.Sub(a.Result.TCO)),
		TCOPessimistic: decimal.NewNullDecimal(b.Result.TCOPessimistic.Sub(a.Result.TCOPessimistic))}
}
