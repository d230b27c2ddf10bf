package catalog

// TrialPhase is a stage of the 7-day trial.
type TrialPhase string

// The four phases of the 7-day trial (docs/RULES.md §9.1).
const (
	// PhaseDay1 — hardware and model; any failure means leave.
	PhaseDay1 TrialPhase = "day1"
	// PhaseDays2To6 — performance and stability.
	PhaseDays2To6 TrialPhase = "days2_6"
	// PhaseDays1To7 — billing, checked throughout.
	PhaseDays1To7 TrialPhase = "days1_7"
	// PhaseDay7 — exit and data.
	PhaseDay7 TrialPhase = "day7"
)

// TrialPhases lists the phases in the order the checklist shows them.
var TrialPhases = []TrialPhase{PhaseDay1, PhaseDays2To6, PhaseDays1To7, PhaseDay7}

// LabelID is the message ID of the phase's heading.
func (p TrialPhase) LabelID() string { return "trial_phase." + string(p) }

// TrialCheck is one of the 30 acceptance checks of the 7-day trial.
type TrialCheck struct {
	// Number is the check's number, 1 to 30.
	Number int
	// Key is the stable machine key.
	Key string
	// Phase is the trial phase the check belongs to.
	Phase TrialPhase
	// LeaveOnFailure is true for the day-1 checks: a failure there means
	// leave, not "watch a few more days".
	LeaveOnFailure bool
	// LabelID is the message ID of the check's wording.
	LabelID string
}

func check(n int, p TrialPhase, key string) TrialCheck {
	return TrialCheck{Number: n, Key: key, Phase: p, LeaveOnFailure: p == PhaseDay1, LabelID: "trial." + key}
}

// TrialChecks is the 30-item acceptance list in order.
var TrialChecks = []TrialCheck{
	check(1, PhaseDay1, "model_matches"),
	check(2, PhaseDay1, "vram_total_matches"),
	check(3, PhaseDay1, "driver_cuda_fit"),
	check(4, PhaseDay1, "memory_bandwidth"),
	check(5, PhaseDay1, "topology_matches"),
	check(6, PhaseDay1, "allocatable_vram_90pct"),
	check(7, PhaseDay1, "local_disk_measured"),
	check(8, PhaseDay1, "image_matches_docs"),
	check(9, PhaseDays2To6, "vram_curve_24h"),
	check(10, PhaseDays2To6, "utilisation_matches_load"),
	check(11, PhaseDays2To6, "no_clock_throttling"),
	check(12, PhaseDays2To6, "checkpoint_resume"),
	check(13, PhaseDays2To6, "upload_download_bandwidth"),
	check(14, PhaseDays2To6, "cross_node_bandwidth"),
	check(15, PhaseDays2To6, "no_unannounced_migration"),
	check(16, PhaseDays2To6, "full_load_2h"),
	check(17, PhaseDays1To7, "billing_start_point"),
	check(18, PhaseDays1To7, "billed_while_shut_down"),
	check(19, PhaseDays1To7, "snapshot_image_billing"),
	check(20, PhaseDays1To7, "ip_bandwidth_billing"),
	check(21, PhaseDays1To7, "itemised_bill_checked"),
	check(22, PhaseDays1To7, "refund_path_written"),
	check(23, PhaseDay7, "termination_notice"),
	check(24, PhaseDay7, "refund_period_clear"),
	check(25, PhaseDay7, "data_deletion_confirmed"),
	check(26, PhaseDay7, "export_method_egress_cost"),
	check(27, PhaseDay7, "invoice_confirmed"),
	check(28, PhaseDay7, "sla_compensation_confirmed"),
	check(29, PhaseDay7, "support_response_recorded"),
	check(30, PhaseDay7, "migration_time_cost_measured"),
}

// Clause is an entry of a fixed reading or confirmation list.
type Clause struct {
	// Number is the entry's number, starting at 1.
	Number int
	// Key is the stable machine key.
	Key string
	// LabelID is the message ID of the entry's wording.
	LabelID string
}

// SLAClauses are the six SLA clauses to read word by word.
var SLAClauses = []Clause{
	{1, "availability_definition", "sla.availability_definition"},
	{2, "compensation", "sla.compensation"},
	{3, "maintenance_notice", "sla.maintenance_notice"},
	{4, "unilateral_change", "sla.unilateral_change"},
	{5, "data_loss", "sla.data_loss"},
	{6, "termination_refund", "sla.termination_refund"},
}

// WrittenConfirmations are the five things to get in writing before signing.
// The first is answered by the twelve hidden-cost lines.
var WrittenConfirmations = []Clause{
	{1, "hidden_items", "confirm.hidden_items"},
	{2, "stopped_billing", "confirm.stopped_billing"},
	{3, "egress", "confirm.egress"},
	{4, "sla_terms", "confirm.sla_terms"},
	{5, "termination_refund", "confirm.termination_refund"},
}

// MessageIDs returns every message ID the catalog refers to, so a test can
// check each exists in every locale file.
func MessageIDs() []string {
	var ids []string
	for _, f := range Families {
		ids = append(ids, f.LabelID())
	}
	for _, u := range Units {
		ids = append(ids, u.LabelID())
	}
	for _, it := range Items {
		ids = append(ids, it.LabelID, it.QuantityID)
	}
	// The items' own unit labels (per GB per month, …), each once.
	seenUnit := map[string]bool{}
	for _, u := range Units {
		seenUnit[u.LabelID()] = true
	}
	for _, it := range Items {
		for _, u := range it.Units {
			if id := it.UnitLabelID(u); !seenUnit[id] {
				seenUnit[id] = true
				ids = append(ids, id)
			}
		}
	}
	for _, s := range Statuses {
		ids = append(ids, s.LabelID())
	}
	for _, m := range Modes {
		ids = append(ids, m.LabelID())
	}
	for _, s := range ModeStatuses {
		ids = append(ids, s.LabelID())
	}
	for _, s := range Sharings {
		ids = append(ids, s.LabelID())
	}
	for _, g := range Granularities {
		ids = append(ids, g.LabelID())
	}
	for _, b := range BetweenRunsPolicies {
		ids = append(ids, b.LabelID())
	}
	for _, f := range Flags {
		ids = append(ids, f.LabelID())
	}
	for _, t := range Tasks {
		ids = append(ids, t.LabelID())
	}
	for _, p := range Precisions {
		ids = append(ids, p.LabelID())
	}
	for _, p := range TrialPhases {
		ids = append(ids, p.LabelID())
	}
	for _, c := range TrialChecks {
		ids = append(ids, c.LabelID)
	}
	for _, c := range SLAClauses {
		ids = append(ids, c.LabelID)
	}
	for _, c := range WrittenConfirmations {
		ids = append(ids, c.LabelID)
	}
	return ids
}
