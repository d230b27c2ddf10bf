package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Report statuses: draft → submitted → approved | returned; a draft may be
// deleted (kept as a row, so its number stays accounted for).
const (
	Draft     = "draft"
	Submitted = "submitted"
	Approved  = "approved"
	Returned  = "returned"
	Deleted   = "deleted"
)

// Statuses lists the statuses a reader may filter by.
var Statuses = []string{Draft, Submitted, Approved, Returned}

// Timeline actions of a report (report_events.action).
const (
	EventCreated    = "created"
	EventSubmitted  = "submitted"
	EventApproved   = "approved"
	EventReturned   = "returned"
	EventRetitled   = "retitled"
	EventDeleted    = "deleted"
	EventRevised    = "revised"
	EventRecomputed = "recomputed"
)

// Report is one saved TCO report, without its snapshot (the store
// reads that on its own).
type Report struct {
	ID                 int64
	Number             string
	Revision           int
	PreviousRevisionID int64
	// NextRevisionID is the revision made from this (returned) report.
	NextRevisionID   int64
	RecomputedFromID int64
	AuthorID         int64
	AuthorName       string
	AuthorEmail      string
	Title            string
	Purpose          string
	Status           string

	SnapshotVersion int
	RulesVersion    string
	FiguresDate     time.Time
	ReportCurrency  string
	QuoteCount      int
	PlatformIDs     []int64
	// RecommendedTCO is the confirmed TCO of the recommended option (none
	// when no option is eligible); likewise its pessimistic TCO.
	RecommendedTCO            decimal.NullDecimal
	RecommendedTCOPessimistic decimal.NullDecimal

	CreatedAt       time.Time
	UpdatedAt       time.Time
	SubmittedAt     *time.Time
	DecidedAt       *time.Time
	DecidedBy       int64
	DecidedByName   string
	DecisionComment string
}

// NewReport is a report to save: the frozen snapshot and the values the
// list filters by, copied from it.
type NewReport struct {
	Title                     string
	Purpose                   string
	Snapshot                  []byte
	SnapshotVersion           int
	RulesVersion              string
	FiguresDate               time.Time
	ReportCurrency            string
	QuoteCount                int
	PlatformIDs               []int64
	RecommendedTCO            decimal.NullDecimal
	RecommendedTCOPessimistic decimal.NullDecimal
	// PreviousRevisionID, when set, makes this the next revision of that
	// returned report (its author only): same number, revision + 1.
	PreviousRevisionID int64
	// RecomputedFromID, when set, names the report this one recomputes.
	RecomputedFromID int64
}

// Event is one entry of a report's timeline.
type Event struct {
	ID int64
	// ReportID and Revision are the report (revision) whose timeline
	// this is.
	ReportID        int64
	Revision        int
	At              time.Time
	ActorID         int64
	ActorName       string
	Action          string
	FromStatus      string
	ToStatus        string
	Comment         string
	RelatedReportID int64
	RelatedNumber   string
	RelatedRevision int
}

// ErrFiguresTooLarge is a report whose figures, computed from inputs each
// within its bounds, are beyond what the report list's columns store
// (docs/RULES.md §16.4): refused, never left for the database to refuse.
var ErrFiguresTooLarge = errors.New("report: figures too large to store")

// storedFigureBelow is the first amount the reports table's NUMERIC(20,2)
// columns (recommended_tco, recommended_tco_pessimistic) cannot hold.
var storedFigureBelow = decimal.New(1, 18)

// storable reports whether d, rounded to the column's 2 places, fits.
func storable(d decimal.Decimal) bool { return d.Round(2).Abs().LessThan(storedFigureBelow) }

// Save is what the store saves of a frozen snapshot under a title and
// purpose: the snapshot's bytes and the values the report list filters
// by, copied from it (the recommended option's figures among them).
func Save(snap Snapshot, title, purpose string) (NewReport, error) {
	raw, err := json.Marshal(snap)
	if err != nil {
		return NewReport{}, err
	}
	nr := NewReport{Title: title, Purpose: purpose, Snapshot: raw, SnapshotVersion: snap.Version,
		RulesVersion: snap.RulesVersion, ReportCurrency: snap.ReportCurrency, QuoteCount: len(snap.Rows),
		PlatformIDs: snap.PlatformIDs()}
	nr.FiguresDate, err = time.Parse(time.DateOnly, snap.FiguresDate)
	if err != nil {
		return NewReport{}, fmt.Errorf("figures date: %w", err)
	}
	if sum := snap.Summary(); sum.Recommended >= 0 {
		res := snap.Rows[sum.Recommended].Result
		nr.RecommendedTCO = decimal.NewNullDecimal(res.TCO)
		nr.RecommendedTCOPessimistic = decimal.NewNullDecimal(res.TCOPessimistic)
		if !storable(res.TCO) || !storable(res.TCOPessimistic) {
			return NewReport{}, ErrFiguresTooLarge
		}
	}
	return nr, nil
}

// Decode reads a stored snapshot.
func Decode(raw []byte) (Snapshot, error) {
	var snap Snapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		return Snapshot{}, err
	}
	return snap, nil
}
