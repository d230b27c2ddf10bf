// Package market is the market data editors keep: rental platforms with
// their qualifications and answers to the SLA clauses and written
// confirmations, GPU models with their labelled performance figures, and
// dated reference prices and exchange rates. It holds the types and their
// validation; the store persists them.
package market

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
)

// PlatformQualifications are the platform qualification columns (docs/RULES.md §7.6),
// in display order. Each is yes, no or unknown.
var PlatformQualifications = []string{"idc_licence", "isp_licence", "iso27001", "mlps3", "third_party_guarantee"}

// PlatformSupportChannels are the support channel values a platform may have ("" is
// not known).
var PlatformSupportChannels = []string{"ticket", "chat_group", "phone"}

// PlatformGranularities are the billing granularities a platform may offer,
// finest first (the column's CHECK lists the same three).
var PlatformGranularities = []string{"second", "minute", "hour"}

// Platform is a rental platform. A nil qualification is not known — never
// silently "no".
type Platform struct {
	ID                   int64     `json:"id"`
	NameZH               string    `json:"name_zh"`
	NameEN               string    `json:"name_en"`
	Website              string    `json:"website"`
	Country              string    `json:"country"`
	Currency             string    `json:"currency"`
	OperatingSince       *int      `json:"operating_since"`
	IDCLicence           *bool     `json:"idc_licence"`
	ISPLicence           *bool     `json:"isp_licence"`
	ISO27001             *bool     `json:"iso27001"`
	MLPS3                *bool     `json:"mlps3"`
	ThirdPartyGuarantee  *bool     `json:"third_party_guarantee"`
	GuaranteeNote        string    `json:"guarantee_note"`
	SupportChannel       string    `json:"support_channel"`
	BillingGranularities []string  `json:"billing_granularities"`
	Notes                string    `json:"notes"`
	Aliases              []string  `json:"aliases"` // other names (docs/RULES.md §7.6)
	LockVersion          int       `json:"lock_version"`
	CreatedBy            int64     `json:"created_by"` // 0: the system
	CreatedAt            time.Time `json:"created_at"`
	UpdatedBy            int64     `json:"updated_by"` // 0: the system
	UpdatedAt            time.Time `json:"updated_at"`
}

// Qualification returns the qualification named by one of PlatformQualifications
// (nil for an unknown value or name).
func (p Platform) Qualification(name string) *bool {
	switch name {
	case "idc_licence":
		return p.IDCLicence
	case "isp_licence":
		return p.ISPLicence
	case "iso27001":
		return p.ISO27001
	case "mlps3":
		return p.MLPS3
	case "third_party_guarantee":
		return p.ThirdPartyGuarantee
	}
	return nil
}

// SetQualification sets the qualification named by one of PlatformQualifications.
func (p *Platform) SetQualification(name string, v *bool) {
	switch name {
	case "idc_licence":
		p.IDCLicence = v
	case "isp_licence":
		p.ISPLicence = v
	case "iso27001":
		p.ISO27001 = v
	case "mlps3":
		p.MLPS3 = v
	case "third_party_guarantee":
		p.ThirdPartyGuarantee = v
	}
}

// PlatformGPU names a platform × GPU model pair.
type PlatformGPU struct {
	PlatformID int64
	GPUModelID int64
}

// RefName is a platform or GPU model with the names people call it by, for
// the selects of the quote form and for resolving names in a CSV import.
type RefName struct {
	ID    int64
	Names []string
}

// PerfPrecisions are the precisions a GPU model has performance figures
// for, in display order (the gpu_model_perf CHECK lists the same four).
var PerfPrecisions = []string{"fp32", "tf32", "bf16", "fp8"}

// GPUInterconnects are the GPU interconnect kinds, in display order.
var GPUInterconnects = []string{"pcie", "nvlink", "other"}

// GPUModel is a GPU model's spec sheet. Nullable integers are nil when not
// known; Perf holds at most one row per precision, in PerfPrecisions order.
type GPUModel struct {
	ID                 int64               `json:"id"`
	Vendor             string              `json:"vendor"`
	Name               string              `json:"name"`
	VRAMGB             decimal.Decimal     `json:"vram_gb"`
	MemoryBandwidthGBs decimal.NullDecimal `json:"memory_bandwidth_gbs"`
	Interconnect       string              `json:"interconnect"`
	InterconnectGBs    decimal.NullDecimal `json:"interconnect_gbs"`
	TDPW               *int                `json:"tdp_w"`
	BoostClockMHz      *int                `json:"boost_clock_mhz"`
	// The healthy card under load: trial checks compare nvidia-smi's power
	// draw and SM clock to these ranges (docs/RULES.md §9.4).
	LoadPowerMinW   *int       `json:"load_power_min_w"`
	LoadPowerMaxW   *int       `json:"load_power_max_w"`
	LoadClockMinMHz *int       `json:"load_clock_min_mhz"`
	LoadClockMaxMHz *int       `json:"load_clock_max_mhz"`
	Source          string     `json:"source"`
	AsOf            *time.Time `json:"as_of"` // a date; nil when not known
	Notes           string     `json:"notes"`
	Aliases         []string   `json:"aliases"` // other names (docs/RULES.md §7.6)
	LockVersion     int        `json:"lock_version"`
	CreatedBy       int64      `json:"created_by"` // 0: the system
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedBy       int64      `json:"updated_by"` // 0: the system
	UpdatedAt       time.Time  `json:"updated_at"`
	Perf            []GPUPerf  `json:"perf"`
}

// GPUPerf is one labelled performance figure of a GPU model: never one
// unlabelled "TFLOPS", but a precision, dense or sparse, and a source; and
// optionally a reference measured figure with the benchmark that produced it.
type GPUPerf struct {
	Precision         string              `json:"precision"`
	NominalTFLOPS     decimal.Decimal     `json:"nominal_tflops"`
	Sparse            bool                `json:"sparse"`
	NominalSource     string              `json:"nominal_source"`
	MeasuredTFLOPS    decimal.NullDecimal `json:"measured_tflops"`
	MeasuredBenchmark string              `json:"measured_benchmark"`
	MeasuredSource    string              `json:"measured_source"`
}

// PerfFor returns the figure for precision, if the model has one.
func (g GPUModel) PerfFor(precision string) (GPUPerf, bool) {
	for _, p := range g.Perf {
		if p.Precision == precision {
			return p, true
		}
	}
	return GPUPerf{}, false
}

// FXRate is one dated exchange-rate sample: 1 Base = Rate Quote, as of AsOf.
type FXRate struct {
	ID     int64           `json:"id"`
	Base   string          `json:"base_currency"`
	Quote  string          `json:"quote_currency"`
	Rate   decimal.Decimal `json:"rate"`
	AsOf   time.Time       `json:"as_of"`
	Source string          `json:"source"`
}

// ReferencePrice is one dated sample of what a typical platform charges for
// a hidden-cost item, in one currency and unit: unconfirmed lines are
// priced with the one in force into the pessimistic TCO.
type ReferencePrice struct {
	ID        int64           `json:"id"`
	Item      string          `json:"item"`
	Currency  string          `json:"currency"`
	Unit      string          `json:"unit"`
	UnitPrice decimal.Decimal `json:"unit_price"`
	AsOf      time.Time       `json:"as_of"`
	Source    string          `json:"source"`
	CreatedAt time.Time       `json:"created_at"`
}

// MarketPrice is the market reference for one item, unit and currency:
// the highest unit price a published quote charges for it, as of a day
// within MarketReferenceDays before the evaluation (docs/RULES.md §3.6). It
// names the quote version it comes from.
type MarketPrice struct {
	Item      string
	Unit      string
	Currency  string
	UnitPrice decimal.Decimal
	QuoteID   int64
	AsOf      time.Time
}

// MarketReferenceDays is how old a published quote's as-of day may be for
// its charged prices to set the market reference.
const MarketReferenceDays = 180

// Kinds of platform terms: the six SLA clauses and the five written
// confirmations (catalog.SLAClauses, catalog.WrittenConfirmations).
const (
	TermKindSLA          = "sla"
	TermKindConfirmation = "confirmation"
)

// PlatformTerm is a platform's answer to one SLA clause or written
// confirmation. A term never saved has LockVersion 0 and no answer.
type PlatformTerm struct {
	PlatformID int64  `json:"platform_id"`
	Kind       string `json:"kind"`
	Key        string `json:"key"`
	Answer     string `json:"answer"`
	// InWriting: the answer is in the contract, terms of service or a
	// signed or stamped document (the guide's rule: only that counts).
	InWriting bool `json:"in_writing"`
	// AnsweredOn is the date of the answer, nil when not known.
	AnsweredOn    *time.Time `json:"answered_on"`
	LockVersion   int        `json:"lock_version"`
	UpdatedBy     int64      `json:"-"`
	UpdatedByName string     `json:"-"`
	UpdatedAt     time.Time  `json:"-"`
}

// Answered reports whether the term has an answer in writing; anything
// less is still a question to the vendor.
func (t PlatformTerm) Answered() bool { return t.InWriting && strings.TrimSpace(t.Answer) != "" }

// TermClause is one of the eleven terms every platform is asked about.
type TermClause struct {
	// Kind is TermKindSLA or TermKindConfirmation.
	Kind   string
	Clause catalog.Clause
}

// TermClauses lists the eleven terms in the order the pages show them: the
// six SLA clauses, then the five written confirmations.
func TermClauses() []TermClause {
	out := make([]TermClause, 0, len(catalog.SLAClauses)+len(catalog.WrittenConfirmations))
	for _, c := range catalog.SLAClauses {
		out = append(out, TermClause{TermKindSLA, c})
	}
	for _, c := range catalog.WrittenConfirmations {
		out = append(out, TermClause{TermKindConfirmation, c})
	}
	return out
}

// TermsByKey indexes terms by "kind.key".
func TermsByKey(terms []PlatformTerm) map[string]PlatformTerm {
	out := make(map[string]PlatformTerm, len(terms))
	for _, t := range terms {
		out[t.Kind+"."+t.Key] = t
	}
	return out
}
