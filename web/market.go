package web

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
)

// The view models of platforms and GPU models, built from market data.

// platformYears is how many whole calendar years a platform that started in
// since has operated by today: only the year is known, so the count is by
// calendar year (started 2021, today 2026 → 5).
func platformYears(since *int, today time.Time) (year, years int) {
	if since == nil {
		return 0, 0
	}
	return *since, max(today.Year()-*since, 0)
}

// qualState names a qualification's state: nil is "unknown", never "no".
func qualState(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "yes"
	default:
		return "no"
	}
}

func qualBadges(p market.Platform) []QualBadge {
	out := make([]QualBadge, len(market.PlatformQualifications))
	for i, q := range market.PlatformQualifications {
		out[i] = QualBadge{LabelID: "platform.qual." + q, State: qualState(p.Qualification(q))}
	}
	return out
}

func supportID(channel string) string {
	if channel == "" {
		return ""
	}
	return "platform.support." + channel
}

// NewPlatformRow is one line of the platform list.
func NewPlatformRow(p market.Platform, today time.Time) PlatformRow {
	since, years := platformYears(p.OperatingSince, today)
	return PlatformRow{ID: p.ID, NameZH: p.NameZH, NameEN: p.NameEN, Country: p.Country, Currency: p.Currency,
		Since: since, Years: years, Quals: qualBadges(p), SupportID: supportID(p.SupportChannel)}
}

// NewPlatformView is the platform page (its terms are the caller's).
func NewPlatformView(p market.Platform, today time.Time, canEdit bool) PlatformView {
	since, years := platformYears(p.OperatingSince, today)
	v := PlatformView{ID: p.ID, NameZH: p.NameZH, NameEN: p.NameEN, Website: p.Website, Country: p.Country,
		Currency: p.Currency, Since: since, Years: years, Quals: qualBadges(p), GuaranteeNote: p.GuaranteeNote,
		SupportID: supportID(p.SupportChannel), Notes: p.Notes, LockVersion: p.LockVersion, UpdatedAt: p.UpdatedAt,
		CanEdit: canEdit, Aliases: p.Aliases}
	for _, g := range p.BillingGranularities {
		v.GranularityIDs = append(v.GranularityIDs, "granularity."+g)
	}
	return v
}

// PlatformQualificationOptions are the qualifications a list filters by.
func PlatformQualificationOptions() []Option {
	var out []Option
	for _, q := range market.PlatformQualifications {
		out = append(out, Option{Value: q, LabelID: "platform.qual." + q})
	}
	return out
}

// NewPlatformForm fills the platform form's fixed choices around the
// values of p.
func NewPlatformForm(p market.Platform) PlatformForm {
	f := PlatformForm{ID: p.ID, NameZH: p.NameZH, NameEN: p.NameEN, Website: p.Website, Country: p.Country,
		Currency: p.Currency, GuaranteeNote: p.GuaranteeNote, SupportChannel: p.SupportChannel, Notes: p.Notes,
		Aliases: strings.Join(p.Aliases, "\n"), LockVersion: p.LockVersion, Errors: Errors{}}
	if p.OperatingSince != nil {
		f.OperatingSince = strconv.Itoa(*p.OperatingSince)
	}
	for _, q := range market.PlatformQualifications {
		val := ""
		if b := p.Qualification(q); b != nil {
			val = strconv.FormatBool(*b)
		}
		f.Quals = append(f.Quals, QualField{Name: q, LabelID: "platform.qual." + q, Value: val})
	}
	f.Supports = []Option{{Value: "", LabelID: "platform.support.unknown"}}
	for _, ch := range market.PlatformSupportChannels {
		f.Supports = append(f.Supports, Option{Value: ch, LabelID: "platform.support." + ch})
	}
	for _, g := range market.PlatformGranularities {
		f.Granularities = append(f.Granularities, SpecCheckbox{Value: g, LabelID: "granularity." + g,
			Checked: slices.Contains(p.BillingGranularities, g)})
	}
	return f
}

// KeepTyped puts back what was typed where what was understood would hide
// a problem (a year or a qualification that could not be read).
func (f *PlatformForm) KeepTyped(get func(string) string) {
	f.OperatingSince = get("operating_since")
	for i := range f.Quals {
		f.Quals[i].Value = get(f.Quals[i].Name)
	}
}

// interconnectID is the catalog message of an interconnect kind.
func interconnectID(ic string) string { return "gpu.interconnect." + ic }

// InterconnectOptions are the interconnect kinds as choices.
func InterconnectOptions() []Option {
	out := make([]Option, len(market.GPUInterconnects))
	for i, ic := range market.GPUInterconnects {
		out[i] = Option{Value: ic, LabelID: interconnectID(ic)}
	}
	return out
}

// PerfLabelID is the catalog message of a precision's name: the task
// precisions' labels, plus TF32, which only the performance table has.
func PerfLabelID(precision string) string { return "precision." + precision }

// specRange renders a range of a healthy card under load, e.g. 280–350
// (the label names the unit); one end alone reads "at least" or "at most".
func specRange(tr *i18n.Translator, lo, hi *int) string {
	switch {
	case lo != nil && hi != nil:
		return SpecInt(lo) + "–" + SpecInt(hi)
	case lo != nil:
		return tr.T("gpu.range.min", "Value", SpecInt(lo))
	case hi != nil:
		return tr.T("gpu.range.max", "Value", SpecInt(hi))
	}
	return ""
}

// NewGPURow is one line of the GPU model list.
func NewGPURow(g market.GPUModel) GPURow {
	return GPURow{ID: g.ID, Vendor: g.Vendor, Name: g.Name, VRAMGB: specNumber(g.VRAMGB),
		MemoryBandwidth: SpecNullNumber(g.MemoryBandwidthGBs), InterconnectID: interconnectID(g.Interconnect),
		InterconnectGBs: SpecNullNumber(g.InterconnectGBs), TDPW: SpecInt(g.TDPW)}
}

// NewGPUView is the GPU model page: the spec sheet and the labelled
// figures per precision.
func NewGPUView(g market.GPUModel, tr *i18n.Translator, canEdit bool) GPUView {
	v := GPUView{ID: g.ID, Vendor: g.Vendor, Name: g.Name, VRAMGB: specNumber(g.VRAMGB),
		MemoryBandwidth: SpecNullNumber(g.MemoryBandwidthGBs), InterconnectID: interconnectID(g.Interconnect),
		InterconnectGBs: SpecNullNumber(g.InterconnectGBs), TDPW: SpecInt(g.TDPW), BoostClockMHz: SpecInt(g.BoostClockMHz),
		LoadPower: specRange(tr, g.LoadPowerMinW, g.LoadPowerMaxW), LoadClock: specRange(tr, g.LoadClockMinMHz, g.LoadClockMaxMHz),
		Source: g.Source, Notes: g.Notes, LockVersion: g.LockVersion, UpdatedAt: g.UpdatedAt, CanEdit: canEdit,
		Aliases: g.Aliases}
	if g.AsOf != nil {
		v.AsOf = g.AsOf.Format(time.DateOnly)
	}
	for _, p := range g.Perf {
		v.Perf = append(v.Perf, GPUPerfRow{PrecisionID: PerfLabelID(p.Precision), Nominal: specNumber(p.NominalTFLOPS),
			Sparse: p.Sparse, NominalSource: p.NominalSource, Measured: SpecNullNumber(p.MeasuredTFLOPS),
			MeasuredBenchmark: p.MeasuredBenchmark, MeasuredSource: p.MeasuredSource})
	}
	return v
}

// plain writes a stored figure as a form reads it back: no grouping.
func plain(d decimal.NullDecimal) string {
	if !d.Valid {
		return ""
	}
	return money.String(d.Decimal)
}

func plainInt(v *int) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(*v)
}

// NewGPUForm shows the stored values of g in the form; figures are
// written plainly (no grouping) so they read back unchanged.
func NewGPUForm(g market.GPUModel) GPUForm {
	f := GPUForm{ID: g.ID, Vendor: g.Vendor, Name: g.Name,
		MemoryBandwidthGBs: plain(g.MemoryBandwidthGBs), Interconnect: g.Interconnect,
		InterconnectGBs: plain(g.InterconnectGBs), TDPW: plainInt(g.TDPW), BoostClockMHz: plainInt(g.BoostClockMHz),
		LoadPowerMinW: plainInt(g.LoadPowerMinW), LoadPowerMaxW: plainInt(g.LoadPowerMaxW),
		LoadClockMinMHz: plainInt(g.LoadClockMinMHz), LoadClockMaxMHz: plainInt(g.LoadClockMaxMHz),
		Source: g.Source, Notes: g.Notes, Interconnects: InterconnectOptions(), LockVersion: g.LockVersion,
		Aliases: strings.Join(g.Aliases, "\n"), Errors: Errors{}}
	if !g.VRAMGB.IsZero() {
		f.VRAMGB = money.String(g.VRAMGB)
	}
	if g.AsOf != nil {
		f.AsOf = g.AsOf.Format(time.DateOnly)
	}
	for _, prec := range market.PerfPrecisions {
		row := GPUPerfField{Precision: prec, LabelID: PerfLabelID(prec)}
		if p, ok := g.PerfFor(prec); ok {
			row.Nominal, row.Sparse, row.NominalSource = money.String(p.NominalTFLOPS), p.Sparse, p.NominalSource
			row.Measured, row.MeasuredBenchmark, row.MeasuredSource = plain(p.MeasuredTFLOPS), p.MeasuredBenchmark, p.MeasuredSource
		}
		f.Perf = append(f.Perf, row)
	}
	return f
}

// GPUFormTyped is the GPU form as typed (read by get, trimmed).
func GPUFormTyped(id int64, get func(string) string) GPUForm {
	f := GPUForm{ID: id, Vendor: get("vendor"), Name: get("name"), VRAMGB: get("vram_gb"),
		MemoryBandwidthGBs: get("memory_bandwidth_gbs"), Interconnect: get("interconnect"),
		InterconnectGBs: get("interconnect_gbs"), TDPW: get("tdp_w"), BoostClockMHz: get("boost_clock_mhz"),
		LoadPowerMinW: get("load_power_min_w"), LoadPowerMaxW: get("load_power_max_w"),
		LoadClockMinMHz: get("load_clock_min_mhz"), LoadClockMaxMHz: get("load_clock_max_mhz"),
		Source: get("source"), AsOf: get("as_of"), Notes: get("notes"), Interconnects: InterconnectOptions(), Errors: Errors{},
		Aliases: get("aliases")}
	for _, prec := range market.PerfPrecisions {
		row := GPUPerfField{Precision: prec, LabelID: PerfLabelID(prec)}
		row.Nominal, row.NominalSource = get(row.Name("nominal")), get(row.Name("nominal_source"))
		row.Measured, row.MeasuredBenchmark, row.MeasuredSource = get(row.Name("measured")), get(row.Name("benchmark")), get(row.Name("measured_source"))
		row.Sparse = get(row.Name("sparse")) == "true"
		f.Perf = append(f.Perf, row)
	}
	return f
}
