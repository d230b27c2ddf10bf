package compare

import (
	"net/url"
	"slices"
	"strings"

	"gpuquote/internal/money"
	"gpuquote/internal/quote"
)

// Preset is one of the guides' three paths as a starting profile.
type Preset struct {
	Key, LabelID, HintID string
	// Values are the profile's form fields.
	Values map[string]string
}

// Presets are the guides' three paths: trying out cheaply, steady
// long-term use, and large-model training.
var Presets = []Preset{
	{"try", "compare.preset.try", "compare.preset.try.hint", map[string]string{
		"profile.hours_per_month": "50", "profile.months": "1", "profile.instances": "1",
		"profile.starts_per_month": "10", "profile.between_runs": "release"}},
	{"steady", "compare.preset.steady", "compare.preset.steady.hint", map[string]string{
		"profile.hours_per_month": "600", "profile.months": "12", "profile.instances": "1",
		"profile.starts_per_month": "1", "profile.between_runs": "keep_stopped"}},
	{"training", "compare.preset.training", "compare.preset.training.hint", map[string]string{
		"profile.hours_per_month": "730", "profile.months": "3", "profile.instances": "2",
		"profile.starts_per_month": "1", "profile.between_runs": "release", "profile.resumable": "true",
		"profile.task": "full_training", "profile.params_billions": "7", "profile.precision": "bf16"}},
}

// Defaults is the profile of a first visit.
var Defaults = map[string]string{"profile.hours_per_month": "200", "profile.months": "1", "profile.instances": "1"}

// IsProfileField reports whether a page-state key belongs to the usage
// profile (its fields and the report currency).
func IsProfileField(k string) bool { return strings.HasPrefix(k, "profile.") || k == "report_currency" }

// PageState is the compare page's state from its query: a preset
// ("preset") or a saved profile (saved: the params of the one "profile_id"
// names) fills the profile; otherwise the profile fields given are used,
// or Defaults when there are none. It returns the state without "preset"
// and "profile_id", and the preset asked for.
func PageState(query url.Values, saved map[string]string) (values url.Values, preset string) {
	values = url.Values{}
	hasProfile := false
	for k, vs := range query {
		values[k] = append([]string(nil), vs...)
		if strings.HasPrefix(k, "profile.") {
			hasProfile = true
		}
	}
	fill := func(m map[string]string) {
		for k := range values {
			if IsProfileField(k) && k != "report_currency" {
				delete(values, k)
			}
		}
		for k, v := range m {
			values.Set(k, v)
		}
	}
	preset = query.Get("preset")
	switch {
	case preset != "":
		for _, p := range Presets {
			if p.Key == preset {
				fill(p.Values)
			}
		}
	case query.Get("profile_id") != "":
		fill(saved)
	case !hasProfile:
		fill(Defaults)
	}
	values.Del("preset")
	values.Del("profile_id")
	return values, preset
}

// filterFields are the candidate list's filters in a page state.
var filterFields = []string{"gpu", "currency", "sharing", "fresh", "qual", "fit", "env", AvailParam}

// IsFilterField reports whether a query key is one of the candidate
// list's filters: they narrow the list to tick from, never what is
// compared, so a report does not keep them.
func IsFilterField(k string) bool { return slices.Contains(filterFields, k) }

// IsStateField reports whether a query key belongs to the compare page's
// state: the usage profile (and profile B's changes), the report currency,
// the selected quotes ("q") and own-hardware options (OwnParam), the order
// ("sort", "dir") and the candidate filters.
func IsStateField(k string) bool {
	return IsProfileField(k) || strings.HasPrefix(k, ScenarioPrefix+"profile.") ||
		k == "q" || k == OwnParam || k == "sort" || k == "dir" || slices.Contains(filterFields, k)
}

// State is the page state of values worth carrying through another form
// (saving or deleting a usage profile) and back to the page, or into a
// shared link: its state fields, trimmed, without empty values.
func State(values url.Values) url.Values {
	out := url.Values{}
	for k, vs := range values {
		if !IsStateField(k) {
			continue
		}
		for _, v := range vs {
			if v = strings.TrimSpace(v); v != "" {
				out.Add(k, v)
			}
		}
	}
	return out
}

// DefaultReportCurrency is the report currency of a comparison that asks
// for none (docs/RULES.md §8.2): the selected quotes' own currency when
// they all share one (drafts, never compared, do not count; a proposal its
// reader may compare does); else
// remembered (the reader's last explicit choice) when it is a currency;
// else DefaultCurrency.
func DefaultReportCurrency(selected []quote.Quote, remembered string) string {
	common, n := "", 0
	for _, q := range selected {
		if !quote.InMarket(q.State) && !quote.IsProposal(q.State) {
			continue
		}
		if n > 0 && q.Currency != common {
			common = ""
			break
		}
		common, n = q.Currency, n+1
	}
	if common != "" {
		return common
	}
	if r := strings.ToUpper(strings.TrimSpace(remembered)); money.IsCurrency(r) {
		return r
	}
	return DefaultCurrency
}
