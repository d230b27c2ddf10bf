// Package own is an own-hardware option as gpuquote keeps it: a team's plan
// to buy servers instead of renting them, kept as a series of immutable
// versions (docs/RULES.md §17.4); the dated electricity price samples an
// option may take its kWh price from; who may read and change an option;
// the one validation of the option form and of the electricity sample
// form; and the engine input (tco.Own) built from a version. It does no IO:
// the store persists options and samples, the server decodes requests.
package own

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/tco"
)

// ErrNotFound is an option or version that does not exist: what the store
// answers when asked for one by an id it does not hold.
var ErrNotFound = errors.New("own: no such option or version")

// ErrNoElectricitySample means the option's region has no electricity
// price in force on the day asked about (docs/RULES.md §17.4).
var ErrNoElectricitySample = errors.New("own: no electricity price in force on that day")

// Where an option's electricity price comes from (the form's
// "electricity" field).
const (
	// ElectricityRegion: the sample in force on the evaluation day for a
	// region, in the option's currency.
	ElectricityRegion = "region"
	// ElectricityOwn: the option's own kWh figure.
	ElectricityOwn = "own"
)

// Version is one version of an own-hardware option: every input the engine
// reads, with where the purchase price came from. Decimals are exact
// (numeric ↔ decimal.Decimal, never float). A version never changes once
// stored; editing an option stores version n+1.
type Version struct {
	ID       int64 `json:"id"`
	OptionID int64 `json:"option_id"`
	Version  int   `json:"version"`

	Name       string `json:"name"`
	GPUModelID int64  `json:"gpu_model_id"`
	GPUCount   int    `json:"gpu_count"`
	Currency   string `json:"currency"`

	PurchasePrice  decimal.Decimal `json:"purchase_price"`
	PurchaseAsOf   time.Time       `json:"purchase_as_of"`
	PurchaseSource string          `json:"purchase_source"`
	ResidualPct    decimal.Decimal `json:"residual_pct"`
	LifeMonths     int             `json:"life_months"`

	PowerLoadW decimal.Decimal `json:"power_load_w"`
	PowerIdleW decimal.Decimal `json:"power_idle_w"`
	PUE        decimal.Decimal `json:"pue"`
	// ElectricityRegion names the electricity price series (region and the
	// option's currency) whose sample in force on the evaluation day is
	// used; "" when KWhPrice, the option's own figure, is set instead.
	ElectricityRegion string              `json:"electricity_region,omitempty"`
	KWhPrice          decimal.NullDecimal `json:"kwh_price"`
	AlwaysOn          bool                `json:"always_on"`

	HostingMonthly        decimal.Decimal     `json:"hosting_monthly"`
	OpsMonthly            decimal.Decimal     `json:"ops_monthly"`
	MaintenancePctPerYear decimal.Decimal     `json:"maintenance_pct_per_year"`
	SetupOneOff           decimal.Decimal     `json:"setup_one_off"`
	CapitalRatePerYear    decimal.Decimal     `json:"capital_rate_per_year"`
	PricesIncludeTax      bool                `json:"prices_include_tax"`
	TaxRate               decimal.NullDecimal `json:"tax_rate"`

	Notes string `json:"notes"`

	CreatedBy     int64     `json:"created_by,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	CreatedByName string    `json:"-"`

	// Read-only names joined from gpu_models.
	GPUVendor string `json:"-"`
	GPUName   string `json:"-"`
}

// Electricity says where a version's electricity price comes from.
func (v Version) Electricity() string {
	if v.ElectricityRegion != "" {
		return ElectricityRegion
	}
	return ElectricityOwn
}

// GPU is the card's name as the engine and the pages show it.
func (v Version) GPU() string { return strings.TrimSpace(v.GPUVendor + " " + v.GPUName) }

// Option is an own-hardware option: the series its versions share, with
// its newest version.
type Option struct {
	ID int64 `json:"id"`
	// Shared options are read by every signed-in user and kept by editors
	// and admins; private ones belong to their author (docs/RULES.md
	// §17.4).
	Shared        bool       `json:"shared"`
	CreatedBy     int64      `json:"created_by,omitempty"`
	CreatedByName string     `json:"-"`
	CreatedAt     time.Time  `json:"created_at"`
	LatestVersion int        `json:"latest_version"`
	ArchivedAt    *time.Time `json:"archived_at,omitempty"`
	// Current is the newest version.
	Current Version `json:"current"`
}

// Archived reports whether the option was withdrawn.
func (o Option) Archived() bool { return o.ArchivedAt != nil }

// KeeperRoles keep every option: they read and change private options of
// others and shared ones, and may share what they create (docs/RULES.md
// §17.4).
var KeeperRoles = []string{"editor", "admin"}

// ReaderRoles read every option, private ones included, without changing
// them: finance approves the spending these options argue for.
var ReaderRoles = []string{"finance"}

// MayShare reports whether a user holding role may create a shared option.
func MayShare(role string) bool { return slices.Contains(KeeperRoles, role) }

// MayRead reports whether the signed-in user userID holding role may see
// option o: a shared option everyone; a private one its author, editors,
// admins and finance (docs/RULES.md §17.4).
func MayRead(o Option, userID int64, role string) bool {
	return o.Shared || userID > 0 && o.CreatedBy == userID || slices.Contains(KeeperRoles, role) || slices.Contains(ReaderRoles, role)
}

// MayWrite reports whether the signed-in user userID holding role may
// change option o (a new version, archiving): editors and admins any
// option; the author a private option of their own. A shared option is
// the editors', whoever created it.
func MayWrite(o Option, userID int64, role string) bool {
	if slices.Contains(KeeperRoles, role) {
		return true
	}
	return !o.Shared && userID > 0 && o.CreatedBy == userID
}

// Electricity is the kWh price an evaluation used for one option version on
// one day: the option's own figure (SampleID 0), or the sample of its
// region in force that day, named by id so a report can freeze it.
type Electricity struct {
	KWhPrice decimal.Decimal `json:"kwh_price"`
	// SampleID is the electricity sample used; 0 for the option's own
	// figure.
	SampleID int64     `json:"sample_id,omitempty"`
	Region   string    `json:"region,omitempty"`
	AsOf     time.Time `json:"as_of,omitzero"`
	Source   string    `json:"source,omitempty"`
}

// ElectricityPrice is one dated electricity price sample: the price of a
// kWh in a region, in a currency, from a day on, with where it came from.
type ElectricityPrice struct {
	ID        int64           `json:"id"`
	Region    string          `json:"region"`
	Currency  string          `json:"currency"`
	KWhPrice  decimal.Decimal `json:"kwh_price"`
	AsOf      time.Time       `json:"as_of"`
	Source    string          `json:"source"`
	CreatedAt time.Time       `json:"created_at"`
}

// Engine builds the engine's input from version v with the kWh price the
// caller resolved for the evaluation day (the store's OwnEngineInput does
// both).
func (v Version) Engine(kwh decimal.Decimal) tco.Own {
	return tco.Own{
		Currency: v.Currency, GPUModel: v.GPU(), GPUCount: v.GPUCount,
		PurchasePrice: v.PurchasePrice, ResidualPct: v.ResidualPct, LifeMonths: v.LifeMonths,
		PowerLoadW: v.PowerLoadW, PowerIdleW: v.PowerIdleW, PUE: v.PUE, KWhPrice: kwh, AlwaysOn: v.AlwaysOn,
		HostingMonthly: v.HostingMonthly, OpsMonthly: v.OpsMonthly, MaintenancePctPerYear: v.MaintenancePctPerYear,
		SetupOneOff: v.SetupOneOff, CapitalRatePerYear: v.CapitalRatePerYear,
		PricesIncludeTax: v.PricesIncludeTax, TaxRate: v.TaxRate,
	}
}

// RegionMax is the longest region code.
const RegionMax = 40

var regionCode = regexp.MustCompile(`^[A-Z]{2}(-[A-Za-z0-9]+)*$`)

// NormalizeRegion trims a typed region code and upper-cases its country
// part, so "cn-Beijing" is read as "CN-Beijing".
func NormalizeRegion(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 {
		s = strings.ToUpper(s[:2]) + s[2:]
	}
	return s
}

// ValidRegion reports whether s is a region code: an ISO 3166 country code
// in capitals, then optional parts of letters and digits after hyphens
// (CN, CN-Beijing, DE-Hessen-FRA1), at most RegionMax characters.
func ValidRegion(s string) bool { return len(s) <= RegionMax && regionCode.MatchString(s) }

// ElectricitySeries is one region and currency electricity prices are
// sampled in.
type ElectricitySeries struct {
	Region   string
	Currency string
}
