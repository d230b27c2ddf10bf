// Package watch is watching the market (docs/RULES.md §24): what a watch
// is about and which condition it waits for, which offers it covers, how
// an observed figure meets its condition, and when a watch that matched
// may match again (the re-arm rule that keeps a price hovering around its
// target from notifying again and again). It does no IO: the store reads
// the market, asks this package and writes the events.
package watch

import (
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

// Kind is the condition a watch waits for (docs/RULES.md §24.1).
type Kind string

// The kinds of watch.
const (
	// PriceBelow: a published quote's price per GPU (hourly or monthly,
	// tax included, in the watch's currency) at or below the target.
	PriceBelow Kind = "price_below"
	// PriceJump: a published quote's hourly or monthly price moved at
	// least Percent % from its offer's previous version, either way.
	PriceJump Kind = "price_jump"
	// ReportQuote: a quote an approved report relied on went stale (over
	// tco.StaleAfterDays) or was superseded by a newer published version.
	ReportQuote Kind = "report_quote"
	// AvailabilityBelow: the 30-day success rate of a platform × GPU model
	// fell below Percent %.
	AvailabilityBelow Kind = "availability_below"
	// NewLow: a published quote's price per GPU-hour is the lowest ever
	// published for its platform × GPU model.
	NewLow Kind = "new_low"
)

// Kinds are every kind, in the order the form offers them.
var Kinds = []Kind{PriceBelow, PriceJump, NewLow, AvailabilityBelow, ReportQuote}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, x := range Kinds {
		if k == x {
			return true
		}
	}
	return false
}

// Discrete reports whether k's matches are single happenings (a version
// published, a quote gone stale) rather than a figure that may hover
// around a threshold: such a watch re-arms only after its cooldown.
func (k Kind) Discrete() bool { return k != PriceBelow && k != AvailabilityBelow }

// Basis is which price a PriceBelow watch reads.
type Basis string

// The bases of a price watch: the price per GPU-hour or per GPU-month,
// or the confirmed TCO of a saved usage profile over its horizon
// (docs/RULES.md §24.1).
const (
	Hourly  Basis = "hourly"
	Monthly Basis = "monthly"
	TCO     Basis = "tco"
)

// Bases are every basis, in the order the form offers them.
var Bases = []Basis{Hourly, Monthly, TCO}

// DefaultCooldownHours is a new watch's cooldown (docs/RULES.md §24.3).
const DefaultCooldownHours = 24

// AvailabilityDays is the window of an availability watch's success rate
// (docs/RULES.md §18.2).
const AvailabilityDays = 30

// ReArmMargin is how far back past its threshold a figure must move for a
// watch that matched to match again before its cooldown: 2 % (price ≥
// target × 1.02; success rate ≥ percent × 1.02).
var ReArmMargin = decimal.RequireFromString("1.02")

// Watch is one watch: what it is about (platform and/or GPU model, and
// optionally the GPU count, sharing and currency of the offers), its
// condition and the state that keeps it from repeating itself.
type Watch struct {
	ID int64
	// OwnerID is the watching user; 0 for a shared watch (editors keep it,
	// editors are told of its matches).
	OwnerID    int64
	PlatformID int64 // 0: any platform
	GPUModelID int64 // 0: any GPU model
	GPUCount   int   // 0: any count
	Sharing    string
	// Currency is a price watch's target currency; for the other kinds an
	// optional filter on the quote's currency.
	Currency string
	Kind     Kind
	Basis    Basis
	// ProfileID is the saved usage profile a TCO watch prices quotes for;
	// 0 for the other bases, and for a TCO watch whose profile was deleted
	// (it matches nothing until it is changed).
	ProfileID     int64
	Target        decimal.Decimal
	Percent       decimal.Decimal
	CooldownHours int
	Paused        bool
	State

	// Names joined for display.
	PlatformZH, PlatformEN, GPU string
	// ProfileName is the TCO watch's profile's name ("" when deleted).
	ProfileName          string
	CreatedAt, UpdatedAt time.Time
}

// State is what a watch remembers of its last match (docs/RULES.md
// §24.3): whether it may match now, and when it last did.
type State struct {
	Armed         bool
	LastMatchedAt *time.Time
}

// Shared reports whether w is a shared watch.
func (w Watch) Shared() bool { return w.OwnerID == 0 }

// Offer is what a watch reads of a published quote to know whether it
// covers it.
type Offer struct {
	QuoteID    int64
	PlatformID int64
	GPUModelID int64
	GPUCount   int
	Sharing    string
	Currency   string
}

// Covers reports whether w is about offer o: the same platform and GPU
// model where w names them, and the same count, sharing and (but for a
// price watch, which converts) currency where it names those.
func (w Watch) Covers(o Offer) bool {
	switch {
	case w.PlatformID != 0 && w.PlatformID != o.PlatformID,
		w.GPUModelID != 0 && w.GPUModelID != o.GPUModelID,
		w.GPUCount != 0 && w.GPUCount != o.GPUCount,
		w.Sharing != "" && w.Sharing != o.Sharing,
		w.Kind != PriceBelow && w.Currency != "" && w.Currency != o.Currency:
		return false
	}
	return true
}

// Field errors of a watch: field name → message ID.
type Errors map[string]string

// Validate checks a watch as a form or the API gives it.
func (w Watch) Validate() Errors {
	errs := Errors{}
	if w.PlatformID == 0 && w.GPUModelID == 0 {
		errs["platform"] = "watch.error.subject"
	}
	if w.GPUCount < 0 || w.GPUCount > 64 {
		errs["gpu_count"] = "watch.error.gpu_count"
	}
	if w.Sharing != "" && !catalog.Sharing(w.Sharing).Valid() {
		errs["sharing"] = "watch.error.sharing"
	}
	if w.Currency != "" && !money.IsCurrency(w.Currency) {
		errs["currency"] = "watch.error.currency"
	}
	if w.CooldownHours < 1 || w.CooldownHours > 8760 {
		errs["cooldown_hours"] = "watch.error.cooldown"
	}
	switch w.Kind {
	case PriceBelow:
		switch w.Basis {
		case Hourly, Monthly:
		case TCO:
			if w.ProfileID <= 0 {
				errs["profile"] = "watch.error.profile"
			}
		default:
			errs["basis"] = "watch.error.basis"
		}
		if w.Currency == "" {
			errs["currency"] = "watch.error.currency"
		}
		if w.Target.Sign() <= 0 || w.Target.GreaterThanOrEqual(decimal.New(1, 14)) || w.Target.Exponent() < -6 {
			errs["target"] = "watch.error.target"
		}
	case PriceJump, AvailabilityBelow:
		if w.Percent.Sign() <= 0 || w.Percent.GreaterThan(decimal.New(100, 0)) || w.Percent.Exponent() < -3 {
			errs["percent"] = "watch.error.percent"
		}
	case NewLow, ReportQuote:
	default:
		errs["kind"] = "watch.error.kind"
	}
	return errs
}

// Normalize clears the figures w's kind does not use, so a stored watch
// holds only its own.
func (w *Watch) Normalize() {
	if w.Kind != PriceBelow {
		w.Basis, w.Target = "", decimal.Zero
	}
	if w.Basis != TCO {
		w.ProfileID = 0
	}
	if w.Kind != PriceJump && w.Kind != AvailabilityBelow {
		w.Percent = decimal.Zero
	}
}
