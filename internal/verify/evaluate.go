package verify

import (
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
)

// Spec is the GPU catalog's figures for the card that was ordered (0 / invalid = unknown).
type Spec struct {
	Name                                                                                string
	VRAMGB                                                                              decimal.Decimal
	TDPW, BoostClockMHz, LoadPowerMinW, LoadPowerMaxW, LoadClockMinMHz, LoadClockMaxMHz int
}

// Outcome is a check's verdict.
type Outcome string

// The three verdicts: the evidence shows the card is as sold, shows it is
// not, or does not say.
const (
	OutcomePass    Outcome = "pass"
	OutcomeFail    Outcome = "fail"
	OutcomeUnknown Outcome = "unknown"
)

// Check is one verdict drawn from the evidence.
type Check struct {
	Key        string         // stable: one of CheckKeys
	TrialCheck int            // the number (1–30) of the catalog trial check it evidences (catalog.TrialChecks), 0 if none
	Outcome    Outcome        // pass, fail or unknown
	MessageID  string         // reason, a catalog message (verify.*)
	Args       map[string]any // placeholder values as strings
}

// The stable keys of the checks Evaluate returns, in its order.
const (
	CheckModel           = "model_matches"
	CheckVRAMTotal       = "vram_total"
	CheckVRAMAllocatable = "vram_allocatable_90pct"
	CheckLoadPower       = "load_power"
	CheckLoadClock       = "load_sm_clock"
	CheckThrottle        = "throttle_reasons"
	CheckIdleNoise       = "idle_noise"
)

// CheckKeys lists every check Evaluate returns, in order.
var CheckKeys = []string{CheckModel, CheckVRAMTotal, CheckVRAMAllocatable, CheckLoadPower, CheckLoadClock, CheckThrottle, CheckIdleNoise}

// trialCheckKeys names the catalog trial check each check evidences
// (docs/RULES.md §9.1): 1 model, 2 total VRAM, 6 allocatable
// VRAM ≥ 90 %, 11 no throttling at full load (power, clock, reasons), 10
// utilisation matches your own load (none, when you run nothing).
var trialCheckKeys = map[string]string{
	CheckModel:           "model_matches",
	CheckVRAMTotal:       "vram_total_matches",
	CheckVRAMAllocatable: "allocatable_vram_90pct",
	CheckLoadPower:       "no_clock_throttling",
	CheckLoadClock:       "no_clock_throttling",
	CheckThrottle:        "no_clock_throttling",
	CheckIdleNoise:       "utilisation_matches_load",
}

// TrialCheckNumber is the catalog trial check number a check key
// evidences, 0 if none.
func TrialCheckNumber(key string) int {
	k, ok := trialCheckKeys[key]
	if !ok {
		return 0
	}
	for _, c := range catalog.TrialChecks {
		if c.Key == k {
			return c.Number
		}
	}
	return 0
}

// The thresholds of the checks. Each is a documented product decision
// where the guides give only the principle (docs/RULES.md §9.4, §14.4).
var (
	hundred = decimal.New(100, 0)
	// vramMinShare: total VRAM passes from 93 % of nominal GiB × 1024 MiB.
	// Cards report less than nominal: the driver reserves some (an RTX 4090
	// shows 24564 of 24576 MiB, an H100 80GB 81559 of 81920) and GDDR cards
	// with ECC on give 1/16 to it (a 16 GB T4 shows 15360 MiB, a 48 GB
	// L40S 46068 MiB: 93.7 %). A vGPU slice or a smaller card shows far less.
	vramMinShare = decimal.New(93, -2)
	// vramMaxShare: more than 1 % above nominal is inflation (check 2, "no
	// inflation"): no card reports more memory than it has.
	vramMaxShare = decimal.New(101, -2)
	// allocatableMinShare is check 6: free memory at idle ≥ 90 % of nominal.
	allocatableMinShare = decimal.New(90, -2)
	// loadUtilPct: a sample is "under load" from 80 % GPU utilisation.
	loadUtilPct = decimal.New(80, 0)
	// powerNearShare: under load a card passes from 80 % of the low end of
	// its normal load power range ("within or near"): a memory-bound job
	// draws less than a burn-in, a capped card a fraction (the guide's
	// RTX 3090: ~40 W against 280–350 W).
	powerNearShare = decimal.New(80, -2)
	// powerTDPShare: with only the rated power known, half of it under load.
	powerTDPShare = decimal.New(50, -2)
	// clockNearShare: under load the SM clock passes from 90 % of the low
	// end of its normal range (the guide's RTX 3090: 420 MHz against
	// 1600–1800 MHz).
	clockNearShare = decimal.New(90, -2)
	// clockBoostShare: with only a boost clock (the catalog's, or the
	// card's own maximum as nvidia-smi reports it), 70 % of it under load.
	clockBoostShare = decimal.New(70, -2)
	// stockLimitShare: a power limit from 95 % of the rated power is the
	// stock one, so "SW power cap" then means the card runs at its rated
	// power, not that someone capped it.
	stockLimitShare = decimal.New(95, -2)
	// idleMemShare: a sample is idle when at most 1 % of memory is in use.
	idleMemShare = decimal.New(1, -2)
	// idleNoisePct: at idle, GPU utilisation from 5 % is noise.
	idleNoisePct = decimal.New(5, 0)
)

const (
	// idleNoisyMin idle samples with noise fail the card: one is a blip.
	idleNoisyMin = 2
	// idleMinSamples idle samples per GPU are needed to pass it.
	idleMinSamples = 3
)

// Evaluate draws the checks of CheckKeys, in that order, from a report
// against the ordered card's figures. Every check is always present;
// where the evidence or the catalog does not say, it is "unknown" with a
// reason that says what to capture.
func Evaluate(r Report, spec Spec) []Check {
	gpus := byGPU(r)
	// Power, clock and throttle reasons are one acceptance check (11): the
	// throttle reasons are read in the light of the power and clock
	// figures, so no line of check 11 explains away what another shows
	// (docs/RULES.md §9.4).
	power, clock := checkLoadPower(gpus, spec), checkLoadClock(gpus, spec)
	held := power.Outcome == OutcomeFail || clock.Outcome == OutcomeFail
	return []Check{
		checkModel(gpus, spec),
		checkVRAMTotal(gpus, spec),
		checkAllocatable(gpus, spec),
		power,
		clock,
		checkThrottle(gpus, spec, held),
		checkIdleNoise(gpus),
	}
}

// series is one GPU's samples in order.
type series struct {
	gpu     int
	samples []Sample
}

// byGPU groups the samples per GPU, GPUs in index order.
func byGPU(r Report) []series {
	at := map[int]int{}
	var out []series
	for _, s := range r.Samples {
		i, ok := at[s.GPU]
		if !ok {
			i = len(out)
			at[s.GPU] = i
			out = append(out, series{gpu: s.GPU})
		}
		out[i].samples = append(out[i].samples, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].gpu < out[j].gpu })
	return out
}

// newCheck starts a check with its trial check number.
func newCheck(key string, o Outcome, id string, args ...string) Check {
	m := make(map[string]any, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		m[args[i]] = args[i+1]
	}
	return Check{Key: key, TrialCheck: TrialCheckNumber(key), Outcome: o, MessageID: id, Args: m}
}

func itoa(n int) string { return strconv.Itoa(n) }

// num prints a reading as nvidia-smi would, without trailing zeros.
func num(d decimal.Decimal) string { return d.String() }

// percent prints a ÷ b as a percentage with two decimals, rounded
// half-up (24564 of 24576 MiB is 99.95 %, not a rounded-up 100).
func percent(a, b decimal.Decimal) string {
	if !b.IsPositive() {
		return "0.00"
	}
	return a.Mul(hundred).DivRound(b, 2).StringFixed(2)
}

// share is x × s, for thresholds.
func share(x int, s decimal.Decimal) decimal.Decimal { return decimal.New(int64(x), 0).Mul(s) }

// underLoad reports a sample taken at ≥ 80 % GPU utilisation.
func underLoad(s Sample) bool {
	return s.UtilizationGPUPct.Valid && s.UtilizationGPUPct.Decimal.GreaterThanOrEqual(loadUtilPct)
}

// lowerMedian is the middle value (the lower of the two middle ones for
// an even count), so it is always a figure the tool printed; one dip
// between batches does not decide a verdict.
func lowerMedian(xs []decimal.Decimal) decimal.Decimal {
	s := append([]decimal.Decimal(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i].LessThan(s[j]) })
	return s[(len(s)-1)/2]
}

// nominalMiB is the catalog's memory size in MiB (GB taken as GiB, as
// GPU memory is sold).
func nominalMiB(spec Spec) decimal.Decimal { return spec.VRAMGB.Mul(d1024) }

// checkModel is trial check 1: every GPU's name is the ordered model.
func checkModel(gpus []series, spec Spec) Check {
	if strings.TrimSpace(spec.Name) == "" {
		return newCheck(CheckModel, OutcomeUnknown, "verify.model.no_spec")
	}
	var names []string
	for _, g := range gpus {
		for _, s := range g.samples {
			if s.Name == "" {
				continue
			}
			if !SameModel(s.Name, spec.Name) {
				return newCheck(CheckModel, OutcomeFail, "verify.model.fail",
					"GPU", itoa(g.gpu), "Reported", s.Name, "Ordered", spec.Name)
			}
			if !containsString(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	if len(names) == 0 {
		return newCheck(CheckModel, OutcomeUnknown, "verify.model.no_data")
	}
	return newCheck(CheckModel, OutcomePass, "verify.model.pass",
		"Reported", strings.Join(names, "; "), "Ordered", spec.Name)
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// checkVRAMTotal is trial check 2: each card's total memory matches the
// nominal size, within the reserved shortfall and without inflation.
func checkVRAMTotal(gpus []series, spec Spec) Check {
	nominal := nominalMiB(spec)
	if !nominal.IsPositive() {
		return newCheck(CheckVRAMTotal, OutcomeUnknown, "verify.vram_total.no_spec")
	}
	type total struct {
		gpu int
		mib decimal.Decimal
	}
	var low, high *total
	for _, g := range gpus {
		for _, s := range g.samples {
			if !s.MemoryTotalMiB.Valid {
				continue
			}
			t := total{g.gpu, s.MemoryTotalMiB.Decimal}
			if low == nil || t.mib.LessThan(low.mib) {
				low = &t
			}
			if high == nil || t.mib.GreaterThan(high.mib) {
				high = &t
			}
		}
	}
	if low == nil {
		return newCheck(CheckVRAMTotal, OutcomeUnknown, "verify.vram_total.no_data")
	}
	gb, nmib := num(spec.VRAMGB), num(nominal)
	if low.mib.LessThan(nominal.Mul(vramMinShare)) {
		return newCheck(CheckVRAMTotal, OutcomeFail, "verify.vram_total.short",
			"GPU", itoa(low.gpu), "TotalMiB", num(low.mib), "Percent", percent(low.mib, nominal),
			"NominalGB", gb, "NominalMiB", nmib, "MinPercent", num(vramMinShare.Mul(hundred)))
	}
	if high.mib.GreaterThan(nominal.Mul(vramMaxShare)) {
		return newCheck(CheckVRAMTotal, OutcomeFail, "verify.vram_total.inflated",
			"GPU", itoa(high.gpu), "TotalMiB", num(high.mib), "Percent", percent(high.mib, nominal),
			"NominalGB", gb, "NominalMiB", nmib)
	}
	return newCheck(CheckVRAMTotal, OutcomePass, "verify.vram_total.pass",
		"GPU", itoa(low.gpu), "TotalMiB", num(low.mib), "Percent", percent(low.mib, nominal),
		"NominalGB", gb, "NominalMiB", nmib, "MinPercent", num(vramMinShare.Mul(hundred)))
}

// checkAllocatable is trial check 6: memory free at idle is at least 90 %
// of nominal. Free is total − used (total when used was not printed); each
// card is judged by its most idle sample, the set by its worst card.
func checkAllocatable(gpus []series, spec Spec) Check {
	nominal := nominalMiB(spec)
	if !nominal.IsPositive() {
		return newCheck(CheckVRAMAllocatable, OutcomeUnknown, "verify.vram_free.no_spec")
	}
	type best struct {
		gpu  int
		free decimal.Decimal
		s    Sample
	}
	var worst *best
	for _, g := range gpus {
		var b *best
		for _, s := range g.samples {
			if !s.MemoryTotalMiB.Valid {
				continue
			}
			free := s.MemoryTotalMiB.Decimal
			if s.MemoryUsedMiB.Valid {
				free = free.Sub(s.MemoryUsedMiB.Decimal)
			}
			if b == nil || free.GreaterThan(b.free) {
				b = &best{g.gpu, free, s}
			}
		}
		if b != nil && (worst == nil || b.free.LessThan(worst.free)) {
			worst = b
		}
	}
	if worst == nil {
		return newCheck(CheckVRAMAllocatable, OutcomeUnknown, "verify.vram_free.no_data")
	}
	s := worst.s
	args := []string{"GPU", itoa(worst.gpu), "FreeMiB", num(worst.free), "TotalMiB", num(s.MemoryTotalMiB.Decimal),
		"Percent", percent(worst.free, nominal), "NominalMiB", num(nominal), "NominalGB", num(spec.VRAMGB)}
	if s.MemoryUsedMiB.Valid {
		args = append(args, "UsedMiB", num(s.MemoryUsedMiB.Decimal))
	}
	if !worst.free.LessThan(nominal.Mul(allocatableMinShare)) {
		if !s.MemoryUsedMiB.Valid {
			return newCheck(CheckVRAMAllocatable, OutcomePass, "verify.vram_free.pass_no_used", args...)
		}
		return newCheck(CheckVRAMAllocatable, OutcomePass, "verify.vram_free.pass", args...)
	}
	if !s.MemoryUsedMiB.Valid || !s.MemoryUsedMiB.Decimal.GreaterThan(s.MemoryTotalMiB.Decimal.Mul(idleMemShare)) {
		// Nothing (or next to nothing) in use: the total itself is too
		// small, whatever the load.
		return newCheck(CheckVRAMAllocatable, OutcomeFail, "verify.vram_free.fail_total", args...)
	}
	if underLoad(s) {
		// The least-used sample was taken under load: the memory in use may
		// be the user's own job.
		return newCheck(CheckVRAMAllocatable, OutcomeUnknown, "verify.vram_free.busy",
			append(args, "Util", num(s.UtilizationGPUPct.Decimal))...)
	}
	return newCheck(CheckVRAMAllocatable, OutcomeFail, "verify.vram_free.fail", args...)
}

// loadFigure is one GPU's median reading under load.
type loadFigure struct {
	gpu    int
	median decimal.Decimal
	count  int
	floor  decimal.Decimal
	maxMHz decimal.Decimal // the card's own maximum SM clock, for the "max" basis
}

// loadMedians returns, per GPU with load samples, the lower median of
// the reading get picks; anyLoad reports whether any sample was under load.
func loadMedians(gpus []series, get func(Sample) decimal.NullDecimal) (out []loadFigure, anyLoad bool) {
	for _, g := range gpus {
		var xs []decimal.Decimal
		for _, s := range g.samples {
			if !underLoad(s) {
				continue
			}
			anyLoad = true
			if v := get(s); v.Valid {
				xs = append(xs, v.Decimal)
			}
		}
		if len(xs) > 0 {
			out = append(out, loadFigure{gpu: g.gpu, median: lowerMedian(xs), count: len(xs)})
		}
	}
	return out, anyLoad
}

// powerFloor is the least power draw a healthy card shows under load, and
// whether the catalog has a load range (else the rated power is used).
func powerFloor(spec Spec) (floor decimal.Decimal, hasRange, ok bool) {
	switch {
	case spec.LoadPowerMinW > 0 && spec.LoadPowerMaxW > 0:
		return share(spec.LoadPowerMinW, powerNearShare), true, true
	case spec.TDPW > 0:
		return share(spec.TDPW, powerTDPShare), false, true
	}
	return decimal.Decimal{}, false, false
}

// checkLoadPower is part of trial check 11: under load the card draws
// power in or near its normal range, and its power limit is not set
// below it (a power-capped card, docs/RULES.md §9.4).
func checkLoadPower(gpus []series, spec Spec) Check {
	floor, hasRange, ok := powerFloor(spec)
	if !ok {
		return newCheck(CheckLoadPower, OutcomeUnknown, "verify.load_power.no_spec")
	}
	ranged := func(args ...string) []string {
		if hasRange {
			return append(args, "MinW", itoa(spec.LoadPowerMinW), "MaxW", itoa(spec.LoadPowerMaxW), "Model", spec.Name)
		}
		return append(args, "TDPW", itoa(spec.TDPW), "Model", spec.Name)
	}
	suffix := ""
	if !hasRange {
		suffix = "_tdp"
	}
	figs, anyLoad := loadMedians(gpus, func(s Sample) decimal.NullDecimal { return s.PowerDrawW })
	if len(figs) > 0 {
		worst := figs[0]
		for _, f := range figs[1:] {
			if f.median.LessThan(worst.median) {
				worst = f
			}
		}
		if worst.median.LessThan(floor) {
			return newCheck(CheckLoadPower, OutcomeFail, "verify.load_power.fail"+suffix,
				ranged("GPU", itoa(worst.gpu), "DrawW", num(worst.median), "Count", itoa(worst.count))...)
		}
		if c, capped := cappedLimit(gpus, floor, spec, ranged); capped {
			return c
		}
		return newCheck(CheckLoadPower, OutcomePass, "verify.load_power.pass"+suffix,
			ranged("GPU", itoa(worst.gpu), "DrawW", num(worst.median), "Count", itoa(worst.count))...)
	}
	if c, capped := cappedLimit(gpus, floor, spec, ranged); capped {
		return c
	}
	if anyLoad {
		return newCheck(CheckLoadPower, OutcomeUnknown, "verify.load_power.no_data")
	}
	return newCheck(CheckLoadPower, OutcomeUnknown, "verify.load_power.no_load")
}

// cappedLimit fails the card when a sample shows its power limit set
// below the draw a healthy card needs under load: that shows at idle too.
func cappedLimit(gpus []series, floor decimal.Decimal, spec Spec, ranged func(...string) []string) (Check, bool) {
	for _, g := range gpus {
		for _, s := range g.samples {
			if s.PowerLimitW.Valid && s.PowerLimitW.Decimal.LessThan(floor) {
				id := "verify.load_power.limit_capped"
				if spec.LoadPowerMinW == 0 || spec.LoadPowerMaxW == 0 {
					id += "_tdp"
				}
				return newCheck(CheckLoadPower, OutcomeFail, id,
					ranged("GPU", itoa(g.gpu), "LimitW", num(s.PowerLimitW.Decimal))...), true
			}
		}
	}
	return Check{}, false
}

// checkLoadClock is part of trial check 11: under load the SM clock is in
// or near the normal range (else near the boost clock, else near the
// card's own maximum as nvidia-smi reports it).
func checkLoadClock(gpus []series, spec Spec) Check {
	figs, anyLoad := loadMedians(gpus, func(s Sample) decimal.NullDecimal { return s.ClockSMMHz })
	if len(figs) == 0 {
		if anyLoad {
			return newCheck(CheckLoadClock, OutcomeUnknown, "verify.load_clock.no_data")
		}
		return newCheck(CheckLoadClock, OutcomeUnknown, "verify.load_clock.no_load")
	}
	basis := ""
	switch {
	case spec.LoadClockMinMHz > 0 && spec.LoadClockMaxMHz > 0:
		basis = "range"
	case spec.BoostClockMHz > 0:
		basis = "boost"
	default:
		basis = "max"
	}
	var (
		worst      *loadFigure
		worstRatio decimal.Decimal
	)
	for i := range figs {
		f := &figs[i]
		switch basis {
		case "range":
			f.floor = share(spec.LoadClockMinMHz, clockNearShare)
		case "boost":
			f.floor = share(spec.BoostClockMHz, clockBoostShare)
		default:
			for _, g := range gpus {
				if g.gpu != f.gpu {
					continue
				}
				for _, s := range g.samples {
					if s.ClockMaxSMMHz.Valid && s.ClockMaxSMMHz.Decimal.GreaterThan(f.maxMHz) {
						f.maxMHz = s.ClockMaxSMMHz.Decimal
					}
				}
			}
			f.floor = f.maxMHz.Mul(clockBoostShare)
		}
		if !f.floor.IsPositive() {
			continue
		}
		ratio := f.median.DivRound(f.floor, 8)
		if worst == nil || ratio.LessThan(worstRatio) {
			worst, worstRatio = f, ratio
		}
	}
	if worst == nil {
		return newCheck(CheckLoadClock, OutcomeUnknown, "verify.load_clock.no_spec")
	}
	args := []string{"GPU", itoa(worst.gpu), "ClockMHz", num(worst.median), "Count", itoa(worst.count), "Model", spec.Name}
	switch basis {
	case "range":
		args = append(args, "MinMHz", itoa(spec.LoadClockMinMHz), "MaxMHz", itoa(spec.LoadClockMaxMHz))
	case "boost":
		args = append(args, "BoostMHz", itoa(spec.BoostClockMHz))
	default:
		args = append(args, "MaxMHz", num(worst.maxMHz))
	}
	if worst.median.LessThan(worst.floor) {
		return newCheck(CheckLoadClock, OutcomeFail, "verify.load_clock.fail_"+basis, args...)
	}
	return newCheck(CheckLoadClock, OutcomePass, "verify.load_clock.pass_"+basis, args...)
}

// benignReasons never fail a card: the GPU is idle, or clocks follow the
// applications-clocks setting the user controls.
var benignReasons = map[string]bool{"gpu_idle": true, "applications_clocks_setting": true}

// stockLimit reports whether a sample's power limit is the card's stock
// one (≥ 95 % of the rated power, or of the load range's top without one).
func stockLimit(s Sample, spec Spec) bool {
	rated := spec.TDPW
	if rated == 0 {
		rated = spec.LoadPowerMaxW
	}
	return rated > 0 && s.PowerLimitW.Valid && s.PowerLimitW.Decimal.GreaterThanOrEqual(share(rated, stockLimitShare))
}

// checkThrottle is part of trial check 11: no throttle reason is active
// other than idle and the applications-clocks setting. "SW power cap"
// with the stock power limit is a card running at its rated power (a
// healthy H100 under full load shows it), so it fails only when the limit
// was lowered or is unknown, or when held says the power draw or the SM
// clock under load already failed check 11: a card drawing a fraction of
// its rated power is not "at its rated power", whatever limit it shows.
func checkThrottle(gpus []series, spec Spec, held bool) Check {
	var (
		bad              []string
		badGPUs          []int
		badSamples       int
		known, knownLoad int
		stockCap, heldAt bool
		limit            decimal.Decimal
	)
	for _, g := range gpus {
		for _, s := range g.samples {
			if !s.ThrottleKnown {
				continue
			}
			known++
			if underLoad(s) {
				knownLoad++
			}
			sampleBad := false
			for _, reason := range s.ThrottleReasons {
				if benignReasons[reason] {
					continue
				}
				if reason == "sw_power_cap" && stockLimit(s, spec) {
					limit = s.PowerLimitW.Decimal
					if !held {
						stockCap = true
						continue
					}
					heldAt = true
				}
				sampleBad = true
				if !containsString(bad, reason) {
					bad = append(bad, reason)
				}
			}
			if sampleBad {
				badSamples++
				if len(badGPUs) == 0 || badGPUs[len(badGPUs)-1] != g.gpu {
					badGPUs = append(badGPUs, g.gpu)
				}
			}
		}
	}
	if known == 0 {
		return newCheck(CheckThrottle, OutcomeUnknown, "verify.throttle.no_data")
	}
	if len(bad) > 0 {
		sort.SliceStable(bad, func(i, j int) bool { return reasonRank(bad[i]) < reasonRank(bad[j]) })
		gs := make([]string, len(badGPUs))
		for i, g := range badGPUs {
			gs[i] = itoa(g)
		}
		args := []string{"Reasons", strings.Join(bad, ", "), "GPUs", strings.Join(gs, ", "),
			"Count", itoa(badSamples), "Total", itoa(known)}
		if heldAt {
			return newCheck(CheckThrottle, OutcomeFail, "verify.throttle.fail_power_cap_held", append(args, "LimitW", num(limit))...)
		}
		return newCheck(CheckThrottle, OutcomeFail, "verify.throttle.fail", args...)
	}
	if knownLoad == 0 {
		return newCheck(CheckThrottle, OutcomeUnknown, "verify.throttle.no_load", "Total", itoa(known))
	}
	if stockCap {
		return newCheck(CheckThrottle, OutcomePass, "verify.throttle.pass_power_cap",
			"Count", itoa(knownLoad), "LimitW", num(limit))
	}
	return newCheck(CheckThrottle, OutcomePass, "verify.throttle.pass", "Count", itoa(knownLoad))
}

// checkIdleNoise looks for the oversell sign of docs/RULES.md §9.4: utilisation
// with nothing running. A sample is idle when at most 1 % of memory is in
// use; utilisation from 5 % there is noise. Two noisy idle samples on a
// card fail it, one is a blip (unknown); a pass needs three idle samples
// per card judged.
func checkIdleNoise(gpus []series) Check {
	type idle struct {
		gpu, count, noisy int
		maxUtil           decimal.Decimal
	}
	var judged []idle
	for _, g := range gpus {
		x := idle{gpu: g.gpu}
		for _, s := range g.samples {
			if !s.MemoryTotalMiB.Valid || !s.MemoryUsedMiB.Valid || !s.UtilizationGPUPct.Valid || !s.MemoryTotalMiB.Decimal.IsPositive() {
				continue
			}
			if s.MemoryUsedMiB.Decimal.GreaterThan(s.MemoryTotalMiB.Decimal.Mul(idleMemShare)) {
				continue
			}
			x.count++
			u := s.UtilizationGPUPct.Decimal
			if u.GreaterThanOrEqual(idleNoisePct) {
				x.noisy++
			}
			if u.GreaterThan(x.maxUtil) {
				x.maxUtil = u
			}
		}
		if x.count > 0 {
			judged = append(judged, x)
		}
	}
	if len(judged) == 0 {
		return newCheck(CheckIdleNoise, OutcomeUnknown, "verify.idle_noise.no_idle")
	}
	worst := judged[0]
	total, fewest := 0, judged[0]
	maxUtil := decimal.Zero
	for _, x := range judged {
		if x.noisy > worst.noisy || (x.noisy == worst.noisy && x.maxUtil.GreaterThan(worst.maxUtil)) {
			worst = x
		}
		if x.count < fewest.count {
			fewest = x
		}
		total += x.count
		if x.maxUtil.GreaterThan(maxUtil) {
			maxUtil = x.maxUtil
		}
	}
	switch {
	case worst.noisy >= idleNoisyMin:
		return newCheck(CheckIdleNoise, OutcomeFail, "verify.idle_noise.fail",
			"GPU", itoa(worst.gpu), "MaxUtil", num(worst.maxUtil), "Noisy", itoa(worst.noisy), "Idle", itoa(worst.count))
	case worst.noisy == 1:
		return newCheck(CheckIdleNoise, OutcomeUnknown, "verify.idle_noise.blip",
			"GPU", itoa(worst.gpu), "MaxUtil", num(worst.maxUtil))
	case fewest.count < idleMinSamples:
		return newCheck(CheckIdleNoise, OutcomeUnknown, "verify.idle_noise.few",
			"GPU", itoa(fewest.gpu), "Count", itoa(fewest.count), "Min", itoa(idleMinSamples))
	}
	return newCheck(CheckIdleNoise, OutcomePass, "verify.idle_noise.pass",
		"Count", itoa(total), "MaxUtil", num(maxUtil), "GPUs", itoa(len(judged)))
}
