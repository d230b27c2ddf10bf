package compare

import (
	"github.com/shopspring/decimal"

	"gpuquote/internal/own"
	"gpuquote/internal/tco"
)

// OwnParam is the page-state field naming an own-hardware option version
// ticked beside the quotes (docs/RULES.md §17), once per version.
const OwnParam = "own"

// MaxOwnSelected bounds the own-hardware options one comparison prices.
const MaxOwnSelected = 5

// OwnCandidate is an own-hardware option version ticked in a comparison:
// the version as stored and the electricity price it is priced with (its
// own figure, or its region's sample in force on the comparison's day).
type OwnCandidate struct {
	Version     own.Version
	Electricity own.Electricity
}

// OwnRow is one own-hardware option priced with the comparison's profile
// and report currency (docs/RULES.md §17).
type OwnRow struct {
	OwnCandidate
	// Priced says Result holds the engine's figures; Errors say why it
	// could not be priced (e.g. no exchange rate into the report currency).
	Priced bool
	Errors []tco.FieldError
	Result tco.OwnResult
	// Crossings are, per priced rental row in table order, the month and
	// the monthly hours from which owning costs no more than that rental.
	Crossings []OwnCrossing
	// Sensitivity is the option's tco with one assumption moved at a time:
	// electricity at 50 % and 150 %, life of 24, 36 and 48 months.
	Sensitivity []OwnVariant
	// Curve is the option's line on the cost curves (RunOwn).
	Curve OwnCurve
}

// OwnCrossing is the crossing of one own-hardware option with one rental.
type OwnCrossing struct {
	// QuoteID is the rental's quote version.
	QuoteID int64
	tco.Crossings
}

// OwnVariant is an own-hardware option's tco under one changed assumption.
type OwnVariant struct {
	// Key names the change: "electricity_50", "electricity_150",
	// "life_24", "life_36", "life_48".
	Key string
	TCO decimal.Decimal
}
