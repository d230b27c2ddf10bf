package server

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/web"
)

// The quote entry form and the CSV import read a quote from the same named
// fields, so one set of rules validates both. Per-line fields are named
// "<item>.<field>", e.g. "egress.unit_price" (the CSV's column groups).

// QuoteFields lists the quote-level input names, in form and CSV order.
var QuoteFields = []string{
	"platform", "gpu_model", "label", "gpu_count", "vram_gb", "sharing", "cpu_cores", "ram_gb",
	"included_system_disk_gb", "included_data_disk_gb", "included_mbps", "region", "currency",
	"hourly", "monthly", "yearly", "spot_hourly", "billing_granularity", "commitment_months",
	"early_termination_pct", "deposit", "deposit_refundable", "balance_withdrawable",
	"prices_include_tax", "tax_rate", "invoice_type", "sla_availability_pct", "sla_compensation",
	"as_of", "source", "notes",
}

// LineFields lists the per-line input names (prefixed by "<item>.").
var LineFields = []string{"status", "unit", "unit_price", "free_allowance", "note", "in_writing"}

// InvoiceTypes are the invoice kinds a quote may name ("" = not stated).
var InvoiceTypes = []string{"vat_special", "vat_general", "commercial", "none"}

// Bounds of quote input.
const (
	maxPricePlaces = 6
	maxText        = 500
	maxLabel       = 200
)

var maxAmount = decimal.New(1, 12) // 10¹²: beyond any real price or quantity

// quoteRefs resolves the platform and GPU model named in input: an id, or
// (for CSV) a name as the list pages show it.
type quoteRefs struct {
	platforms map[string]int64 // id or lower-case name → id
	gpus      map[string]int64 // id, lower-case "vendor name" or name → id
}

func newQuoteRefs(platforms, gpus []market.RefName) quoteRefs {
	r := quoteRefs{platforms: map[string]int64{}, gpus: map[string]int64{}}
	for _, x := range []struct {
		dst  map[string]int64
		refs []market.RefName
	}{{r.platforms, platforms}, {r.gpus, gpus}} {
		for _, ref := range x.refs {
			x.dst[strconv.FormatInt(ref.ID, 10)] = ref.ID
			for _, n := range ref.Names {
				n = strings.ToLower(strings.TrimSpace(n))
				if _, taken := x.dst[n]; n != "" && !taken {
					x.dst[n] = ref.ID
				}
			}
		}
	}
	return r
}

// quoteRefs loads the names input may use for platforms and GPU models.
func (s *Server) quoteRefs(ctx context.Context) (quoteRefs, error) {
	p, g, err := s.store.QuoteRefNames(ctx)
	if err != nil {
		return quoteRefs{}, err
	}
	return newQuoteRefs(p, g), nil
}

// quoteParser reads one quote and collects every problem (field → catalog
// message ID) instead of stopping at the first.
type quoteParser struct {
	get   func(name string) string
	errs  web.Errors
	today time.Time
}

func (p *quoteParser) text(name string, max int) string {
	v := strings.TrimSpace(p.get(name))
	if utf8.RuneCountInString(v) > max {
		p.errs[name] = "quote.error.too_long"
	}
	return v
}

// dec reads an optional non-negative decimal with at most places decimal
// places and below 10¹².
func (p *quoteParser) dec(name string, places int) decimal.NullDecimal {
	v := strings.TrimSpace(p.get(name))
	if v == "" {
		return decimal.NullDecimal{}
	}
	d, err := money.ParsePlaces(v, places)
	switch {
	case err == money.ErrTooManyPlaces:
		p.errs[name] = "quote.error.places." + strconv.Itoa(places)
	case err != nil:
		p.errs[name] = "quote.error.number"
	case d.Sign() < 0:
		p.errs[name] = "quote.error.negative"
	case d.GreaterThanOrEqual(maxAmount):
		p.errs[name] = "quote.error.too_large"
	default:
		return decimal.NewNullDecimal(d)
	}
	return decimal.NullDecimal{}
}

// decOrZero is dec where empty means 0.
func (p *quoteParser) decOrZero(name string, places int) decimal.Decimal {
	return p.dec(name, places).Decimal
}

// integer reads an optional whole number within [min, max].
func (p *quoteParser) integer(name string, min, max int) (int, bool) {
	v := strings.TrimSpace(p.get(name))
	if v == "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		p.errs[name] = "quote.error.integer"
		return 0, false
	}
	if n < min || n > max {
		p.errs[name] = "quote.error.range"
		return 0, false
	}
	return n, true
}

// tristate reads "", "true" or "false" (yes / no / not stated).
func (p *quoteParser) tristate(name string) *bool {
	switch strings.ToLower(strings.TrimSpace(p.get(name))) {
	case "":
		return nil
	case "true", "yes", "1", "on":
		b := true
		return &b
	case "false", "no", "0":
		b := false
		return &b
	}
	p.errs[name] = "quote.error.choice"
	return nil
}

// oneOf reads a value that must be one of allowed ("" allowed when optional).
func (p *quoteParser) oneOf(name string, optional bool, allowed ...string) string {
	v := strings.TrimSpace(p.get(name))
	if v == "" && optional {
		return ""
	}
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	if v == "" {
		p.errs[name] = "form.required"
	} else {
		p.errs[name] = "quote.error.choice"
	}
	return ""
}

func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

// parseQuote reads and validates a whole quote, the twelve lines included.
// Every bad field is reported; the quote is meaningful only without errors.
// A line that is not given at all is unconfirmed (TCO.md).
func parseQuote(get func(string) string, refs quoteRefs, today time.Time) (quote.Quote, web.Errors) {
	p := &quoteParser{get: get, errs: web.Errors{}, today: today}
	var q quote.Quote

	if v := strings.TrimSpace(get("platform")); v == "" {
		p.errs["platform"] = "form.required"
	} else if id, ok := refs.platforms[strings.ToLower(v)]; ok {
		q.PlatformID = id
	} else {
		p.errs["platform"] = "quote.error.unknown_platform"
	}
	if v := strings.TrimSpace(get("gpu_model")); v == "" {
		p.errs["gpu_model"] = "form.required"
	} else if id, ok := refs.gpus[strings.ToLower(v)]; ok {
		q.GPUModelID = id
	} else {
		p.errs["gpu_model"] = "quote.error.unknown_gpu"
	}
	q.Label = p.text("label", maxLabel)
	if n, ok := p.integer("gpu_count", 1, 1024); ok {
		q.GPUCount = n
	} else if _, bad := p.errs["gpu_count"]; !bad {
		p.errs["gpu_count"] = "form.required"
	}
	q.VRAMGB = p.dec("vram_gb", 2)
	if q.VRAMGB.Valid && q.VRAMGB.Decimal.Sign() == 0 {
		p.errs["vram_gb"] = "quote.error.positive"
	}
	q.Sharing = p.oneOf("sharing", false, strs(catalog.Sharings)...)
	if n, ok := p.integer("cpu_cores", 1, 100000); ok {
		q.CPUCores = &n
	}
	q.RAMGB = p.dec("ram_gb", 2)
	q.IncludedSystemDiskGB = p.decOrZero("included_system_disk_gb", 2)
	q.IncludedDataDiskGB = p.decOrZero("included_data_disk_gb", 2)
	q.IncludedMbps = p.decOrZero("included_mbps", 2)
	q.Region = p.text("region", 100)

	q.Currency = strings.ToUpper(strings.TrimSpace(get("currency")))
	if q.Currency == "" {
		p.errs["currency"] = "form.required"
	} else if c, ok := money.LookupCurrency(q.Currency); !ok || !c.Priceable() {
		p.errs["currency"] = "quote.error.currency"
	}
	q.Hourly = p.dec("hourly", maxPricePlaces)
	q.Monthly = p.dec("monthly", maxPricePlaces)
	q.Yearly = p.dec("yearly", maxPricePlaces)
	q.SpotHourly = p.dec("spot_hourly", maxPricePlaces)
	if !q.Hourly.Valid && !q.Monthly.Valid && !q.Yearly.Valid && !q.SpotHourly.Valid {
		if _, bad := p.errs["hourly"]; !bad {
			p.errs["hourly"] = "quote.error.no_price"
		}
	}
	q.BillingGranularity = p.oneOf("billing_granularity", true, strs(catalog.Granularities)...)
	if q.BillingGranularity == "" && (q.Hourly.Valid || q.SpotHourly.Valid) {
		if _, bad := p.errs["billing_granularity"]; !bad {
			p.errs["billing_granularity"] = "quote.error.granularity_required"
		}
	}
	q.CommitmentMonths, _ = p.integer("commitment_months", 0, 120)
	q.EarlyTerminationPct = p.dec("early_termination_pct", 2)
	if q.EarlyTerminationPct.Valid && q.EarlyTerminationPct.Decimal.GreaterThan(decimal.NewFromInt(100)) {
		p.errs["early_termination_pct"] = "quote.error.range"
	}
	q.Deposit = p.dec("deposit", maxPricePlaces)
	q.DepositRefundable = p.tristate("deposit_refundable")
	q.BalanceWithdrawable = p.tristate("balance_withdrawable")
	if b := p.tristate("prices_include_tax"); b != nil {
		q.PricesIncludeTax = *b
	} else if _, bad := p.errs["prices_include_tax"]; !bad {
		p.errs["prices_include_tax"] = "form.required"
	}
	q.TaxRate = p.decOrZero("tax_rate", 6)
	if q.TaxRate.GreaterThanOrEqual(decimal.NewFromInt(1)) {
		p.errs["tax_rate"] = "quote.error.tax_rate"
	}
	q.InvoiceType = p.oneOf("invoice_type", true, InvoiceTypes...)
	q.SLAAvailabilityPct = p.dec("sla_availability_pct", 3)
	if q.SLAAvailabilityPct.Valid && q.SLAAvailabilityPct.Decimal.GreaterThan(decimal.NewFromInt(100)) {
		p.errs["sla_availability_pct"] = "quote.error.range"
	}
	q.SLACompensation = p.text("sla_compensation", maxText)

	if v := strings.TrimSpace(get("as_of")); v == "" {
		p.errs["as_of"] = "form.required"
	} else if d, err := time.Parse(time.DateOnly, v); err != nil {
		p.errs["as_of"] = "form.date.invalid"
	} else if d.After(today) {
		p.errs["as_of"] = "quote.error.future"
	} else {
		q.AsOf = d
	}
	q.Source = p.text("source", maxText)
	if q.Source == "" {
		p.errs["source"] = "form.required"
	}
	q.Notes = p.text("notes", 4000)

	for _, it := range catalog.Items {
		k := string(it.Key) + "."
		l := quote.Line{Item: string(it.Key)}
		l.Status = p.oneOf(k+"status", true, strs(catalog.Statuses)...)
		if l.Status == "" {
			l.Status = string(catalog.StatusUnconfirmed)
		}
		l.Unit = p.oneOf(k+"unit", true, strs(it.Units)...)
		if _, bad := p.errs[k+"unit"]; bad {
			p.errs[k+"unit"] = "quote.error.unit"
		}
		l.UnitPrice = p.dec(k+"unit_price", maxPricePlaces)
		l.FreeAllowance = p.decOrZero(k+"free_allowance", maxPricePlaces)
		l.Note = p.text(k+"note", maxText)
		if b := p.tristate(k + "in_writing"); b != nil {
			l.InWriting = *b
		}
		switch catalog.Status(l.Status) {
		case catalog.StatusCharged:
			if l.Unit == "" {
				l.Unit = string(it.DefaultUnit)
			}
			if !l.UnitPrice.Valid {
				if _, bad := p.errs[k+"unit_price"]; !bad {
					p.errs[k+"unit_price"] = "quote.error.price_required"
				}
			}
		default:
			// Only a charged line carries a price; anything typed for the
			// others is an error rather than silently dropped.
			if l.UnitPrice.Valid {
				p.errs[k+"unit_price"] = "quote.error.price_not_charged"
			}
		}
		q.Lines = append(q.Lines, l)
	}
	return q, p.errs
}

// quoteValues is the inverse of parseQuote: the input fields of a stored
// quote, to fill the edit form and the CSV export.
func quoteValues(q quote.Quote) url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	nd := func(d decimal.NullDecimal) string {
		if !d.Valid {
			return ""
		}
		return money.String(d.Decimal)
	}
	zd := func(d decimal.Decimal) string {
		if d.Sign() == 0 {
			return ""
		}
		return money.String(d)
	}
	tri := func(b *bool) string {
		if b == nil {
			return ""
		}
		return strconv.FormatBool(*b)
	}
	set("platform", strconv.FormatInt(q.PlatformID, 10))
	set("gpu_model", strconv.FormatInt(q.GPUModelID, 10))
	set("label", q.Label)
	set("gpu_count", strconv.Itoa(q.GPUCount))
	set("vram_gb", nd(q.VRAMGB))
	set("sharing", q.Sharing)
	if q.CPUCores != nil {
		set("cpu_cores", strconv.Itoa(*q.CPUCores))
	}
	set("ram_gb", nd(q.RAMGB))
	set("included_system_disk_gb", zd(q.IncludedSystemDiskGB))
	set("included_data_disk_gb", zd(q.IncludedDataDiskGB))
	set("included_mbps", zd(q.IncludedMbps))
	set("region", q.Region)
	set("currency", q.Currency)
	set("hourly", nd(q.Hourly))
	set("monthly", nd(q.Monthly))
	set("yearly", nd(q.Yearly))
	set("spot_hourly", nd(q.SpotHourly))
	set("billing_granularity", q.BillingGranularity)
	if q.CommitmentMonths != 0 {
		set("commitment_months", strconv.Itoa(q.CommitmentMonths))
	}
	set("early_termination_pct", nd(q.EarlyTerminationPct))
	set("deposit", nd(q.Deposit))
	set("deposit_refundable", tri(q.DepositRefundable))
	set("balance_withdrawable", tri(q.BalanceWithdrawable))
	set("prices_include_tax", strconv.FormatBool(q.PricesIncludeTax))
	set("tax_rate", zd(q.TaxRate))
	set("invoice_type", q.InvoiceType)
	set("sla_availability_pct", nd(q.SLAAvailabilityPct))
	set("sla_compensation", q.SLACompensation)
	if !q.AsOf.IsZero() {
		set("as_of", q.AsOf.Format(time.DateOnly))
	}
	set("source", q.Source)
	set("notes", q.Notes)
	for _, l := range q.Lines {
		k := l.Item + "."
		set(k+"status", l.Status)
		set(k+"unit", l.Unit)
		set(k+"unit_price", nd(l.UnitPrice))
		set(k+"free_allowance", zd(l.FreeAllowance))
		set(k+"note", l.Note)
		if l.InWriting {
			set(k+"in_writing", "true")
		}
	}
	return v
}
