// Package catalog holds the fixed domain lists of the product: the twelve
// hidden-cost items and their units, line statuses, billing modes, risk
// flags, the 30 trial checks, the six SLA clauses and the five written
// confirmations. Every entry names the i18n message ID of its label; the
// words live in internal/i18n/locales/tco.*.toml.
package catalog

// Family groups hidden-cost items the way the guide does (five families).
type Family string

// The five hidden-cost families (docs/RULES.md §3).
const (
	FamilyBandwidth Family = "bandwidth"
	FamilyPublicIP  Family = "public_ip"
	FamilyStorage   Family = "storage"
	FamilySnapshots Family = "snapshots"
	FamilyStopped   Family = "stopped"
)

// Families lists the families in table order.
var Families = []Family{FamilyBandwidth, FamilyPublicIP, FamilyStorage, FamilySnapshots, FamilyStopped}

// LabelID is the message ID of the family's label.
func (f Family) LabelID() string { return "family." + string(f) }

// Unit is a pricing unit of a hidden-cost line.
type Unit string

// The pricing units (docs/RULES.md §3.2).
const (
	// UnitPerMonth is price per unit of quantity per month (per Mbps·month,
	// per GB·month, per IP·month).
	UnitPerMonth Unit = "per_month"
	// UnitPerDay is price per unit of quantity per day; a month is 730/24 days.
	UnitPerDay Unit = "per_day"
	// UnitPerHour is price per unit of quantity per hour; a month is 730 hours.
	// For stopped_retention it is price per stopped hour.
	UnitPerHour Unit = "per_hour"
	// UnitFlatMonth is one flat price per month whenever the quantity is > 0.
	UnitFlatMonth Unit = "flat_month"
	// UnitPerGB is price per GB transferred.
	UnitPerGB Unit = "per_gb"
	// UnitOneOff is one flat price, once, whenever the quantity is > 0.
	UnitOneOff Unit = "one_off"
	// UnitPerEvent is price per start or scheduled job.
	UnitPerEvent Unit = "per_event"
)

// Units lists every unit in a stable order.
var Units = []Unit{UnitPerMonth, UnitPerDay, UnitPerHour, UnitFlatMonth, UnitPerGB, UnitOneOff, UnitPerEvent}

// LabelID is the message ID of the unit's label.
func (u Unit) LabelID() string { return "unit." + string(u) }

// Valid reports whether u is one of Units.
func (u Unit) Valid() bool {
	for _, x := range Units {
		if x == u {
			return true
		}
	}
	return false
}

// ItemKey names one of the twelve hidden-cost items.
type ItemKey string

// The twelve hidden-cost items, in table order (docs/RULES.md §3).
const (
	ItemBandwidth         ItemKey = "bandwidth"
	ItemEgress            ItemKey = "egress"
	ItemDataMigration     ItemKey = "data_migration"
	ItemPublicIP          ItemKey = "public_ip"
	ItemSystemDisk        ItemKey = "system_disk"
	ItemDataDisk          ItemKey = "data_disk"
	ItemObjectStorage     ItemKey = "object_storage"
	ItemBundledAddon      ItemKey = "bundled_addon"
	ItemSnapshot          ItemKey = "snapshot"
	ItemImage             ItemKey = "image"
	ItemStoppedRetention  ItemKey = "stopped_retention"
	ItemStartStopSchedule ItemKey = "start_stop_schedule"
)

// Item is one row of the hidden-cost table.
type Item struct {
	// Number is the row number, 1 to 12.
	Number int
	// Key is the stable machine key.
	Key ItemKey
	// Family is the guide's family of the item.
	Family Family
	// DefaultUnit is the unit the table prices it in.
	DefaultUnit Unit
	// Units are the units a price for this item may be given in (docs/RULES.md §3);
	// any other unit is an input error.
	Units []Unit
	// OneOff is true for the line charged once over the horizon
	// (data_migration), false for monthly lines.
	OneOff bool
	// LabelID is the message ID of the item's name.
	LabelID string
	// QuantityID is the message ID describing the quantity taken from the
	// usage profile.
	QuantityID string
	// Measure is what one unit of the item's quantity is (gb, mbps, ip,
	// bundle), named in the labels of its rate units; empty for items whose
	// rate units keep the generic label.
	Measure string
}

// UnitLabelID is the message ID of unit u on a line of this item: a rate
// unit says what it is a rate of ("per GB per month" for a disk, "per IP
// per month" for public IPs) rather than "per unit per month"; other units
// keep their own label.
func (it Item) UnitLabelID(u Unit) string {
	if it.Measure != "" && (u == UnitPerMonth || u == UnitPerDay || u == UnitPerHour) {
		return u.LabelID() + "." + it.Measure
	}
	return u.LabelID()
}

// measures is the Measure of each item whose quantity has a unit of its
// own (docs/RULES.md §3: GB, Mbps, IPs, the one bundle).
var measures = map[ItemKey]string{
	ItemBandwidth: "mbps", ItemPublicIP: "ip", ItemSystemDisk: "gb", ItemDataDisk: "gb",
	ItemObjectStorage: "gb", ItemBundledAddon: "bundle", ItemSnapshot: "gb", ItemImage: "gb",
}

// Allows reports whether u is one of the item's units.
func (it Item) Allows(u Unit) bool {
	for _, x := range it.Units {
		if x == u {
			return true
		}
	}
	return false
}

// Unit sets of the hidden-cost table (docs/RULES.md §3).
var (
	rateUnits    = []Unit{UnitPerMonth, UnitPerDay, UnitPerHour, UnitFlatMonth}
	egressUnits  = []Unit{UnitPerGB, UnitFlatMonth}
	migrateUnits = []Unit{UnitPerGB, UnitOneOff}
	bundleUnits  = []Unit{UnitFlatMonth, UnitPerMonth}
	stoppedUnits = []Unit{UnitPerHour, UnitFlatMonth}
	startUnits   = []Unit{UnitPerEvent, UnitFlatMonth}
)

func item(n int, k ItemKey, f Family, def Unit, units []Unit, oneOff bool) Item {
	return Item{
		Number: n, Key: k, Family: f, DefaultUnit: def, Units: units, OneOff: oneOff,
		LabelID: "item." + string(k), QuantityID: "item." + string(k) + ".quantity",
		Measure: measures[k],
	}
}

// Items is the twelve-line hidden-cost table in its fixed order.
var Items = []Item{
	item(1, ItemBandwidth, FamilyBandwidth, UnitPerMonth, rateUnits, false),
	item(2, ItemEgress, FamilyBandwidth, UnitPerGB, egressUnits, false),
	item(3, ItemDataMigration, FamilyBandwidth, UnitPerGB, migrateUnits, true),
	item(4, ItemPublicIP, FamilyPublicIP, UnitPerMonth, rateUnits, false),
	item(5, ItemSystemDisk, FamilyStorage, UnitPerMonth, rateUnits, false),
	item(6, ItemDataDisk, FamilyStorage, UnitPerMonth, rateUnits, false),
	item(7, ItemObjectStorage, FamilyStorage, UnitPerMonth, rateUnits, false),
	item(8, ItemBundledAddon, FamilyStorage, UnitFlatMonth, bundleUnits, false),
	item(9, ItemSnapshot, FamilySnapshots, UnitPerMonth, rateUnits, false),
	item(10, ItemImage, FamilySnapshots, UnitPerMonth, rateUnits, false),
	item(11, ItemStoppedRetention, FamilyStopped, UnitPerHour, stoppedUnits, false),
	item(12, ItemStartStopSchedule, FamilyStopped, UnitPerEvent, startUnits, false),
}

// ItemCount is the number of hidden-cost lines of every quote.
const ItemCount = 12

// ItemIndex returns the 0-based table position of key, or -1.
func ItemIndex(key ItemKey) int {
	switch key {
	case ItemBandwidth:
		return 0
	case ItemEgress:
		return 1
	case ItemDataMigration:
		return 2
	case ItemPublicIP:
		return 3
	case ItemSystemDisk:
		return 4
	case ItemDataDisk:
		return 5
	case ItemObjectStorage:
		return 6
	case ItemBundledAddon:
		return 7
	case ItemSnapshot:
		return 8
	case ItemImage:
		return 9
	case ItemStoppedRetention:
		return 10
	case ItemStartStopSchedule:
		return 11
	}
	return -1
}

// LookupItem returns the table row of key.
func LookupItem(key ItemKey) (Item, bool) {
	i := ItemIndex(key)
	if i < 0 {
		return Item{}, false
	}
	return Items[i], true
}

// ItemKeys lists the twelve item keys in table order.
func ItemKeys() []string {
	out := make([]string, len(Items))
	for i, it := range Items {
		out[i] = string(it.Key)
	}
	return out
}

// Status is the status of one hidden-cost line of a quote.
type Status string

// The line statuses (docs/RULES.md §3.1).
const (
	// StatusIncluded: confirmed free or included in the price.
	StatusIncluded Status = "included"
	// StatusCharged: confirmed price with unit and optional free allowance.
	StatusCharged Status = "charged"
	// StatusUnconfirmed: no written answer from the vendor; a risk.
	StatusUnconfirmed Status = "unconfirmed"
	// StatusNotApplicable: cannot occur for this offer.
	StatusNotApplicable Status = "not_applicable"
)

// Statuses lists the line statuses.
var Statuses = []Status{StatusIncluded, StatusCharged, StatusUnconfirmed, StatusNotApplicable}

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool {
	return s == StatusIncluded || s == StatusCharged || s == StatusUnconfirmed || s == StatusNotApplicable
}

// Confirmed reports whether the line's cost is confirmed (every status but
// unconfirmed).
func (s Status) Confirmed() bool { return s != StatusUnconfirmed }

// LabelID is the message ID of the status's label.
func (s Status) LabelID() string { return "status." + string(s) }

// Mode is a billing mode of the compute price.
type Mode string

// The billing modes (docs/RULES.md §4), in the order results list them.
const (
	ModeHourly  Mode = "hourly"
	ModeMonthly Mode = "monthly"
	ModeYearly  Mode = "yearly"
	ModeSpot    Mode = "spot"
)

// Modes lists the billing modes in display order.
var Modes = []Mode{ModeHourly, ModeMonthly, ModeYearly, ModeSpot}

// LabelID is the message ID of the mode's label.
func (m Mode) LabelID() string { return "mode." + string(m) }

// ModeStatus says whether a mode may be chosen for a profile.
type ModeStatus string

// Mode statuses.
const (
	ModeAllowed    ModeStatus = "allowed"
	ModeNotAllowed ModeStatus = "not_allowed"
)

// ModeStatuses lists the mode statuses.
var ModeStatuses = []ModeStatus{ModeAllowed, ModeNotAllowed}

// LabelID is the message ID of the mode status's label.
func (s ModeStatus) LabelID() string { return "mode_status." + string(s) }

// Sharing says whether a quoted GPU is a whole card or a share of one.
type Sharing string

// Sharing kinds (docs/RULES.md §2.2); the empty value means "not stated".
const (
	SharingDedicated Sharing = "dedicated"
	SharingShared    Sharing = "shared"
	SharingVGPU      Sharing = "vgpu"
)

// Sharings lists the sharing kinds.
var Sharings = []Sharing{SharingDedicated, SharingShared, SharingVGPU}

// Valid reports whether s is one of Sharings.
func (s Sharing) Valid() bool {
	return s == SharingDedicated || s == SharingShared || s == SharingVGPU
}

// LabelID is the message ID of the sharing kind's label.
func (s Sharing) LabelID() string { return "sharing." + string(s) }

// Granularity is the billing granularity of hourly and spot prices.
type Granularity string

// Billing granularities (docs/RULES.md §4.1).
const (
	GranularitySecond Granularity = "second"
	GranularityMinute Granularity = "minute"
	GranularityHour   Granularity = "hour"
)

// Granularities lists the granularities, finest first.
var Granularities = []Granularity{GranularitySecond, GranularityMinute, GranularityHour}

// Valid reports whether g is one of Granularities.
func (g Granularity) Valid() bool {
	return g == GranularitySecond || g == GranularityMinute || g == GranularityHour
}

// LabelID is the message ID of the granularity's label.
func (g Granularity) LabelID() string { return "granularity." + string(g) }

// BetweenRuns is what a team does with the instance between runs.
type BetweenRuns string

// Between-runs policies (docs/RULES.md §2.1, §3.5).
const (
	// BetweenRunsRelease: the instance is released; nothing bills while idle.
	BetweenRunsRelease BetweenRuns = "release"
	// BetweenRunsKeepStopped: the instance is shut down but kept; stopped
	// hours bill at line 11 in hourly and spot mode.
	BetweenRunsKeepStopped BetweenRuns = "keep_stopped"
)

// BetweenRunsPolicies lists the between-runs policies.
var BetweenRunsPolicies = []BetweenRuns{BetweenRunsRelease, BetweenRunsKeepStopped}

// Valid reports whether b is one of BetweenRunsPolicies.
func (b BetweenRuns) Valid() bool { return b == BetweenRunsRelease || b == BetweenRunsKeepStopped }

// LabelID is the message ID of the policy's label.
func (b BetweenRuns) LabelID() string { return "between_runs." + string(b) }

// Flag is a machine-readable risk flag of a TCO result.
type Flag string

// The risk flags (docs/RULES.md §6.3), in the order results list them.
const (
	FlagUnconfirmedLines         Flag = "unconfirmed_lines"
	FlagSharedNotDedicated       Flag = "shared_not_dedicated"
	FlagSpotNotAllowed           Flag = "spot_not_allowed"
	FlagCommitmentExceedsHorizon Flag = "commitment_exceeds_horizon"
	FlagEarlyTerminationGE20Pct  Flag = "early_termination_ge_20pct"
	FlagDepositNotRefundable     Flag = "deposit_not_refundable"
	FlagBalanceNotWithdrawable   Flag = "balance_not_withdrawable"
	FlagVRAMBelowTaskFloor       Flag = "vram_below_task_floor"
	FlagPerformanceBelow85Pct    Flag = "performance_below_85pct"
	FlagQuoteStale90d            Flag = "quote_stale_90d"
)

// Flags lists every flag in result order.
var Flags = []Flag{
	FlagUnconfirmedLines, FlagSharedNotDedicated, FlagSpotNotAllowed,
	FlagCommitmentExceedsHorizon, FlagEarlyTerminationGE20Pct, FlagDepositNotRefundable,
	FlagBalanceNotWithdrawable, FlagVRAMBelowTaskFloor, FlagPerformanceBelow85Pct,
	FlagQuoteStale90d,
}

// LabelID is the message ID of the flag's wording.
func (f Flag) LabelID() string { return "flag." + string(f) }

// Task is the kind of work a team rents GPUs for (VRAM floor estimate).
type Task string

// Tasks of the VRAM-floor rule of thumb.
const (
	TaskFullTraining Task = "full_training"
	TaskFullFinetune Task = "full_finetune"
	TaskLoRA         Task = "lora"
	TaskQLoRA        Task = "qlora"
	TaskInference    Task = "inference"
	TaskRendering    Task = "rendering"
)

// Tasks lists the tasks.
var Tasks = []Task{TaskFullTraining, TaskFullFinetune, TaskLoRA, TaskQLoRA, TaskInference, TaskRendering}

// Valid reports whether t is one of Tasks.
func (t Task) Valid() bool {
	for _, x := range Tasks {
		if x == t {
			return true
		}
	}
	return false
}

// LabelID is the message ID of the task's label.
func (t Task) LabelID() string { return "task." + string(t) }

// Precision is the numeric precision model weights are held in.
type Precision string

// Precisions of the VRAM-floor rule of thumb.
const (
	PrecisionFP32 Precision = "fp32"
	PrecisionBF16 Precision = "bf16"
	PrecisionFP16 Precision = "fp16"
	PrecisionFP8  Precision = "fp8"
	PrecisionINT8 Precision = "int8"
	PrecisionINT4 Precision = "int4"
)

// Precisions lists the precisions, widest first.
var Precisions = []Precision{PrecisionFP32, PrecisionBF16, PrecisionFP16, PrecisionFP8, PrecisionINT8, PrecisionINT4}

// Valid reports whether p is one of Precisions.
func (p Precision) Valid() bool {
	for _, x := range Precisions {
		if x == p {
			return true
		}
	}
	return false
}

// LabelID is the message ID of the precision's label.
func (p Precision) LabelID() string { return "precision." + string(p) }
