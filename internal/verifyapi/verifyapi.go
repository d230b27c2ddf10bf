// Package verifyapi is the wire format of POST /api/v1/verify/nvidia-smi:
// a parsed nvidia-smi report and its checks against the ordered card, every
// figure a string exactly as nvidia-smi printed it (never a float), and the
// 422 body shaped like the evaluation API's.
package verifyapi

import (
	"strconv"
	"strings"

	"gpuquote/internal/apierror"

	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/verify"
)

// Response is the 200 body of POST /api/v1/verify/nvidia-smi. Every
// figure is a string, exactly as nvidia-smi printed it; null where it
// printed N/A or nothing.
type Response struct {
	Format        string   `json:"format"`
	DriverVersion *string  `json:"driver_version"`
	CUDAVersion   *string  `json:"cuda_version"`
	GPUModel      GPUModel `json:"gpu_model"`
	Samples       []Sample `json:"samples"`
	Checks        []Check  `json:"checks"`
}

// GPUModel is the catalog's entry for the ordered card.
type GPUModel struct {
	ID              int64   `json:"id"`
	Vendor          string  `json:"vendor"`
	Name            string  `json:"name"`
	FullName        string  `json:"full_name"`
	VRAMGB          string  `json:"vram_gb"`
	TDPW            *string `json:"tdp_w"`
	BoostClockMHz   *string `json:"boost_clock_mhz"`
	LoadPowerMinW   *string `json:"load_power_min_w"`
	LoadPowerMaxW   *string `json:"load_power_max_w"`
	LoadClockMinMHz *string `json:"load_clock_min_mhz"`
	LoadClockMaxMHz *string `json:"load_clock_max_mhz"`
}

// Sample is one GPU in one sample.
type Sample struct {
	Sample            int     `json:"sample"`
	GPU               int     `json:"gpu"`
	Name              *string `json:"name"`
	MemoryTotalMiB    *string `json:"memory_total_mib"`
	MemoryUsedMiB     *string `json:"memory_used_mib"`
	PowerDrawW        *string `json:"power_draw_w"`
	PowerLimitW       *string `json:"power_limit_w"`
	ClockSMMHz        *string `json:"clock_sm_mhz"`
	ClockMaxSMMHz     *string `json:"clock_max_sm_mhz"`
	UtilizationGPUPct *string `json:"utilization_gpu_pct"`
	TemperatureC      *string `json:"temperature_c"`
	// ThrottleReasons are the active reasons; [] for none, null when the
	// tool printed N/A or was not asked.
	ThrottleReasons []string `json:"throttle_reasons"`
}

// Check is one verdict, its reason in the request's language.
type Check struct {
	Key        string         `json:"key"`
	TrialCheck int            `json:"trial_check"`
	Outcome    string         `json:"outcome"`
	Reason     string         `json:"reason"`
	MessageID  string         `json:"message_id"`
	Args       map[string]any `json:"args"`
}

// ParseError is the 422 entry (the API's one error shape, apierror.Error)
// of a parse error of the field text, its message in the request's
// language, with the line it points at.
func ParseError(pe *verify.ParseError, tmap func(id string, args map[string]any) string) apierror.Error {
	e := apierror.Error{Field: "text", Code: pe.MessageID, Message: tmap(pe.MessageID, pe.Args), Line: pe.Line}
	switch pe.MessageID {
	case "verify.parse.columns", "verify.parse.columns_noheader", "verify.parse.bad_value_noheader", "verify.parse.unknown_format":
		e.AcceptedColumnOrders = verify.NoHeaderOrderList()
	}
	return e
}

// NewResponse shapes a parsed report and its checks for the wire.
func NewResponse(r verify.Report, g market.GPUModel, checks []verify.Check, tmap func(id string, args map[string]any) string) Response {
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	// A reading keeps the places nvidia-smi printed (657.90 W is
	// "657.90", never "657.9"): evidence is shown as it was written.
	dec := func(d decimal.NullDecimal) *string {
		if !d.Valid {
			return nil
		}
		return str(d.Decimal.StringFixed(max(0, -d.Decimal.Exponent())))
	}
	integer := func(p *int) *string {
		if p == nil {
			return nil
		}
		return str(strconv.Itoa(*p))
	}
	out := Response{Format: string(r.Format), DriverVersion: str(r.DriverVersion), CUDAVersion: str(r.CUDAVersion),
		GPUModel: GPUModel{ID: g.ID, Vendor: g.Vendor, Name: g.Name, FullName: strings.TrimSpace(g.Vendor + " " + g.Name),
			VRAMGB: g.VRAMGB.String(), TDPW: integer(g.TDPW), BoostClockMHz: integer(g.BoostClockMHz),
			LoadPowerMinW: integer(g.LoadPowerMinW), LoadPowerMaxW: integer(g.LoadPowerMaxW),
			LoadClockMinMHz: integer(g.LoadClockMinMHz), LoadClockMaxMHz: integer(g.LoadClockMaxMHz)},
		Samples: make([]Sample, len(r.Samples)), Checks: make([]Check, len(checks))}
	for i, s := range r.Samples {
		vs := Sample{Sample: s.Sample, GPU: s.GPU, Name: str(s.Name),
			MemoryTotalMiB: dec(s.MemoryTotalMiB), MemoryUsedMiB: dec(s.MemoryUsedMiB),
			PowerDrawW: dec(s.PowerDrawW), PowerLimitW: dec(s.PowerLimitW),
			ClockSMMHz: dec(s.ClockSMMHz), ClockMaxSMMHz: dec(s.ClockMaxSMMHz),
			UtilizationGPUPct: dec(s.UtilizationGPUPct), TemperatureC: dec(s.TemperatureC)}
		if s.ThrottleKnown {
			vs.ThrottleReasons = append([]string{}, s.ThrottleReasons...)
		}
		out.Samples[i] = vs
	}
	for i, c := range checks {
		out.Checks[i] = Check{Key: c.Key, TrialCheck: c.TrialCheck, Outcome: string(c.Outcome),
			Reason: tmap(c.MessageID, c.Args), MessageID: c.MessageID, Args: c.Args}
	}
	return out
}
