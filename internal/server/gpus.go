package server

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/store"
	"gpuquote/web"
)

const gpusPerPage = 50

// Upper bounds of the numeric columns: numeric(10,2) holds less than 10⁸,
// numeric(12,3) less than 10⁹; integers are capped well inside int4.
var (
	gpuSpecLimit   = decimal.New(1, 8)
	gpuTFLOPSLimit = decimal.New(1, 9)
)

const gpuIntLimit = 1_000_000

// specRange renders a range of a healthy card under load, e.g. 280–350
// (the label names the unit); one end alone reads "at least" or "at most".
func specRange(tr *i18n.Translator, lo, hi *int) string {
	switch {
	case lo != nil && hi != nil:
		return web.SpecInt(lo) + "–" + web.SpecInt(hi)
	case lo != nil:
		return tr.T("gpu.range.min", "Value", web.SpecInt(lo))
	case hi != nil:
		return tr.T("gpu.range.max", "Value", web.SpecInt(hi))
	}
	return ""
}

func interconnectID(ic string) string { return "gpu.interconnect." + ic }

func interconnectOptions() []web.Option {
	out := make([]web.Option, len(market.GPUInterconnects))
	for i, ic := range market.GPUInterconnects {
		out[i] = web.Option{Value: ic, LabelID: interconnectID(ic)}
	}
	return out
}

// perfLabelID is the catalog message of a precision's name: the task
// precisions' labels, plus TF32, which only the performance table has.
func perfLabelID(precision string) string { return "precision." + precision }

// gpuList is GET /gpus: search, interconnect filter, pages.
func (s *Server) gpuList(c echo.Context) error {
	v := web.GPUsView{Query: strings.TrimSpace(c.QueryParam("q")), Interconnects: interconnectOptions(), CanEdit: canEditSpecs(c)}
	if ic := c.QueryParam("interconnect"); slices.Contains(market.GPUInterconnects, ic) {
		v.Interconnect = ic
	}
	page := pageParam(c)
	rows, total, err := s.store.GPUModels(c.Request().Context(), store.GPUModelFilter{Query: v.Query,
		Interconnect: v.Interconnect, Offset: (page - 1) * gpusPerPage, Limit: gpusPerPage})
	if err != nil {
		return err
	}
	// "Nothing matches" rather than "nothing entered yet" also past the last page.
	v.Filtered = v.Query != "" || v.Interconnect != "" || total > 0
	v.Pager = web.Pager{Page: page, PerPage: gpusPerPage, Total: total,
		Base: specListURL("/gpus", url.Values{"q": {v.Query}, "interconnect": {v.Interconnect}})}
	for _, g := range rows {
		v.Rows = append(v.Rows, web.GPURow{ID: g.ID, Vendor: g.Vendor, Name: g.Name, VRAMGB: web.SpecNumber(g.VRAMGB),
			MemoryBandwidth: web.SpecNullNumber(g.MemoryBandwidthGBs), InterconnectID: interconnectID(g.Interconnect),
			InterconnectGBs: web.SpecNullNumber(g.InterconnectGBs), TDPW: web.SpecInt(g.TDPW)})
	}
	v.Page = s.page(c, "gpu.list.title")
	return s.render(c, http.StatusOK, v.Page, web.GPUs(v))
}

// gpuShow is GET /gpus/:id: the spec sheet and the labelled figures per
// precision.
func (s *Server) gpuShow(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	g, err := s.store.GPUModelByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	tr := t(c)
	v := web.GPUView{ID: g.ID, Vendor: g.Vendor, Name: g.Name,
		VRAMGB:          web.SpecNumber(g.VRAMGB),
		MemoryBandwidth: web.SpecNullNumber(g.MemoryBandwidthGBs),
		InterconnectID:  interconnectID(g.Interconnect),
		InterconnectGBs: web.SpecNullNumber(g.InterconnectGBs),
		TDPW:            web.SpecInt(g.TDPW),
		BoostClockMHz:   web.SpecInt(g.BoostClockMHz),
		LoadPower:       specRange(tr, g.LoadPowerMinW, g.LoadPowerMaxW),
		LoadClock:       specRange(tr, g.LoadClockMinMHz, g.LoadClockMaxMHz),
		Source:          g.Source, Notes: g.Notes, LockVersion: g.LockVersion,
		UpdatedAt: g.UpdatedAt, CanEdit: canEditSpecs(c)}
	if g.AsOf != nil {
		v.AsOf = g.AsOf.Format(time.DateOnly)
	}
	for _, p := range g.Perf {
		v.Perf = append(v.Perf, web.GPUPerfRow{PrecisionID: perfLabelID(p.Precision), Nominal: web.SpecNumber(p.NominalTFLOPS),
			Sparse: p.Sparse, NominalSource: p.NominalSource, Measured: web.SpecNullNumber(p.MeasuredTFLOPS),
			MeasuredBenchmark: p.MeasuredBenchmark, MeasuredSource: p.MeasuredSource})
	}
	v.Page = s.page(c, "gpu.detail.title")
	v.Page.Title = g.Vendor + " " + g.Name
	return s.render(c, http.StatusOK, v.Page, web.GPU(v))
}

// gpuForm shows the stored values of g in the form; figures are written
// plainly (no grouping) so they read back unchanged.
func gpuForm(g market.GPUModel) web.GPUForm {
	plain := func(d decimal.NullDecimal) string {
		if !d.Valid {
			return ""
		}
		return money.String(d.Decimal)
	}
	num := func(v *int) string {
		if v == nil {
			return ""
		}
		return strconv.Itoa(*v)
	}
	f := web.GPUForm{ID: g.ID, Vendor: g.Vendor, Name: g.Name,
		MemoryBandwidthGBs: plain(g.MemoryBandwidthGBs), Interconnect: g.Interconnect,
		InterconnectGBs: plain(g.InterconnectGBs), TDPW: num(g.TDPW), BoostClockMHz: num(g.BoostClockMHz),
		LoadPowerMinW: num(g.LoadPowerMinW), LoadPowerMaxW: num(g.LoadPowerMaxW),
		LoadClockMinMHz: num(g.LoadClockMinMHz), LoadClockMaxMHz: num(g.LoadClockMaxMHz),
		Source: g.Source, Notes: g.Notes, Interconnects: interconnectOptions(), LockVersion: g.LockVersion,
		Errors: web.Errors{}}
	if !g.VRAMGB.IsZero() {
		f.VRAMGB = money.String(g.VRAMGB)
	}
	if g.AsOf != nil {
		f.AsOf = g.AsOf.Format(time.DateOnly)
	}
	for _, prec := range market.PerfPrecisions {
		row := web.GPUPerfField{Precision: prec, LabelID: perfLabelID(prec)}
		if p, ok := g.PerfFor(prec); ok {
			row.Nominal, row.Sparse, row.NominalSource = money.String(p.NominalTFLOPS), p.Sparse, p.NominalSource
			row.Measured, row.MeasuredBenchmark, row.MeasuredSource = plain(p.MeasuredTFLOPS), p.MeasuredBenchmark, p.MeasuredSource
		}
		f.Perf = append(f.Perf, row)
	}
	return f
}

// gpuNew is GET /gpus/new.
func (s *Server) gpuNew(c echo.Context) error {
	f := gpuForm(market.GPUModel{Interconnect: "pcie"})
	f.Page = s.page(c, "gpu.new")
	return s.render(c, http.StatusOK, f.Page, web.GPUFormPage(f))
}

// gpuEdit is GET /gpus/:id/edit.
func (s *Server) gpuEdit(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	g, err := s.store.GPUModelByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	f := gpuForm(g)
	f.Page = s.page(c, "gpu.edit")
	return s.render(c, http.StatusOK, f.Page, web.GPUFormPage(f))
}

// specDecimal reads a positive decimal field with at most places decimal
// places and below limit, exactly (never through float64). An empty field
// is null, or an error when required.
func specDecimal(raw string, errs web.Errors, name string, places int, limit decimal.Decimal, required bool) decimal.NullDecimal {
	if raw == "" {
		if required {
			errs.Set(name, "spec.error.required")
		}
		return decimal.NullDecimal{}
	}
	d, err := money.ParsePlaces(raw, places)
	switch {
	case errors.Is(err, money.ErrTooManyPlaces):
		errs.Set(name, "spec.error.places."+strconv.Itoa(places))
	case err != nil:
		errs.Set(name, "spec.error.number")
	case !d.IsPositive():
		errs.Set(name, "spec.error.positive")
	case d.GreaterThanOrEqual(limit):
		errs.Set(name, "spec.error.too_large")
	default:
		return decimal.NullDecimal{Decimal: d, Valid: true}
	}
	return decimal.NullDecimal{}
}

// specPositiveInt reads an optional whole number from 1 to gpuIntLimit.
func specPositiveInt(raw string, errs web.Errors, name string) *int {
	if raw == "" {
		return nil
	}
	n, err := strconv.Atoi(raw)
	switch {
	case err != nil || raw != strconv.Itoa(n):
		errs.Set(name, "spec.error.integer")
	case n < 1 || n > gpuIntLimit:
		errs.Set(name, "spec.error.int_range")
	default:
		return &n
	}
	return nil
}

// readGPU binds and validates the GPU model form. It returns the model to
// save and the form as typed, with every problem in its Errors.
func (s *Server) readGPU(c echo.Context, id int64) (market.GPUModel, web.GPUForm, error) {
	if _, err := c.FormParams(); err != nil {
		return market.GPUModel{}, web.GPUForm{}, err
	}
	errs := web.Errors{}
	val := func(name string) string { return strings.TrimSpace(c.FormValue(name)) }
	f := web.GPUForm{ID: id, Vendor: val("vendor"), Name: val("name"), VRAMGB: val("vram_gb"),
		MemoryBandwidthGBs: val("memory_bandwidth_gbs"), Interconnect: val("interconnect"),
		InterconnectGBs: val("interconnect_gbs"), TDPW: val("tdp_w"), BoostClockMHz: val("boost_clock_mhz"),
		LoadPowerMinW: val("load_power_min_w"), LoadPowerMaxW: val("load_power_max_w"),
		LoadClockMinMHz: val("load_clock_min_mhz"), LoadClockMaxMHz: val("load_clock_max_mhz"),
		Source: val("source"), AsOf: val("as_of"), Notes: val("notes"), Interconnects: interconnectOptions()}
	g := market.GPUModel{ID: id, Vendor: specText(c, errs, "vendor", 50), Name: specText(c, errs, "name", 100),
		Interconnect: f.Interconnect, Source: specText(c, errs, "source", 500), Notes: specText(c, errs, "notes", 5000)}
	if g.Vendor == "" {
		errs.Set("vendor", "spec.error.required")
	}
	if g.Name == "" {
		errs.Set("name", "spec.error.required")
	}
	if vram := specDecimal(f.VRAMGB, errs, "vram_gb", 2, gpuSpecLimit, true); vram.Valid {
		g.VRAMGB = vram.Decimal
	}
	g.MemoryBandwidthGBs = specDecimal(f.MemoryBandwidthGBs, errs, "memory_bandwidth_gbs", 2, gpuSpecLimit, false)
	if !slices.Contains(market.GPUInterconnects, g.Interconnect) {
		errs.Set("interconnect", "spec.error.choice")
	}
	g.InterconnectGBs = specDecimal(f.InterconnectGBs, errs, "interconnect_gbs", 2, gpuSpecLimit, false)
	g.TDPW = specPositiveInt(f.TDPW, errs, "tdp_w")
	g.BoostClockMHz = specPositiveInt(f.BoostClockMHz, errs, "boost_clock_mhz")
	g.LoadPowerMinW = specPositiveInt(f.LoadPowerMinW, errs, "load_power_min_w")
	g.LoadPowerMaxW = specPositiveInt(f.LoadPowerMaxW, errs, "load_power_max_w")
	if g.LoadPowerMinW != nil && g.LoadPowerMaxW != nil && *g.LoadPowerMaxW < *g.LoadPowerMinW {
		errs.Set("load_power_max_w", "gpu.error.range_order")
	}
	g.LoadClockMinMHz = specPositiveInt(f.LoadClockMinMHz, errs, "load_clock_min_mhz")
	g.LoadClockMaxMHz = specPositiveInt(f.LoadClockMaxMHz, errs, "load_clock_max_mhz")
	if g.LoadClockMinMHz != nil && g.LoadClockMaxMHz != nil && *g.LoadClockMaxMHz < *g.LoadClockMinMHz {
		errs.Set("load_clock_max_mhz", "gpu.error.range_order")
	}
	if f.AsOf != "" {
		d, err := time.Parse(time.DateOnly, f.AsOf)
		if err != nil {
			errs.Set("as_of", "form.date.invalid")
		} else {
			g.AsOf = &d
		}
	}
	for _, prec := range market.PerfPrecisions {
		row := web.GPUPerfField{Precision: prec, LabelID: perfLabelID(prec)}
		row.Nominal, row.NominalSource = val(row.Name("nominal")), val(row.Name("nominal_source"))
		row.Measured, row.MeasuredBenchmark, row.MeasuredSource = val(row.Name("measured")), val(row.Name("benchmark")), val(row.Name("measured_source"))
		switch c.FormValue(row.Name("sparse")) {
		case "":
		case "true":
			row.Sparse = true
		default:
			errs.Set(row.Name("sparse"), "spec.error.choice")
		}
		f.Perf = append(f.Perf, row)
		if row.Nominal == "" && row.NominalSource == "" && row.Measured == "" && row.MeasuredBenchmark == "" &&
			row.MeasuredSource == "" && !row.Sparse {
			continue // a row left empty: no figure for this precision
		}
		p := market.GPUPerf{Precision: prec, Sparse: row.Sparse,
			NominalSource:     specText(c, errs, row.Name("nominal_source"), 500),
			MeasuredBenchmark: specText(c, errs, row.Name("benchmark"), 500),
			MeasuredSource:    specText(c, errs, row.Name("measured_source"), 500)}
		if row.Nominal == "" {
			errs.Set(row.Name("nominal"), "perf.error.nominal_required")
		} else if n := specDecimal(row.Nominal, errs, row.Name("nominal"), 3, gpuTFLOPSLimit, true); n.Valid {
			p.NominalTFLOPS = n.Decimal
		}
		if p.NominalSource == "" {
			errs.Set(row.Name("nominal_source"), "perf.error.source_required")
		}
		// A measured reference figure names the benchmark that produced it.
		p.MeasuredTFLOPS = specDecimal(row.Measured, errs, row.Name("measured"), 3, gpuTFLOPSLimit, false)
		if row.Measured != "" && p.MeasuredBenchmark == "" {
			errs.Set(row.Name("benchmark"), "perf.error.benchmark_required")
		}
		if row.Measured == "" && (row.MeasuredBenchmark != "" || row.MeasuredSource != "") {
			errs.Set(row.Name("measured"), "perf.error.measured_required")
		}
		g.Perf = append(g.Perf, p)
	}
	if id != 0 {
		lv, err := strconv.Atoi(c.FormValue("lock_version"))
		if err != nil || lv < 1 {
			return market.GPUModel{}, web.GPUForm{}, echo.NewHTTPError(http.StatusBadRequest)
		}
		g.LockVersion = lv
	}
	f.LockVersion = g.LockVersion
	f.Errors = errs
	return g, f, nil
}

// gpuCreate is POST /gpus.
func (s *Server) gpuCreate(c echo.Context) error {
	g, f, err := s.readGPU(c, 0)
	if err != nil {
		return err
	}
	if len(f.Errors) == 0 {
		created, err := s.store.CreateGPUModel(c.Request().Context(), s.actor(c), g)
		switch {
		case errors.Is(err, store.ErrNameTaken):
			f.Errors.Set("name", "gpu.error.name_taken")
		case err != nil:
			return err
		default:
			return s.redirectWithFlash(c, "/gpus/"+strconv.FormatInt(created.ID, 10), "ok", "gpu.created")
		}
	}
	f.Page = s.page(c, "gpu.new")
	return s.render(c, http.StatusUnprocessableEntity, f.Page, web.GPUFormPage(f))
}

// gpuUpdate is POST /gpus/:id; a stale lock_version comes back as 409
// with the reader's input, like platformUpdate.
func (s *Server) gpuUpdate(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	g, f, err := s.readGPU(c, id)
	if err != nil {
		return err
	}
	status := http.StatusUnprocessableEntity
	if len(f.Errors) == 0 {
		_, err := s.store.UpdateGPUModel(c.Request().Context(), s.actor(c), g)
		switch {
		case errors.Is(err, store.ErrNameTaken):
			f.Errors.Set("name", "gpu.error.name_taken")
		case errors.Is(err, store.ErrConflict):
			cur, err := s.store.GPUModelByID(c.Request().Context(), id)
			if err != nil {
				return err
			}
			f.Conflict, f.LockVersion, status = true, cur.LockVersion, http.StatusConflict
		case err != nil:
			return err
		default:
			return s.redirectWithFlash(c, "/gpus/"+strconv.FormatInt(id, 10), "ok", "gpu.updated")
		}
	}
	f.Page = s.page(c, "gpu.edit")
	return s.render(c, status, f.Page, web.GPUFormPage(f))
}
