package billfile

import (
	"encoding/csv"
	"errors"
	"io"

	"github.com/shopspring/decimal"

	"gpuquote/internal/billcheck"
	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
)

// FocusMeta are the facts of a FOCUS export that a checked bill does not
// hold.
type FocusMeta struct {
	// ProviderName is the platform that billed (required).
	// PublisherName and InvoiceIssuerName are it unless given.
	ProviderName      string
	PublisherName     string
	InvoiceIssuerName string
	// BillingAccountID names the account the bill is billed to (required:
	// the vendor's account name, or the report's number where none is
	// known); BillingAccountName is its display name ("" writes null).
	BillingAccountID   string
	BillingAccountName string
	// ServiceName names the service of every row; "" writes each row's
	// ServiceCategory ("Compute", "Networking", "Storage", "Other").
	ServiceName string
}

// ErrFocusMeta is returned by WriteFOCUS for a FocusMeta without its
// provider or billing account, or a result without its month.
var ErrFocusMeta = errors.New("billfile: a FOCUS export needs the provider, the billing account and the month")

// The gpuquote columns of a FOCUS export, after FOCUS's own.
const (
	FocusVerdict       = "x_GpuquoteVerdict"
	FocusExpectedCost  = "x_GpuquoteExpectedCost"
	FocusVariance      = "x_GpuquoteVariance"
	FocusReferenceCost = "x_GpuquoteReferenceCost"
)

// FocusExportColumns are the columns WriteFOCUS writes, in order: the
// FOCUS 1.2 columns alphabetically (every Mandatory one among them), then
// gpuquote's, as FOCUS's column order asks.
var FocusExportColumns = []string{
	FocusBilledCost, "BillingAccountId", "BillingAccountName", FocusBillingCurrency, "BillingPeriodEnd",
	"BillingPeriodStart", FocusChargeCategory, FocusChargeClass, FocusChargeDescription, FocusChargePeriodEnd,
	FocusChargePeriodStart, FocusConsumedQuantity, FocusConsumedUnit, FocusContractedCost, FocusContractedUnitPrice,
	FocusEffectiveCost, "InvoiceIssuerName", FocusListCost, FocusPricingQuantity, FocusPricingUnit,
	FocusProviderName, "PublisherName", "ServiceCategory", FocusServiceName, FocusSkuID,
	FocusItem, FocusVerdict, FocusExpectedCost, FocusVariance, FocusReferenceCost,
}

// focusTime is FOCUS's date/time format (DateTimeFormat): UTC, seconds,
// "Z".
const focusTime = "2006-01-02T15:04:05Z"

// WriteFOCUS writes a checked bill as a FOCUS 1.2 cost-and-usage file
// (UTF-8 without a byte-order mark, comma-separated, LF line ends), one
// row per bill line; docs/CSV.md names how each column is derived. The
// quote is the contract: ContractedCost is the quote's expected amount
// where the check has one. The same result and meta give the same bytes.
// Null values are empty; text is guarded against spreadsheet formulas as
// the quote CSV guards it (ReadFOCUS removes the guard).
func WriteFOCUS(w io.Writer, res billcheck.Result, in FocusMeta) error {
	if in.ProviderName == "" || in.BillingAccountID == "" || res.Month.IsZero() {
		return ErrFocusMeta
	}
	publisher, issuer := in.PublisherName, in.InvoiceIssuerName
	if publisher == "" {
		publisher = in.ProviderName
	}
	if issuer == "" {
		issuer = in.ProviderName
	}
	from := res.Month.UTC().Format(focusTime)
	to := res.Month.UTC().AddDate(0, 1, 0).Format(focusTime)
	g := quote.GuardCell

	cw := csv.NewWriter(w)
	if err := cw.Write(FocusExportColumns); err != nil {
		return err
	}
	rec := make([]string, len(FocusExportColumns))
	for _, l := range res.Lines {
		category, unit, billed, qty := "Usage", focusUnit(l), money.String(l.Billed), money.String(l.Quantity)
		consumed, consumedUnit := qty, unit
		if l.Billed.Sign() < 0 {
			// A credit; FOCUS has no consumed quantity but for usage.
			category, consumed, consumedUnit = "Credit", "", ""
		}
		contracted := billed
		if l.Expected.Valid {
			contracted = money.String(l.Expected.Decimal)
		}
		service := serviceCategory(l.Item)
		name := in.ServiceName
		if name == "" {
			name = service
		}
		rec = rec[:0]
		rec = append(rec,
			billed, g(in.BillingAccountID), g(in.BillingAccountName), res.Currency, to,
			from, category, "", g(l.Description), to,
			from, consumed, consumedUnit, contracted, contractedUnitPrice(res, l),
			billed, g(issuer), billed, qty, unit,
			g(in.ProviderName), g(publisher), service, g(name), "",
			string(l.Item), string(l.Verdict), nullString(l.Expected), nullString(l.Variance), nullString(l.ReferenceExpected),
		)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// contractedUnitPrice is the quote's unit price of a line where it is a
// price of the bill's line as FOCUS means it: in the bill's currency and
// tax basis, no allowance taken, and times the quantity the expected
// amount (to the cent). Elsewhere it is null, and ContractedCost stands
// alone.
func contractedUnitPrice(res billcheck.Result, l billcheck.LineResult) string {
	switch {
	case !l.UnitPrice.Valid || !l.Expected.Valid || !res.FXRate.Equal(one) || res.TaxAdjust != "none":
		return ""
	case l.Allowance.Valid && l.Allowance.Decimal.Sign() != 0:
		return ""
	case !money.Round(money.Product(l.UnitPrice.Decimal, l.Quantity), 2).Equal(l.Expected.Decimal):
		return ""
	}
	return money.String(l.UnitPrice.Decimal)
}

var one = money.MustParse("1")

// nullString is a number as FOCUS writes it, empty for null.
func nullString(v decimal.NullDecimal) string {
	if !v.Valid {
		return ""
	}
	return money.String(v.Decimal)
}

// serviceCategory is FOCUS's ServiceCategory of a bill item.
func serviceCategory(it billcheck.Item) string {
	if it.Compute() {
		return "Compute"
	}
	item, ok := catalog.LookupItem(catalog.ItemKey(it))
	if !ok {
		return "Other"
	}
	switch item.Family {
	case catalog.FamilyBandwidth, catalog.FamilyPublicIP:
		return "Networking"
	case catalog.FamilyStorage, catalog.FamilySnapshots:
		return "Storage"
	}
	return "Compute" // stopped retention, start/stop and scheduling
}

// measureNames are the FOCUS unit names (UnitFormat) of the items'
// measures, singular.
var measureNames = map[string]string{"gb": "GB", "mbps": "Mbps", "ip": "IP", "bundle": "Bundle"}

// focusUnit is the FOCUS unit (UnitFormat) of a line's quantity, as the
// check counts it: instance-hours, -months or -years for compute; for a
// hidden-cost item, what its unit prices (a rate unit its measure over
// the unit's time: GB-Months, IP-Hours).
func focusUnit(l billcheck.LineResult) string {
	switch l.Item {
	case billcheck.ItemComputeHourly, billcheck.ItemComputeSpot:
		return "Hours"
	case billcheck.ItemComputeMonthly:
		return "Months"
	case billcheck.ItemComputeYearly:
		return "Years"
	}
	it, ok := catalog.LookupItem(catalog.ItemKey(l.Item))
	if !ok {
		return "Units"
	}
	u := l.Unit
	if u == "" {
		u = it.DefaultUnit
	}
	m := measureNames[it.Measure]
	if m == "" {
		m = "Unit"
	}
	switch u {
	case catalog.UnitPerMonth:
		return m + "-Months"
	case catalog.UnitPerDay:
		return m + "-Days"
	case catalog.UnitPerHour:
		if it.Key == catalog.ItemStoppedRetention {
			return "Hours" // stopped hours
		}
		return m + "-Hours"
	case catalog.UnitFlatMonth:
		return "Months"
	case catalog.UnitPerGB:
		return "GB"
	case catalog.UnitPerEvent:
		return "Events"
	}
	return "Units" // one-off
}
