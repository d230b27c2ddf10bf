package trial

import (
	"time"

	"github.com/shopspring/decimal"
)

// Trial is one 7-day trial of a published quote. Verdict is derived from
// the latest check results (VerdictOf) and stored with them.
type Trial struct {
	ID         int64     `json:"id"`
	QuoteID    int64     `json:"quote_id"`
	PlatformID int64     `json:"platform_id"`
	GPUModelID int64     `json:"gpu_model_id"`
	StartedOn  time.Time `json:"started_on"` // a date
	Note       string    `json:"note"`
	Verdict    Verdict   `json:"verdict"`
	CreatedBy  int64     `json:"created_by"` // 0: the system
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`

	// Read-only, joined from quotes, platforms, GPU models and users.
	QuoteVersion   int    `json:"-"`
	QuoteLabel     string `json:"-"`
	QuoteState     string `json:"-"`
	QuoteGPUCount  int    `json:"-"`
	PlatformNameZH string `json:"-"`
	PlatformNameEN string `json:"-"`
	GPUVendor      string `json:"-"`
	GPUName        string `json:"-"`
	CreatedByName  string `json:"-"`
	// Done is the number of checks decided (pass, fail or n.a.); lists only.
	Done int `json:"-"`
	// PerfBelow is the 85 % rule's verdict on the trial's newest
	// performance measurement that counts (recorded by its author, an
	// editor, an admin or the system: docs/RULES.md §9.6), nil without
	// one; lists only.
	PerfBelow *bool `json:"-"`
}

// Start is what opening a trial takes.
type Start struct {
	QuoteID   int64
	StartedOn time.Time
	Note      string
}

// Reason is why internal/verify decided an outcome, as a catalog
// message and its arguments.
type Reason struct {
	MessageID string         `json:"id"`
	Args      map[string]any `json:"args,omitempty"`
}

// Result is one recording of one check. The newest recording of a
// check is its state; the older ones are its history.
type Result struct {
	ID      int64  `json:"id"`
	TrialID int64  `json:"trial_id"`
	Check   int    `json:"check"`
	State   State  `json:"state"`
	Note    string `json:"note,omitempty"`
	Output  string `json:"-"` // can be long; the audit records its length
	// OutputChars is the length of the whole output when Output holds
	// only its start (lists read a preview, docs/RULES.md §16.3).
	OutputChars int    `json:"-"`
	Measured    string `json:"measured,omitempty"`
	// Reasons are internal/verify's reasons when the result came from
	// pasted nvidia-smi output (PasteID).
	Reasons        []Reason  `json:"reasons,omitempty"`
	PasteID        int64     `json:"paste_id,omitempty"`
	RecordedBy     int64     `json:"recorded_by"`
	RecordedByName string    `json:"-"`
	RecordedAt     time.Time `json:"recorded_at"`
}

// Record is one check result to record.
type Record struct {
	Check    int
	State    State
	Note     string
	Output   string
	Measured string
	Reasons  []Reason
}

// PasteCheck is one check internal/verify made of pasted output.
type PasteCheck struct {
	Key string `json:"key"`
	// TrialCheck is the acceptance check (1–30) it decides, 0 for none.
	TrialCheck int            `json:"trial_check"`
	Outcome    string         `json:"outcome"`
	MessageID  string         `json:"id"`
	Args       map[string]any `json:"args,omitempty"`
}

// Paste is nvidia-smi output pasted into a trial with what was read
// from it when it was recorded.
type Paste struct {
	ID      int64  `json:"id"`
	TrialID int64  `json:"trial_id"`
	Output  string `json:"-"`
	// Chars and Bytes are the whole output's length in characters and in
	// UTF-8 bytes: Output may hold only its start, or nothing (lists read
	// a preview of the newest pastes only, docs/RULES.md §16.3).
	Chars          int          `json:"-"`
	Bytes          int64        `json:"-"`
	Format         string       `json:"format"`
	Samples        int          `json:"samples"`
	Checks         []PasteCheck `json:"checks"`
	RecordedBy     int64        `json:"recorded_by"`
	RecordedByName string       `json:"-"`
	RecordedAt     time.Time    `json:"recorded_at"`
}

// Perf is one measured TFLOPS figure of a trial with the 85 % rule's
// verdict on it and the catalog figures it was compared against.
type Perf struct {
	ID              int64               `json:"id"`
	TrialID         int64               `json:"trial_id"`
	PlatformID      int64               `json:"platform_id"`
	GPUModelID      int64               `json:"gpu_model_id"`
	Precision       string              `json:"precision"`
	MeasuredTFLOPS  decimal.Decimal     `json:"measured_tflops"`
	Benchmark       string              `json:"benchmark"`
	NominalTFLOPS   decimal.Decimal     `json:"nominal_tflops"`
	Sparse          bool                `json:"sparse"`
	ReferenceTFLOPS decimal.NullDecimal `json:"reference_tflops"`
	// Basis is "reference" or "nominal": which figure Ratio divides by.
	Basis       string          `json:"basis"`
	BasisTFLOPS decimal.Decimal `json:"basis_tflops"`
	// Ratio is measured ÷ basis and RatioToNominal measured ÷ nominal,
	// both cut to 6 decimal places when stored.
	Ratio           decimal.Decimal `json:"ratio"`
	RatioToNominal  decimal.Decimal `json:"ratio_to_nominal"`
	ThresholdTFLOPS decimal.Decimal `json:"threshold_tflops"`
	Below           bool            `json:"below"`
	// Message is the verdict's wording (internal/verify's message).
	Message        Reason    `json:"message"`
	Note           string    `json:"note,omitempty"`
	RecordedBy     int64     `json:"recorded_by"`
	RecordedByName string    `json:"-"`
	RecordedAt     time.Time `json:"recorded_at"`
	// Trusted says the measurement feeds comparisons: it was recorded by
	// the trial's author, an editor or an admin (docs/RULES.md §16.3).
	Trusted bool `json:"-"`
}

// RatioPlaces is how many decimal places a stored performance ratio keeps
// (the TCO engine's limit for performance_ratio).
const RatioPlaces = 6
