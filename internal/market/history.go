package market

import (
	"time"

	"github.com/shopspring/decimal"
)

// PricePoint is one dated price sample of a platform × GPU model: a
// published or archived quote version (every version is a sample).
type PricePoint struct {
	ID       int64
	SeriesID int64
	Version  int
	State    string
	AsOf     time.Time
	Currency string
	Hourly   decimal.NullDecimal
	Monthly  decimal.NullDecimal
	Label    string
	GPUCount int
	Source   string
	// PrevID is the previous sample of the same offer (the previous version
	// in its series, same currency and GPU count; 0 for the first).
	PrevID      int64
	PrevHourly  decimal.NullDecimal
	PrevMonthly decimal.NullDecimal
	// HourlyJump and MonthlyJump report a move of more than JumpPercent
	// from the previous sample.
	HourlyJump  bool
	MonthlyJump bool
}

// JumpPercent is the price move, in percent of the previous sample, above
// which a sample is flagged as a jump (the guide saw "+114 % in six weeks";
// 30 % is the editors' threshold for re-checking a price).
var JumpPercent = decimal.NewFromInt(30)

// PriceJump is a current published quote whose hourly or monthly price
// moved more than the threshold from the previous sample.
type PriceJump struct {
	QuoteID        int64
	PlatformID     int64
	GPUModelID     int64
	PlatformNameZH string
	PlatformNameEN string
	GPUVendor      string
	GPUName        string
	Label          string
	Currency       string
	GPUCount       int
	AsOf           time.Time
	Hourly         decimal.NullDecimal
	Monthly        decimal.NullDecimal
	PrevID         int64
	PrevAsOf       time.Time
	PrevHourly     decimal.NullDecimal
	PrevMonthly    decimal.NullDecimal
	HourlyJump     bool
	MonthlyJump    bool
}
