package server

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/internal/verify"
)

// verifyBodyLimit is the trial evidence API's request body limit: the text
// may be verify.MaxInputBytes long, and a form post spends up to three
// bytes on each of its bytes. Longer text is refused by verify.Parse with a
// message, not by the body limit.
const verifyBodyLimit = 3*verify.MaxInputBytes + 64<<10

// verifyResponse is the 200 body of POST /api/v1/verify/nvidia-smi. Every
// figure is a string, exactly as nvidia-smi printed it; null where it
// printed N/A or nothing.
type verifyResponse struct {
	Format        string         `json:"format"`
	DriverVersion *string        `json:"driver_version"`
	CUDAVersion   *string        `json:"cuda_version"`
	GPUModel      verifyGPUModel `json:"gpu_model"`
	Samples       []verifySample `json:"samples"`
	Checks        []verifyCheck  `json:"checks"`
}

// verifyGPUModel is the catalog's entry for the ordered card.
type verifyGPUModel struct {
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

// verifySample is one GPU in one sample.
type verifySample struct {
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

// verifyCheck is one verdict, its reason in the request's language.
type verifyCheck struct {
	Key        string         `json:"key"`
	TrialCheck int            `json:"trial_check"`
	Outcome    string         `json:"outcome"`
	Reason     string         `json:"reason"`
	MessageID  string         `json:"message_id"`
	Args       map[string]any `json:"args"`
}

// verifyError is one entry of the 422 body, shaped like the evaluation
// API's ({"errors": [{"field", "code", "message"}]}); Line is the input
// line of a parse error.
type verifyError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
}

// verifyNvidiaSMI is POST /api/v1/verify/nvidia-smi?gpu_model=…: it reads
// nvidia-smi output (the raw text/plain body, or the form field text) and
// returns every sample and the trial checks against the ordered card,
// reasons in the request's language. It stores nothing. 422 names an
// unknown gpu_model and a parse error's line, both at once.
func (s *Server) verifyNvidiaSMI(c echo.Context) error {
	tr := translator(c)
	c.Response().Header().Set("Cache-Control", "no-store")
	text, err := verifyText(c)
	if err != nil {
		return err // the body limit's 413, or a broken connection
	}
	var errs []verifyError
	ref := strings.TrimSpace(c.QueryParam("gpu_model"))
	g, err := s.gpuModelByRef(c.Request().Context(), ref)
	switch {
	case ref == "":
		errs = append(errs, verifyError{Field: "gpu_model", Code: "apiverify.gpu_model.missing", Message: tr.T("apiverify.gpu_model.missing")})
	case errors.Is(err, store.ErrNotFound):
		errs = append(errs, verifyError{Field: "gpu_model", Code: "apiverify.gpu_model.unknown",
			Message: tr.T("apiverify.gpu_model.unknown", "Model", shorten(ref, 100))})
	case err != nil:
		return err
	}
	report, err := verify.Parse(text)
	var pe *verify.ParseError
	if errors.As(err, &pe) {
		errs = append(errs, verifyError{Field: "text", Code: pe.MessageID, Message: tr.TMap(pe.MessageID, pe.Args), Line: pe.Line})
	} else if err != nil {
		return err
	}
	if len(errs) > 0 {
		return c.JSON(http.StatusUnprocessableEntity, map[string][]verifyError{"errors": errs})
	}
	return c.JSON(http.StatusOK, newVerifyResponse(report, g, verify.Evaluate(report, verifySpec(g)), tr))
}

// verifyText is the pasted text: the form field text of a form post, the
// whole body otherwise.
func verifyText(c echo.Context) (string, error) {
	ct, _, _ := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType))
	if ct == echo.MIMEApplicationForm || ct == echo.MIMEMultipartForm {
		return c.FormValue("text"), nil
	}
	b, err := io.ReadAll(c.Request().Body)
	return string(b), err
}

// gpuModelByRef finds the ordered card by catalog id or by name ("Vendor
// Name" or the bare name, case-insensitively).
func (s *Server) gpuModelByRef(ctx context.Context, ref string) (market.GPUModel, error) {
	if ref == "" || len(ref) > 300 {
		return market.GPUModel{}, store.ErrNotFound
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil && id > 0 {
		g, err := s.store.GPUModelByID(ctx, id)
		if !errors.Is(err, store.ErrNotFound) {
			return g, err
		}
	}
	return s.store.GPUModelByName(ctx, ref)
}

// shorten cuts s to at most n characters for an error message.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// verifySpec is the catalog's figures for the ordered card, as the checks
// read them; its name is "Vendor Name", as nvidia-smi names cards.
func verifySpec(g market.GPUModel) verify.Spec {
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	return verify.Spec{Name: strings.TrimSpace(g.Vendor + " " + g.Name), VRAMGB: g.VRAMGB, TDPW: n(g.TDPW),
		BoostClockMHz: n(g.BoostClockMHz), LoadPowerMinW: n(g.LoadPowerMinW), LoadPowerMaxW: n(g.LoadPowerMaxW),
		LoadClockMinMHz: n(g.LoadClockMinMHz), LoadClockMaxMHz: n(g.LoadClockMaxMHz)}
}

// newVerifyResponse shapes a parsed report and its checks for the wire.
func newVerifyResponse(r verify.Report, g market.GPUModel, checks []verify.Check, tr *i18n.Translator) verifyResponse {
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	dec := func(d decimal.NullDecimal) *string {
		if !d.Valid {
			return nil
		}
		return str(d.Decimal.String())
	}
	integer := func(p *int) *string {
		if p == nil {
			return nil
		}
		return str(strconv.Itoa(*p))
	}
	out := verifyResponse{Format: string(r.Format), DriverVersion: str(r.DriverVersion), CUDAVersion: str(r.CUDAVersion),
		GPUModel: verifyGPUModel{ID: g.ID, Vendor: g.Vendor, Name: g.Name, FullName: strings.TrimSpace(g.Vendor + " " + g.Name),
			VRAMGB: g.VRAMGB.String(), TDPW: integer(g.TDPW), BoostClockMHz: integer(g.BoostClockMHz),
			LoadPowerMinW: integer(g.LoadPowerMinW), LoadPowerMaxW: integer(g.LoadPowerMaxW),
			LoadClockMinMHz: integer(g.LoadClockMinMHz), LoadClockMaxMHz: integer(g.LoadClockMaxMHz)},
		Samples: make([]verifySample, len(r.Samples)), Checks: make([]verifyCheck, len(checks))}
	for i, s := range r.Samples {
		vs := verifySample{Sample: s.Sample, GPU: s.GPU, Name: str(s.Name),
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
		out.Checks[i] = verifyCheck{Key: c.Key, TrialCheck: c.TrialCheck, Outcome: string(c.Outcome),
			Reason: tr.TMap(c.MessageID, c.Args), MessageID: c.MessageID, Args: c.Args}
	}
	return out
}
