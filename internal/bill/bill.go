// Package bill holds the bills kept beside approved reports (docs/RULES.md
// §23.8): a vendor's bill for one month, checked against one quote version
// of the report, stored immutably; a corrected bill is the next revision.
package bill

import (
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/billcheck"
)

// Sources of a bill's lines.
const (
	SourceTyped = "typed" // typed into the page's form
	SourceCSV   = "csv"   // gpuquote's own CSV (docs/CSV.md)
	SourceFOCUS = "focus" // a FOCUS cost-and-usage file
)

// Sources lists the sources of a bill's lines.
var Sources = []string{SourceTyped, SourceCSV, SourceFOCUS}

// New is a bill to store: what was billed, and the totals of its check,
// computed by the caller with billcheck.Check before storing.
type New struct {
	// ReportID is the approved report the bill is checked beside.
	ReportID int64
	// QuoteID is the quote version (one of the report's rows) it was
	// rented under.
	QuoteID int64
	// Month is the first day of the billed month, UTC.
	Month time.Time
	// Currency, PricesIncludeTax and Instances are the bill's.
	Currency         string
	PricesIncludeTax bool
	Instances        int
	// FXRate converts the quote's currency into the bill's (1 for the
	// same currency); FXDate is its date (zero when typed in or the same
	// currency).
	FXRate decimal.Decimal
	FXDate time.Time
	// Source is SourceTyped, SourceCSV or SourceFOCUS; Filename the
	// imported file's name ("" when typed).
	Source   string
	Filename string
	// Note says why a revision corrects the one before (≤ 1000 characters).
	Note string
	// Lines are the bill's lines in order.
	Lines []billcheck.Line
	// Totals are the check's five totals; Overcharged is whether any line
	// is overcharged or charged though included.
	Totals Totals
}

// Totals are the five totals of a bill check (docs/RULES.md §23.4).
type Totals struct {
	Billed      decimal.Decimal
	Expected    decimal.Decimal
	Overcharge  decimal.Decimal
	Undercharge decimal.Decimal
	Unquoted    decimal.Decimal
}

// TotalsOf are the totals of a check's result.
func TotalsOf(r billcheck.Result) Totals {
	return Totals{Billed: r.BilledTotal, Expected: r.ExpectedTotal, Overcharge: r.OverchargeTotal,
		Undercharge: r.UnderchargeTotal, Unquoted: r.UnquotedTotal}
}

// Record is a stored bill.
type Record struct {
	ID int64
	// ReportID, ReportNumber and ReportRevision name the report it is
	// checked beside.
	ReportID       int64
	ReportNumber   string
	ReportRevision int
	QuoteID        int64
	Month          time.Time
	// Revision is 1 for the first bill of a report, quote and month; a
	// correction is the next; PreviousID names the revision it corrects.
	Revision   int
	PreviousID int64
	// Latest is whether no later revision corrects it.
	Latest           bool
	Currency         string
	PricesIncludeTax bool
	Instances        int
	FXRate           decimal.Decimal
	FXDate           time.Time
	Source           string
	Filename         string
	Note             string
	Lines            []billcheck.Line
	Totals           Totals
	AuthorID         int64
	AuthorName       string
	CreatedAt        time.Time
}

// Bill is the record as the check engine reads it.
func (r Record) Bill() billcheck.Bill {
	return billcheck.Bill{Month: r.Month, Currency: r.Currency, PricesIncludeTax: r.PricesIncludeTax,
		Instances: r.Instances, Lines: r.Lines}
}

// Mapping is one remembered answer of a FOCUS import: on a platform's
// bills, a SkuId (Key kind "sku") or a ChargeDescription (kind
// "description") is the bill item Item.
type Mapping struct {
	PlatformID int64
	Kind       string
	Key        string
	Item       billcheck.Item
	// UpdatedBy names who gave the answer last, UpdatedAt when.
	UpdatedByName string
	UpdatedAt     time.Time
}

// The kinds of a mapping's key.
const (
	MappingSKU         = "sku"
	MappingDescription = "description"
)

// StoreRoles are the roles that may store a bill beside any approved
// report; anyone else only beside a report they wrote.
var StoreRoles = []string{"finance", "admin"}

// MayStore reports whether user userID, of role role, may store a bill
// beside an approved report written by authorID: its author, finance or
// an admin.
func MayStore(userID int64, role string, authorID int64) bool {
	return userID != 0 && (userID == authorID || slices.Contains(StoreRoles, role))
}
