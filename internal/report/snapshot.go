// Package report freezes a comparison into the snapshot of a saved TCO
// report and reads it back. A snapshot holds everything a report shows —
// the page state, the usage profile, the quote versions compared with all
// their prices and lines, the dated exchange rates and reference prices,
// the engine's rules version, every computed figure and the questions for
// each vendor — so a report renders, exports and compares from it alone
// and says the same thing next year, whatever happens to prices. It does
// no IO.
//
// The snapshot is versioned and every field is explicitly JSON-tagged;
// decimals travel as JSON strings (shopspring/decimal), never as floats.
package report

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
)

// SnapshotVersion is the format version of snapshots written now.
const SnapshotVersion = 1

// Snapshot is a comparison frozen at the moment a report was saved.
type Snapshot struct {
	// Version is the snapshot format (SnapshotVersion).
	Version int `json:"version"`
	// RulesVersion is the engine's rules edition that computed the figures.
	RulesVersion string `json:"rules_version"`
	// FiguresDate is the day the figures were computed for (rates and
	// reference prices in force, quote staleness), YYYY-MM-DD.
	FiguresDate string `json:"figures_date"`
	// Values is the comparison page's state: profile fields,
	// report_currency, q (the quote versions), sort and dir.
	Values map[string][]string `json:"values"`
	// ReportCurrency is the currency of every amount.
	ReportCurrency string `json:"report_currency"`
	// Profile is the usage profile the quotes were priced for.
	Profile Profile `json:"profile"`
	// VRAMFloorGB is the task's VRAM floor per GPU, when the profile names one.
	VRAMFloorGB decimal.NullDecimal `json:"vram_floor_gb"`
	// Sort and Descending are the table's order.
	Sort       string `json:"sort"`
	Descending bool   `json:"descending"`
	// FXRates are the dated rates into ReportCurrency of the quotes'
	// currencies that had one.
	FXRates []FXRate `json:"fx_rates"`
	// ReferencePrices are those in force that could price a compared
	// quote's unconfirmed lines into the pessimistic TCO: under rules
	// 2026.1 the editors' in the quotes' currencies; from 2027.1 the
	// editors' then the market's, in any currency with a rate into a
	// quote's (docs/RULES.md §3.6).
	ReferencePrices []ReferencePrice `json:"reference_prices"`
	// ReferenceRates are the dated rates that converted reference prices
	// into the quotes' currencies (rules 2027.1 and later).
	ReferenceRates []FXRate `json:"reference_rates,omitempty"`
	// Rows are the compared quotes in table order.
	Rows []Row `json:"rows"`
	// ScenarioB is the second usage profile and the same quotes' figures
	// for it, when the comparison had one (docs/RULES.md §8.5).
	ScenarioB *Scenario `json:"scenario_b,omitempty"`
	// Own are the own-hardware options compared beside the quotes, in the
	// order they were asked for (docs/RULES.md §11.7); absent from a
	// snapshot without any, so its bytes are what they always were.
	Own []OwnRow `json:"own,omitempty"`
	// Availability is each compared platform × GPU model's record of
	// attempts to get GPUs, as the comparison showed it (docs/RULES.md
	// §18.2); absent from a snapshot without any, so its bytes are what
	// they always were.
	Availability []AvailabilityStat `json:"availability,omitempty"`
	// Facts are the compared platforms' facts as the comparison showed
	// them on FiguresDate (docs/RULES.md §18.3), each kind's answer in
	// force, unknown ones included; absent from a snapshot saved before
	// reports kept them, so its bytes are what they always were.
	Facts []PlatformFacts `json:"facts,omitempty"`
}

// PlatformFacts are one compared platform's facts in a snapshot, in the
// order of the kinds of fact.
type PlatformFacts struct {
	PlatformID int64        `json:"platform_id"`
	NameZH     string       `json:"name_zh"`
	NameEN     string       `json:"name_en"`
	Facts      []FactAnswer `json:"facts"`
}

// FactAnswer is one kind of fact's answer in force when the report was
// saved: yes, no or unknown, the measured minutes of a measured yes, and
// the record it came from (its day, source and id; none for a kind never
// recorded).
type FactAnswer struct {
	Kind    string `json:"kind"`
	Value   string `json:"value"`
	Minutes *int   `json:"minutes,omitempty"`
	AsOf    string `json:"as_of,omitempty"`
	Source  string `json:"source,omitempty"`
	FactID  int64  `json:"fact_id,omitempty"`
}

// Scenario is a second usage profile of a comparison: the fields it
// changed from the first, the whole profile, and every quote's figures.
type Scenario struct {
	// Changes are the profile fields B changed, by field name
	// ("profile.hours_per_month"), as given.
	Changes map[string]string `json:"changes"`
	Profile Profile           `json:"profile"`
	// Rows follow the report's rows, one per quote.
	Rows []ScenarioRow `json:"rows"`
}

// ScenarioRow is one quote's figures under profile B.
type ScenarioRow struct {
	QuoteID int64     `json:"quote_id"`
	Reasons []Message `json:"reasons"`
	Priced  bool      `json:"priced"`
	Result  *Result   `json:"result,omitempty"`
}

// ScenarioRowOf returns profile B's row of a quote.
func (s Snapshot) ScenarioRowOf(quoteID int64) (ScenarioRow, bool) {
	if s.ScenarioB == nil {
		return ScenarioRow{}, false
	}
	for _, r := range s.ScenarioB.Rows {
		if r.QuoteID == quoteID {
			return r, true
		}
	}
	return ScenarioRow{}, false
}

// Profile is the usage profile (docs/RULES.md §2.1), field by field.
type Profile struct {
	HoursPerMonth         decimal.Decimal     `json:"hours_per_month"`
	Months                int                 `json:"months"`
	Instances             int                 `json:"instances"`
	StartsPerMonth        int                 `json:"starts_per_month"`
	BetweenRuns           string              `json:"between_runs"`
	Resumable             bool                `json:"resumable"`
	SpotOverhead          decimal.NullDecimal `json:"spot_overhead"`
	Mbps                  decimal.Decimal     `json:"mbps"`
	SystemDiskGB          decimal.Decimal     `json:"system_disk_gb"`
	DataDiskGB            decimal.Decimal     `json:"data_disk_gb"`
	ObjectStorageGB       decimal.Decimal     `json:"object_storage_gb"`
	SnapshotGB            decimal.Decimal     `json:"snapshot_gb"`
	ImageGB               decimal.Decimal     `json:"image_gb"`
	EgressGBPerMonth      decimal.Decimal     `json:"egress_gb_per_month"`
	MigrationGB           decimal.Decimal     `json:"migration_gb"`
	PublicIPs             int                 `json:"public_ips"`
	TokensPerSecondPerGPU decimal.NullDecimal `json:"tokens_per_second_per_gpu"`
	PerformanceRatio      decimal.NullDecimal `json:"performance_ratio"`
	Task                  string              `json:"task"`
	ParamsBillions        decimal.NullDecimal `json:"params_billions"`
	Precision             string              `json:"precision"`
}

// FXRate is a dated exchange rate: 1 Base = Rate Quote.
type FXRate struct {
	Base  string          `json:"base"`
	Quote string          `json:"quote"`
	Rate  decimal.Decimal `json:"rate"`
	// Date is YYYY-MM-DD, empty when the rate was not dated.
	Date string `json:"date"`
}

// ReferencePrice is a reference price for one item and unit: an
// editor's, or the market reference a published quote charges.
type ReferencePrice struct {
	Item      string          `json:"item"`
	Currency  string          `json:"currency"`
	Unit      string          `json:"unit"`
	UnitPrice decimal.Decimal `json:"unit_price"`
	// Date is the sample's (or the market quote's) YYYY-MM-DD, empty when
	// not known.
	Date string `json:"date"`
	// Source is "editor" or "market" (rules 2027.1; empty before, when
	// every reference was an editor's). QuoteID names the market quote.
	Source  string `json:"source,omitempty"`
	QuoteID int64  `json:"quote_id,omitempty"`
}

// Quote is one quote version as it was compared, with the names it was
// shown under.
type Quote struct {
	ID                   int64               `json:"id"`
	SeriesID             int64               `json:"series_id"`
	Version              int                 `json:"version"`
	State                string              `json:"state"`
	PlatformID           int64               `json:"platform_id"`
	PlatformNameZH       string              `json:"platform_name_zh"`
	PlatformNameEN       string              `json:"platform_name_en"`
	Label                string              `json:"label"`
	GPUCount             int                 `json:"gpu_count"`
	VRAMGB               decimal.NullDecimal `json:"vram_gb"`
	Sharing              string              `json:"sharing"`
	CPUCores             *int                `json:"cpu_cores"`
	RAMGB                decimal.NullDecimal `json:"ram_gb"`
	IncludedSystemDiskGB decimal.Decimal     `json:"included_system_disk_gb"`
	IncludedDataDiskGB   decimal.Decimal     `json:"included_data_disk_gb"`
	IncludedMbps         decimal.Decimal     `json:"included_mbps"`
	Region               string              `json:"region"`
	Currency             string              `json:"currency"`
	Hourly               decimal.NullDecimal `json:"hourly"`
	Monthly              decimal.NullDecimal `json:"monthly"`
	Yearly               decimal.NullDecimal `json:"yearly"`
	SpotHourly           decimal.NullDecimal `json:"spot_hourly"`
	BillingGranularity   string              `json:"billing_granularity"`
	CommitmentMonths     int                 `json:"commitment_months"`
	EarlyTerminationPct  decimal.NullDecimal `json:"early_termination_pct"`
	Deposit              decimal.NullDecimal `json:"deposit"`
	DepositRefundable    *bool               `json:"deposit_refundable"`
	BalanceWithdrawable  *bool               `json:"balance_withdrawable"`
	PricesIncludeTax     bool                `json:"prices_include_tax"`
	TaxRate              decimal.Decimal     `json:"tax_rate"`
	InvoiceType          string              `json:"invoice_type"`
	SLAAvailabilityPct   decimal.NullDecimal `json:"sla_availability_pct"`
	SLACompensation      string              `json:"sla_compensation"`
	AsOf                 string              `json:"as_of"`
	Source               string              `json:"source"`
	Notes                string              `json:"notes"`
	Lines                []QuoteLine         `json:"lines"`
}

// QuoteLine is one of a quote's twelve hidden-cost answers.
type QuoteLine struct {
	Item          string              `json:"item"`
	Status        string              `json:"status"`
	Unit          string              `json:"unit"`
	UnitPrice     decimal.NullDecimal `json:"unit_price"`
	FreeAllowance decimal.Decimal     `json:"free_allowance"`
	Note          string              `json:"note"`
	InWriting     bool                `json:"in_writing"`
}

// GPU is the GPU model of a quote, as far as a comparison uses it.
type GPU struct {
	ID           int64           `json:"id"`
	Vendor       string          `json:"vendor"`
	Name         string          `json:"name"`
	VRAMGB       decimal.Decimal `json:"vram_gb"`
	Interconnect string          `json:"interconnect"`
}

// Message is a catalog message with its arguments (reasons, questions).
// Arguments are stored as text, as they were rendered.
type Message struct {
	ID   string            `json:"id"`
	Args map[string]string `json:"args,omitempty"`
}

// QuestionGroup is the questions a quote raised under one written
// confirmation or SLA clause (vendorq.Group).
type QuestionGroup struct {
	Kind      string    `json:"kind"`
	LabelID   string    `json:"label_id"`
	Number    int       `json:"number"`
	Questions []Message `json:"questions"`
}

// Row is one compared quote: the quote version, why the profile rules it
// out (if it does), the engine's figures when it could be priced, and the
// questions to send its vendor.
type Row struct {
	Quote               Quote           `json:"quote"`
	GPU                 GPU             `json:"gpu"`
	Reasons             []Message       `json:"reasons"`
	Priced              bool            `json:"priced"`
	Result              *Result         `json:"result,omitempty"`
	CheapestConfirmed   bool            `json:"cheapest_confirmed"`
	CheapestPessimistic bool            `json:"cheapest_pessimistic"`
	Questions           []QuestionGroup `json:"questions"`
}

// Eligible reports whether the profile left the quote in the running.
func (r Row) Eligible() bool { return len(r.Reasons) == 0 && r.Priced && r.Result != nil }

// Result is the engine's result for one quote (tco.Result).
type Result struct {
	QuoteCurrency   string              `json:"quote_currency"`
	ReportCurrency  string              `json:"report_currency"`
	FXRate          decimal.Decimal     `json:"fx_rate"`
	FXDate          string              `json:"fx_date"`
	ChosenMode      string              `json:"chosen_mode"`
	BreakEvenHours  decimal.NullDecimal `json:"break_even_hours"`
	BreakEvenMonths decimal.NullDecimal `json:"break_even_months"`
	Modes           []ModeResult        `json:"modes"`
	ComputeTotal    decimal.Decimal     `json:"compute_total"`
	HiddenTotal     decimal.Decimal     `json:"hidden_total"`
	OneOffTotal     decimal.Decimal     `json:"one_off_total"`
	TCO             decimal.Decimal     `json:"tco"`
	TCOPessimistic  decimal.Decimal     `json:"tco_pessimistic"`
	HiddenShare     decimal.NullDecimal `json:"hidden_share"`
	// PessimisticUnpriced and HiddenSharePessimistic came with rules
	// 2027.1: the unconfirmed items no reference priced, and the hidden
	// share of the pessimistic TCO.
	PessimisticUnpriced    []string            `json:"pessimistic_unpriced,omitempty"`
	HiddenSharePessimistic decimal.NullDecimal `json:"hidden_share_pessimistic,omitzero"`
	EffectivePerGPUHour    decimal.Decimal     `json:"effective_per_gpu_hour"`
	PerReferenceGPUHour    decimal.NullDecimal `json:"per_reference_gpu_hour"`
	CostPerMillionTokens   decimal.NullDecimal `json:"cost_per_million_tokens"`
	Lines                  []LineResult        `json:"lines"`
	Flags                  []string            `json:"flags"`
	VRAMFloorGB            decimal.NullDecimal `json:"vram_floor_gb"`
}

// ModeResult is one billing mode's figures (tco.ModeResult).
type ModeResult struct {
	Mode                  string              `json:"mode"`
	Status                string              `json:"status"`
	BillableHoursPerMonth decimal.NullDecimal `json:"billable_hours_per_month"`
	BilledPeriods         int                 `json:"billed_periods"`
	ComputeTotal          decimal.Decimal     `json:"compute_total"`
	HiddenTotal           decimal.Decimal     `json:"hidden_total"`
	OneOffTotal           decimal.Decimal     `json:"one_off_total"`
	TCO                   decimal.Decimal     `json:"tco"`
	TCOPessimistic        decimal.Decimal     `json:"tco_pessimistic"`
}

// LineResult is one hidden-cost line of a result (tco.LineResult).
type LineResult struct {
	Item               string              `json:"item"`
	Status             string              `json:"status"`
	Quantity           decimal.Decimal     `json:"quantity"`
	Unit               string              `json:"unit"`
	UnitPrice          decimal.NullDecimal `json:"unit_price"`
	FreeAllowance      decimal.Decimal     `json:"free_allowance"`
	Amount             decimal.Decimal     `json:"amount"`
	ReferenceUnitPrice decimal.NullDecimal `json:"reference_unit_price"`
	ReferenceAmount    decimal.NullDecimal `json:"reference_amount"`
	// ReferenceSource and ReferenceQuoteID say whose reference priced the
	// line (rules 2027.1).
	ReferenceSource  string `json:"reference_source,omitempty"`
	ReferenceQuoteID int64  `json:"reference_quote_id,omitempty"`
	OneOff           bool   `json:"one_off"`
}

// DateText is a date as YYYY-MM-DD, or "" for the zero time.
func DateText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

// ParseDate reads DateText back (the zero time for "").
func ParseDate(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// MessageOf keeps a message's arguments as the text they render as.
func MessageOf(id string, args map[string]any) Message {
	m := Message{ID: id}
	if len(args) > 0 {
		m.Args = make(map[string]string, len(args))
		for k, v := range args {
			switch x := v.(type) {
			case string:
				m.Args[k] = x
			case int:
				m.Args[k] = strconv.Itoa(x)
			case decimal.Decimal:
				m.Args[k] = x.String()
			default:
				m.Args[k] = fmt.Sprint(x)
			}
		}
	}
	return m
}

// ArgsMap returns the message's arguments for a translator.
func (m Message) ArgsMap() map[string]any {
	out := make(map[string]any, len(m.Args))
	for k, v := range m.Args {
		out[k] = v
	}
	return out
}

func ProfileOf(p tco.Profile) Profile {
	return Profile{HoursPerMonth: p.HoursPerMonth, Months: p.Months, Instances: p.Instances, StartsPerMonth: p.StartsPerMonth,
		BetweenRuns: string(p.BetweenRuns), Resumable: p.Resumable, SpotOverhead: p.SpotOverhead, Mbps: p.Mbps,
		SystemDiskGB: p.SystemDiskGB, DataDiskGB: p.DataDiskGB, ObjectStorageGB: p.ObjectStorageGB, SnapshotGB: p.SnapshotGB,
		ImageGB: p.ImageGB, EgressGBPerMonth: p.EgressGBPerMonth, MigrationGB: p.MigrationGB, PublicIPs: p.PublicIPs,
		TokensPerSecondPerGPU: p.TokensPerSecondPerGPU, PerformanceRatio: p.PerformanceRatio, Task: string(p.Task),
		ParamsBillions: p.ParamsBillions, Precision: string(p.Precision)}
}

// TCOProfile is the frozen profile as the engine's.
func (p Profile) TCOProfile() tco.Profile {
	return tco.Profile{HoursPerMonth: p.HoursPerMonth, Months: p.Months, Instances: p.Instances, StartsPerMonth: p.StartsPerMonth,
		BetweenRuns: catalog.BetweenRuns(p.BetweenRuns), Resumable: p.Resumable, SpotOverhead: p.SpotOverhead, Mbps: p.Mbps,
		SystemDiskGB: p.SystemDiskGB, DataDiskGB: p.DataDiskGB, ObjectStorageGB: p.ObjectStorageGB, SnapshotGB: p.SnapshotGB,
		ImageGB: p.ImageGB, EgressGBPerMonth: p.EgressGBPerMonth, MigrationGB: p.MigrationGB, PublicIPs: p.PublicIPs,
		TokensPerSecondPerGPU: p.TokensPerSecondPerGPU, PerformanceRatio: p.PerformanceRatio, Task: catalog.Task(p.Task),
		ParamsBillions: p.ParamsBillions, Precision: catalog.Precision(p.Precision)}
}

func QuoteOf(q quote.Quote) Quote {
	out := Quote{ID: q.ID, SeriesID: q.SeriesID, Version: q.Version, State: q.State, PlatformID: q.PlatformID,
		PlatformNameZH: q.PlatformNameZH, PlatformNameEN: q.PlatformNameEN, Label: q.Label, GPUCount: q.GPUCount,
		VRAMGB: q.VRAMGB, Sharing: q.Sharing, CPUCores: q.CPUCores, RAMGB: q.RAMGB, IncludedSystemDiskGB: q.IncludedSystemDiskGB,
		IncludedDataDiskGB: q.IncludedDataDiskGB, IncludedMbps: q.IncludedMbps, Region: q.Region, Currency: q.Currency,
		Hourly: q.Hourly, Monthly: q.Monthly, Yearly: q.Yearly, SpotHourly: q.SpotHourly, BillingGranularity: q.BillingGranularity,
		CommitmentMonths: q.CommitmentMonths, EarlyTerminationPct: q.EarlyTerminationPct, Deposit: q.Deposit,
		DepositRefundable: q.DepositRefundable, BalanceWithdrawable: q.BalanceWithdrawable, PricesIncludeTax: q.PricesIncludeTax,
		TaxRate: q.TaxRate, InvoiceType: q.InvoiceType, SLAAvailabilityPct: q.SLAAvailabilityPct, SLACompensation: q.SLACompensation,
		AsOf: DateText(q.AsOf), Source: q.Source, Notes: q.Notes, Lines: []QuoteLine{}}
	for _, l := range q.Lines {
		out.Lines = append(out.Lines, NewQuoteLine(l))
	}
	return out
}

// NewQuoteLine is a quote's hidden-cost line as a snapshot keeps it and
// the data API shows it.
func NewQuoteLine(l quote.Line) QuoteLine {
	return QuoteLine{Item: l.Item, Status: l.Status, Unit: l.Unit, UnitPrice: l.UnitPrice,
		FreeAllowance: l.FreeAllowance, Note: l.Note, InWriting: l.InWriting}
}

// AsQuote is the frozen quote as a quote.Quote (with the names it was
// shown under), for the comparison's formatting code.
func (q Quote) AsQuote(g GPU) quote.Quote {
	out := quote.Quote{ID: q.ID, SeriesID: q.SeriesID, Version: q.Version, State: q.State, PlatformID: q.PlatformID,
		GPUModelID: g.ID, Label: q.Label, GPUCount: q.GPUCount, VRAMGB: q.VRAMGB, Sharing: q.Sharing, CPUCores: q.CPUCores,
		RAMGB: q.RAMGB, IncludedSystemDiskGB: q.IncludedSystemDiskGB, IncludedDataDiskGB: q.IncludedDataDiskGB,
		IncludedMbps: q.IncludedMbps, Region: q.Region, Currency: q.Currency, Hourly: q.Hourly, Monthly: q.Monthly,
		Yearly: q.Yearly, SpotHourly: q.SpotHourly, BillingGranularity: q.BillingGranularity, CommitmentMonths: q.CommitmentMonths,
		EarlyTerminationPct: q.EarlyTerminationPct, Deposit: q.Deposit, DepositRefundable: q.DepositRefundable,
		BalanceWithdrawable: q.BalanceWithdrawable, PricesIncludeTax: q.PricesIncludeTax, TaxRate: q.TaxRate,
		InvoiceType: q.InvoiceType, SLAAvailabilityPct: q.SLAAvailabilityPct, SLACompensation: q.SLACompensation,
		AsOf: ParseDate(q.AsOf), Source: q.Source, Notes: q.Notes, PlatformNameZH: q.PlatformNameZH,
		PlatformNameEN: q.PlatformNameEN, GPUVendor: g.Vendor, GPUName: g.Name}
	for _, l := range q.Lines {
		out.Lines = append(out.Lines, quote.Line{Item: l.Item, Status: l.Status, Unit: l.Unit, UnitPrice: l.UnitPrice,
			FreeAllowance: l.FreeAllowance, Note: l.Note, InWriting: l.InWriting})
	}
	return out
}

func ResultOf(r tco.Result) Result {
	out := Result{QuoteCurrency: r.QuoteCurrency, ReportCurrency: r.ReportCurrency, FXRate: r.FXRate, FXDate: DateText(r.FXDate),
		ChosenMode: string(r.ChosenMode), BreakEvenHours: r.BreakEvenHours, BreakEvenMonths: r.BreakEvenMonths,
		ComputeTotal: r.ComputeTotal, HiddenTotal: r.HiddenTotal, OneOffTotal: r.OneOffTotal, TCO: r.TCO,
		TCOPessimistic: r.TCOPessimistic, HiddenShare: r.HiddenShare, EffectivePerGPUHour: r.EffectivePerGPUHour,
		PerReferenceGPUHour: r.PerReferenceGPUHour, CostPerMillionTokens: r.CostPerMillionTokens, VRAMFloorGB: r.VRAMFloorGB,
		HiddenSharePessimistic: r.HiddenSharePessimistic, Modes: []ModeResult{}, Lines: []LineResult{}, Flags: []string{}}
	for _, it := range r.PessimisticUnpriced {
		out.PessimisticUnpriced = append(out.PessimisticUnpriced, string(it))
	}
	for _, m := range r.Modes {
		out.Modes = append(out.Modes, ModeResult{Mode: string(m.Mode), Status: string(m.Status), BillableHoursPerMonth: m.BillableHoursPerMonth,
			BilledPeriods: m.BilledPeriods, ComputeTotal: m.ComputeTotal, HiddenTotal: m.HiddenTotal, OneOffTotal: m.OneOffTotal,
			TCO: m.TCO, TCOPessimistic: m.TCOPessimistic})
	}
	for _, l := range r.Lines {
		out.Lines = append(out.Lines, LineResult{Item: string(l.Item), Status: string(l.Status), Quantity: l.Quantity, Unit: string(l.Unit),
			UnitPrice: l.UnitPrice, FreeAllowance: l.FreeAllowance, Amount: l.Amount, ReferenceUnitPrice: l.ReferenceUnitPrice,
			ReferenceAmount: l.ReferenceAmount, ReferenceSource: string(l.ReferenceSource), ReferenceQuoteID: l.ReferenceQuoteID,
			OneOff: l.OneOff})
	}
	for _, f := range r.Flags {
		out.Flags = append(out.Flags, string(f))
	}
	return out
}

// TCOResult is the frozen result as the engine's.
func (r Result) TCOResult() tco.Result {
	out := tco.Result{QuoteCurrency: r.QuoteCurrency, ReportCurrency: r.ReportCurrency, FXRate: r.FXRate, FXDate: ParseDate(r.FXDate),
		ChosenMode: catalog.Mode(r.ChosenMode), BreakEvenHours: r.BreakEvenHours, BreakEvenMonths: r.BreakEvenMonths,
		ComputeTotal: r.ComputeTotal, HiddenTotal: r.HiddenTotal, OneOffTotal: r.OneOffTotal, TCO: r.TCO,
		TCOPessimistic: r.TCOPessimistic, HiddenShare: r.HiddenShare, EffectivePerGPUHour: r.EffectivePerGPUHour,
		PerReferenceGPUHour: r.PerReferenceGPUHour, CostPerMillionTokens: r.CostPerMillionTokens, VRAMFloorGB: r.VRAMFloorGB,
		HiddenSharePessimistic: r.HiddenSharePessimistic}
	for _, it := range r.PessimisticUnpriced {
		out.PessimisticUnpriced = append(out.PessimisticUnpriced, catalog.ItemKey(it))
	}
	for _, m := range r.Modes {
		out.Modes = append(out.Modes, tco.ModeResult{Mode: catalog.Mode(m.Mode), Status: catalog.ModeStatus(m.Status),
			BillableHoursPerMonth: m.BillableHoursPerMonth, BilledPeriods: m.BilledPeriods, ComputeTotal: m.ComputeTotal,
			HiddenTotal: m.HiddenTotal, OneOffTotal: m.OneOffTotal, TCO: m.TCO, TCOPessimistic: m.TCOPessimistic})
	}
	for _, l := range r.Lines {
		out.Lines = append(out.Lines, tco.LineResult{Item: catalog.ItemKey(l.Item), Status: catalog.Status(l.Status), Quantity: l.Quantity,
			Unit: catalog.Unit(l.Unit), UnitPrice: l.UnitPrice, FreeAllowance: l.FreeAllowance, Amount: l.Amount,
			ReferenceUnitPrice: l.ReferenceUnitPrice, ReferenceAmount: l.ReferenceAmount,
			ReferenceSource: tco.ReferenceSource(l.ReferenceSource), ReferenceQuoteID: l.ReferenceQuoteID, OneOff: l.OneOff})
	}
	for _, f := range r.Flags {
		out.Flags = append(out.Flags, catalog.Flag(f))
	}
	return out
}

// RulesNamingUnpriced is the rules edition that made the pessimistic TCO say
// what it leaves out (docs/RULES.md §3.6): market references, the items no
// reference priced and the pessimistic hidden share.
const RulesNamingUnpriced = "2027.1"

// NamesUnpriced reports whether the snapshot's rules name the items its
// pessimistic TCO leaves out (RulesNamingUnpriced or later); a report saved
// under older rules shows and exports what it always did.
func (s Snapshot) NamesUnpriced() bool { return RulesAtLeast(s.RulesVersion, RulesNamingUnpriced) }

// RulesAtLeast compares rules editions written YEAR.N.
func RulesAtLeast(v, min string) bool {
	parse := func(s string) (int, int) {
		y, n, _ := strings.Cut(s, ".")
		yi, _ := strconv.Atoi(y)
		ni, _ := strconv.Atoi(n)
		return yi, ni
	}
	vy, vn := parse(v)
	my, mn := parse(min)
	return vy > my || (vy == my && vn >= mn)
}

// PageValues is the frozen page state, for links and recomputing.
func (s Snapshot) PageValues() url.Values {
	out := url.Values{}
	for k, vs := range s.Values {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// Rate returns the frozen rate of a quote currency into the report
// currency (1 for the same currency) and its date; ok is false when the
// comparison held none.
func (s Snapshot) Rate(currency string) (rate decimal.Decimal, date string, ok bool) {
	if currency == s.ReportCurrency {
		return decimal.New(1, 0), "", true
	}
	for _, r := range s.FXRates {
		if r.Base == currency {
			return r.Rate, r.Date, true
		}
	}
	return decimal.Decimal{}, "", false
}

// PlatformIDs lists the platforms of the compared quotes, once each.
func (s Snapshot) PlatformIDs() []int64 {
	var out []int64
	for _, r := range s.Rows {
		if !slices.Contains(out, r.Quote.PlatformID) {
			out = append(out, r.Quote.PlatformID)
		}
	}
	slices.Sort(out)
	return out
}
