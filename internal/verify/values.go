package verify

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// unit is the dimension of a reading, which decides the units it may carry.
type unit int

const (
	unitMiB unit = iota
	unitWatt
	unitMHz
	unitPercent
	unitCelsius
)

var (
	d1024 = decimal.New(1024, 0)
	d1000 = decimal.New(1000, 0)
)

// unitFactor is what a reading in the unit u printed as sym is multiplied
// by to get the field's own unit; ok is false for a unit that does not
// belong there. nvidia-smi prints MiB, W, MHz, % and C; the others come
// from older drivers ("MB" meant MiB) or from hand-edited pastes.
func unitFactor(u unit, sym string) (factor decimal.Decimal, divide, ok bool) {
	s := strings.ToLower(sym)
	one := decimal.New(1, 0)
	switch u {
	case unitMiB:
		switch s {
		case "", "mib", "mb":
			return one, false, true
		case "gib", "gb":
			return d1024, false, true
		case "kib", "kb":
			return d1024, true, true
		}
	case unitWatt:
		if s == "" || s == "w" {
			return one, false, true
		}
	case unitMHz:
		switch s {
		case "", "mhz":
			return one, false, true
		case "ghz":
			return d1000, false, true
		}
	case unitPercent:
		if s == "" || s == "%" {
			return one, false, true
		}
	case unitCelsius:
		switch s {
		case "", "c", "°c", "℃":
			return one, false, true
		}
	}
	return decimal.Decimal{}, false, false
}

// notAvailable reports the words nvidia-smi prints instead of a reading:
// "[N/A]", "[Not Supported]", "[Unknown Error]", "N/A" and the like (any
// bracketed text is such a word), or nothing at all.
func notAvailable(v string) bool {
	t := strings.ToLower(strings.TrimSpace(v))
	if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
		return true
	}
	switch t {
	case "", "n/a", "na", "-", "not supported", "not available", "unknown", "unknown error", "insufficient permissions":
		return true
	}
	return false
}

// fullWidth maps the full-width digits and signs a Chinese input method
// may produce to their ASCII forms.
var fullWidth = strings.NewReplacer(
	"０", "0", "１", "1", "２", "2", "３", "3", "４", "4", "５", "5", "６", "6", "７", "7", "８", "8", "９", "9",
	"，", ",", "．", ".", "％", "%", "\u00A0", " ", "\u2007", " ", "\u2009", " ", "\u202F", " ", "\u3000", " ")

// parseReading reads one reading: a number, then optionally a unit, e.g.
// "24564 MiB", "350.00 W", "1980 MHz", "99 %", "45 C". Locale spellings
// are accepted: a decimal comma ("350,00 W") and thousands separators
// ("24,564 MiB", "24 564 MiB", "1.234,5"). The result is invalid when the
// tool printed N/A; ok is false for anything that is not a reading.
func parseReading(v string, u unit) (decimal.NullDecimal, bool) {
	if notAvailable(v) {
		return decimal.NullDecimal{}, true
	}
	v = strings.TrimSpace(fullWidth.Replace(v))
	if len(v) > 64 {
		return decimal.NullDecimal{}, false
	}
	// The number runs while digits, separators, or a space followed by a
	// digit (a grouping space) continue; the rest is the unit.
	end := 0
	for end < len(v) {
		c := v[end]
		if c >= '0' && c <= '9' || c == '.' || c == ',' {
			end++
			continue
		}
		if c == ' ' && end+1 < len(v) && v[end+1] >= '0' && v[end+1] <= '9' && end > 0 {
			end++
			continue
		}
		break
	}
	num, ok := normaliseNumber(v[:end])
	if !ok {
		return decimal.NullDecimal{}, false
	}
	factor, divide, ok := unitFactor(u, strings.TrimSpace(v[end:]))
	if !ok {
		return decimal.NullDecimal{}, false
	}
	d, err := decimal.NewFromString(num)
	if err != nil {
		return decimal.NullDecimal{}, false
	}
	switch {
	case factor.Equal(decimal.New(1, 0)):
		// As printed: its places kept (657.90 W), for the evidence
		// shown back (docs/RULES.md §9.3).
	case divide:
		d = plain(d.Div(factor))
	default:
		d = plain(d.Mul(factor))
	}
	return decimal.NullDecimal{Decimal: d, Valid: true}, true
}

// plain is d without the zeros a conversion left after its last
// significant place (1.98 GHz is 1980 MHz, not 1980.00).
func plain(d decimal.Decimal) decimal.Decimal { return decimal.RequireFromString(d.String()) }

// normaliseNumber turns a localised unsigned number into plain decimal
// text ("24,564" → "24564", "350,00" → "350.00", "1.234,5" → "1234.5").
// When both '.' and ',' occur, the later one is the decimal separator. A
// lone ',' followed by exactly three digits groups thousands (nvidia-smi
// prints watts with two decimals and memory and clocks as integers, so
// "24,564 MiB" is twenty-four thousand); otherwise it is a decimal comma.
// Several of the same mark group thousands. Groups must be three digits.
func normaliseNumber(s string) (string, bool) {
	if s == "" || len(s) > 40 || s[0] < '0' || s[0] > '9' {
		return "", false
	}
	dots, commas := strings.Count(s, "."), strings.Count(s, ",")
	lastDot, lastComma := strings.LastIndexByte(s, '.'), strings.LastIndexByte(s, ',')
	dec := -1
	switch {
	case dots > 0 && commas > 0:
		dec = max(lastDot, lastComma)
	case commas == 1 && len(s)-lastComma-1 != 3:
		dec = lastComma
	case dots == 1:
		dec = lastDot
	}
	intPart, frac := s, ""
	if dec >= 0 {
		intPart, frac = s[:dec], s[dec+1:]
		if frac == "" || strings.ContainsAny(frac, "., ") {
			return "", false
		}
	}
	groups := strings.FieldsFunc(intPart, func(r rune) bool { return r == '.' || r == ',' || r == ' ' })
	seps := strings.Map(func(r rune) rune {
		if r == '.' || r == ',' || r == ' ' {
			return r
		}
		return -1
	}, intPart)
	if len(groups) == 0 || len(groups) != len(seps)+1 {
		return "", false
	}
	if len(seps) > 0 {
		// One kind of grouping mark, not the decimal one, and whole groups.
		if strings.Trim(seps, seps[:1]) != "" || (dec >= 0 && seps[0] == s[dec]) {
			return "", false
		}
		if len(groups[0]) > 3 {
			return "", false
		}
		for _, g := range groups[1:] {
			if len(g) != 3 {
				return "", false
			}
		}
	}
	out := strings.Join(groups, "")
	if frac != "" {
		out += "." + frac
	}
	return out, true
}

// Throttle (clock event) reason bits as NVML defines them
// (nvmlClocksEventReason*), in bit order.
var throttleBits = []struct {
	bit  uint64
	name string
}{
	{0x1, "gpu_idle"},
	{0x2, "applications_clocks_setting"},
	{0x4, "sw_power_cap"},
	{0x8, "hw_slowdown"},
	{0x10, "sync_boost"},
	{0x20, "sw_thermal_slowdown"},
	{0x40, "hw_thermal_slowdown"},
	{0x80, "hw_power_brake_slowdown"},
	{0x100, "display_clock_setting"},
}

// ThrottleReasonNames lists every named reason in NVML bit order.
func ThrottleReasonNames() []string {
	out := make([]string, len(throttleBits))
	for i, b := range throttleBits {
		out[i] = b.name
	}
	return out
}

// parseThrottleMask reads clocks_throttle_reasons.active: a hex bitmask
// such as "0x0000000000000004". Bits NVML does not name come back as
// "unknown_0x…" so they are never silently dropped. known is false for
// N/A; ok is false for anything that is not a bitmask.
func parseThrottleMask(v string) (reasons []string, known, ok bool) {
	if notAvailable(v) {
		return nil, false, true
	}
	t := strings.TrimSpace(v)
	hex, found := strings.CutPrefix(strings.ToLower(t), "0x")
	if !found || hex == "" || len(hex) > 16 {
		return nil, false, false
	}
	mask, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		return nil, false, false
	}
	reasons = []string{}
	for _, b := range throttleBits {
		if mask&b.bit != 0 {
			reasons = append(reasons, b.name)
			mask &^= b.bit
		}
	}
	for bit := uint64(1); mask != 0 && bit != 0; bit <<= 1 {
		if mask&bit != 0 {
			reasons = append(reasons, fmt.Sprintf("unknown_0x%x", bit))
			mask &^= bit
		}
	}
	return reasons, true, true
}

// queryReasonNames maps the -q report's "Clocks Event Reasons" lines to
// the same names as the bitmask.
var queryReasonNames = map[string]string{
	"idle":                        "gpu_idle",
	"applications clocks setting": "applications_clocks_setting",
	"sw power cap":                "sw_power_cap",
	"hw slowdown":                 "hw_slowdown",
	"sync boost":                  "sync_boost",
	"sw thermal slowdown":         "sw_thermal_slowdown",
	"hw thermal slowdown":         "hw_thermal_slowdown",
	"hw power brake slowdown":     "hw_power_brake_slowdown",
	"display clock setting":       "display_clock_setting",
}

// reasonRank orders reason names by NVML bit, unknown names last.
func reasonRank(name string) int {
	for i, b := range throttleBits {
		if b.name == name {
			return i
		}
	}
	return len(throttleBits)
}
