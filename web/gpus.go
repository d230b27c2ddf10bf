package web

import (
	"net/url"
	"strconv"
	"time"

	"gpuquote/internal/market"
)

// GPURow is one line of the GPU model list; figures are formatted.
type GPURow struct {
	ID              int64
	Vendor          string
	Name            string
	VRAMGB          string
	MemoryBandwidth string
	InterconnectID  string
	InterconnectGBs string
	TDPW            string
}

// GPUsView is the GPU model list's view model.
type GPUsView struct {
	Page          Page
	Rows          []GPURow
	Pager         Pager
	Query         string
	Interconnect  string
	Interconnects []Option
	// Filtered is set when any filter is on (the empty state differs).
	Filtered bool
	CanEdit  bool
}

// GPUPerfRow is one precision's figures on the GPU detail page, formatted.
type GPUPerfRow struct {
	PrecisionID   string
	Nominal       string
	Sparse        bool
	NominalSource string
	// Measured is the reference measured figure, "" when there is none.
	Measured          string
	MeasuredBenchmark string
	MeasuredSource    string
}

// DensityID is the catalog message saying whether the nominal figure is
// dense or sparse.
func (r GPUPerfRow) DensityID() string {
	if r.Sparse {
		return "perf.sparse"
	}
	return "perf.dense"
}

// GPUView is the GPU model detail page's view model; figures are
// formatted, "" where not known.
type GPUView struct {
	Page            Page
	ID              int64
	Vendor          string
	Name            string
	VRAMGB          string
	MemoryBandwidth string
	InterconnectID  string
	InterconnectGBs string
	TDPW            string
	BoostClockMHz   string
	// LoadPower and LoadClock are the ranges of a healthy card under load.
	LoadPower   string
	LoadClock   string
	Source      string
	AsOf        string
	Notes       string
	Aliases     []string
	Perf        []GPUPerfRow
	LockVersion int
	UpdatedAt   time.Time
	CanEdit     bool
}

// GPUPerfField is one precision's row of inputs on the GPU form.
type GPUPerfField struct {
	Precision         string
	LabelID           string
	Nominal           string
	Sparse            bool
	NominalSource     string
	Measured          string
	MeasuredBenchmark string
	MeasuredSource    string
}

// Name is the form field name of one part of the row ("nominal",
// "sparse", "nominal_source", "measured", "benchmark", "measured_source").
func (f GPUPerfField) Name(part string) string { return market.PerfField(f.Precision, part) }

// GPUForm is the state of the new and edit GPU model forms.
type GPUForm struct {
	Page Page
	// ID is the model being edited, 0 for a new one.
	ID                 int64
	Vendor             string
	Name               string
	VRAMGB             string
	MemoryBandwidthGBs string
	Interconnect       string
	InterconnectGBs    string
	TDPW               string
	BoostClockMHz      string
	LoadPowerMinW      string
	LoadPowerMaxW      string
	LoadClockMinMHz    string
	LoadClockMaxMHz    string
	Source             string
	AsOf               string
	Notes              string
	Aliases            string // one per line (docs/RULES.md §7.6)
	Interconnects      []Option
	Perf               []GPUPerfField
	// LockVersion is the version the form edits; a save names it.
	LockVersion int
	Errors      Errors
	// Conflict is set when someone else saved the model after this form was
	// opened: the reader's input is kept, LockVersion is the current one,
	// and saving again overwrites the other change.
	Conflict bool
}

// Action is where the form posts (and where cancelling returns).
func (f GPUForm) Action() string {
	if f.ID == 0 {
		return "/gpus"
	}
	return "/gpus/" + strconv.FormatInt(f.ID, 10)
}

// GPUsRecords is one page of the GPU model list for its filters: a
// search text and an interconnect ("" for any); CanEdit says the reader
// may add one.
type GPUsRecords struct {
	Query, Interconnect  string
	CanEdit              bool
	GPUs                 []market.GPUModel
	Page, PerPage, Total int
}

// NewGPUsView builds the GPU model list: its filters, its pager and its
// rows.
func NewGPUsView(in GPUsRecords) GPUsView {
	v := GPUsView{Query: in.Query, Interconnect: in.Interconnect, Interconnects: InterconnectOptions(), CanEdit: in.CanEdit}
	// "Nothing matches" rather than "nothing entered yet" also past the last page.
	v.Filtered = v.Query != "" || v.Interconnect != "" || in.Total > 0
	v.Pager = Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total,
		Base: listURL("/gpus", url.Values{"q": {v.Query}, "interconnect": {v.Interconnect}})}
	for _, g := range in.GPUs {
		v.Rows = append(v.Rows, NewGPURow(g))
	}
	return v
}

// TitleID is the form's title: a new GPU model's or an edit's.
func (f GPUForm) TitleID() string {
	if f.ID == 0 {
		return "gpu.new"
	}
	return "gpu.edit"
}
