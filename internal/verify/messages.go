package verify

import "sort"

// messageArgs lists every catalog message this package refers to, with
// the placeholder values its code supplies (the catalogs may use any of
// them; a test holds the two together).
var messageArgs = map[string][]string{
	"verify.parse.too_large":          {"MaxKiB"},
	"verify.parse.empty":              nil,
	"verify.parse.not_text":           {"Line"},
	"verify.parse.summary_table":      nil,
	"verify.parse.unknown_format":     {"Line"},
	"verify.parse.too_many_samples":   {"Line", "Max"},
	"verify.parse.columns":            {"Line", "Got", "Want", "Columns"},
	"verify.parse.columns_noheader":   {"Line", "Got", "Orders"},
	"verify.parse.bad_value":          {"Line", "Field", "Value"},
	"verify.parse.bad_value_noheader": {"Line", "Field", "Value", "Orders"},
	"verify.parse.no_gpu":             nil,

	"verify.model.no_spec": nil,
	"verify.model.no_data": nil,
	"verify.model.fail":    {"GPU", "Reported", "Ordered"},
	"verify.model.pass":    {"Reported", "Ordered"},

	"verify.vram_total.no_spec":  nil,
	"verify.vram_total.no_data":  nil,
	"verify.vram_total.short":    {"GPU", "TotalMiB", "Percent", "NominalGB", "NominalMiB", "MinPercent"},
	"verify.vram_total.inflated": {"GPU", "TotalMiB", "Percent", "NominalGB", "NominalMiB"},
	"verify.vram_total.pass":     {"GPU", "TotalMiB", "Percent", "NominalGB", "NominalMiB", "MinPercent"},

	"verify.vram_free.no_spec":      nil,
	"verify.vram_free.no_data":      nil,
	"verify.vram_free.pass":         {"GPU", "FreeMiB", "TotalMiB", "UsedMiB", "Percent", "NominalMiB", "NominalGB"},
	"verify.vram_free.pass_no_used": {"GPU", "FreeMiB", "TotalMiB", "Percent", "NominalMiB", "NominalGB"},
	"verify.vram_free.busy":         {"GPU", "FreeMiB", "TotalMiB", "UsedMiB", "Percent", "NominalMiB", "NominalGB", "Util"},
	"verify.vram_free.fail":         {"GPU", "FreeMiB", "TotalMiB", "UsedMiB", "Percent", "NominalMiB", "NominalGB"},
	"verify.vram_free.fail_total":   {"GPU", "FreeMiB", "TotalMiB", "Percent", "NominalMiB", "NominalGB"},

	"verify.load_power.no_spec":          nil,
	"verify.load_power.no_data":          nil,
	"verify.load_power.no_load":          nil,
	"verify.load_power.fail":             {"GPU", "DrawW", "Count", "MinW", "MaxW", "Model"},
	"verify.load_power.pass":             {"GPU", "DrawW", "Count", "MinW", "MaxW", "Model"},
	"verify.load_power.fail_tdp":         {"GPU", "DrawW", "Count", "TDPW", "Model"},
	"verify.load_power.pass_tdp":         {"GPU", "DrawW", "Count", "TDPW", "Model"},
	"verify.load_power.limit_capped":     {"GPU", "LimitW", "MinW", "MaxW", "Model"},
	"verify.load_power.limit_capped_tdp": {"GPU", "LimitW", "TDPW", "Model"},

	"verify.load_clock.no_spec":    nil,
	"verify.load_clock.no_data":    nil,
	"verify.load_clock.no_load":    nil,
	"verify.load_clock.fail_range": {"GPU", "ClockMHz", "Count", "Model", "MinMHz", "MaxMHz"},
	"verify.load_clock.pass_range": {"GPU", "ClockMHz", "Count", "Model", "MinMHz", "MaxMHz"},
	"verify.load_clock.fail_boost": {"GPU", "ClockMHz", "Count", "Model", "BoostMHz"},
	"verify.load_clock.pass_boost": {"GPU", "ClockMHz", "Count", "Model", "BoostMHz"},
	"verify.load_clock.fail_max":   {"GPU", "ClockMHz", "Count", "Model", "MaxMHz"},
	"verify.load_clock.pass_max":   {"GPU", "ClockMHz", "Count", "Model", "MaxMHz"},

	"verify.throttle.no_data":             nil,
	"verify.throttle.no_load":             {"Total"},
	"verify.throttle.fail":                {"Reasons", "GPUs", "Count", "Total"},
	"verify.throttle.fail_power_cap_held": {"Reasons", "GPUs", "Count", "Total", "LimitW"},
	"verify.throttle.pass":                {"Count"},
	"verify.throttle.pass_power_cap":      {"Count", "LimitW"},

	"verify.idle_noise.no_idle": nil,
	"verify.idle_noise.fail":    {"GPU", "MaxUtil", "Noisy", "Idle"},
	"verify.idle_noise.blip":    {"GPU", "MaxUtil"},
	"verify.idle_noise.few":     {"GPU", "Count", "Min"},
	"verify.idle_noise.pass":    {"Count", "MaxUtil", "GPUs"},

	"verify.perf.bad_measured":    {"Measured", "Basis", "Nominal"},
	"verify.perf.no_basis":        {"Measured", "Basis", "Nominal"},
	"verify.perf.below_reference": {"Measured", "Basis", "Nominal", "Threshold", "Percent", "PercentOfNominal"},
	"verify.perf.below_nominal":   {"Measured", "Basis", "Nominal", "Threshold", "Percent", "PercentOfNominal"},
	"verify.perf.ok_reference":    {"Measured", "Basis", "Nominal", "Threshold", "Percent", "PercentOfNominal"},
	"verify.perf.ok_nominal":      {"Measured", "Basis", "Nominal", "Threshold", "Percent", "PercentOfNominal"},
}

// MessageIDs returns every catalog message a Check, PerfVerdict or
// ParseError may carry, sorted, so a test can hold the catalogs to them.
func MessageIDs() []string {
	out := make([]string, 0, len(messageArgs))
	for id := range messageArgs {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// MessageArgs returns the placeholder names the code supplies for a
// message (nil for an unknown one).
func MessageArgs(id string) []string { return append([]string(nil), messageArgs[id]...) }
