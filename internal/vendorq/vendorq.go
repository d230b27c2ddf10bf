// Package vendorq turns what a quote leaves open into the questions to
// send the vendor: every hidden-cost line without a written answer and
// every missing contract term becomes one polite, exact question, grouped
// as the guide's five written confirmations and six SLA clauses
// (docs/RULES.md §10).
//
// Questions carry message IDs and arguments, not words, so a page renders
// them in the reader's language. Argument convention: an argument whose
// key ends in "ID" (ItemID, UsageID, BasisID) holds a message ID; Render
// translates it first, with the question's other arguments, and passes the
// result to the question's message under the key without the suffix
// (ItemID → {{.Item}}). Message placeholders cannot call the translator, so
// this is how a question names an item in the reader's language.
package vendorq

import (
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/facts"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/tco"
)

// Question is one question to the vendor, rendered by the caller's
// translator (see Render).
type Question struct {
	// MessageID is the question's message (vq.*).
	MessageID string
	// Args are the message's template arguments; keys ending in "ID" hold
	// message IDs that Render translates first.
	Args map[string]any
}

// Kind says which of the guide's two lists a group belongs to.
type Kind string

// The two lists (docs/RULES.md §10).
const (
	// KindConfirmation is one of the five things to get in writing.
	KindConfirmation Kind = "confirmation"
	// KindSLA is one of the six SLA clauses to read word by word.
	KindSLA Kind = "sla"
)

// Group is the questions a quote raises under one written confirmation or
// one SLA clause.
type Group struct {
	// Kind is the list the group belongs to.
	Kind Kind
	// LabelID is the message ID of the confirmation's or clause's wording
	// (confirm.* or sla.*, see catalog).
	LabelID string
	// Number is the confirmation's (1–5) or clause's (1–6) number.
	Number int
	// Questions are the group's questions, never empty.
	Questions []Question
}

// Context is what the team's usage profile adds to make a question exact.
// Quantities are per instance, as in a usage profile; zero (or less)
// means unknown, and the question then names what the quantity would be
// instead of a number.
type Context struct {
	// Mbps is the public bandwidth needed.
	Mbps decimal.Decimal
	// EgressGBPerMonth is the data downloaded from the instance per month.
	EgressGBPerMonth decimal.Decimal
	// MigrationGB is the data moved in at the start plus out at the end.
	MigrationGB decimal.Decimal
	// PublicIPs is the number of public IPs held.
	PublicIPs int
	// SystemDiskGB and DataDiskGB are the disk sizes needed.
	SystemDiskGB, DataDiskGB decimal.Decimal
	// ObjectStorageGB is the object or shared storage kept.
	ObjectStorageGB decimal.Decimal
	// SnapshotGB and ImageGB are the snapshot and custom-image sizes kept.
	SnapshotGB, ImageGB decimal.Decimal
	// StoppedHoursPerMonth is the time the instance is shut down but not
	// released each month (730 − running hours when kept stopped).
	StoppedHoursPerMonth decimal.Decimal
	// StartsPerMonth is the number of starts or scheduled jobs per month.
	StartsPerMonth int
	// Terms are the platform's recorded answers to the SLA clauses and
	// written confirmations. Nil means they were not looked up: questions
	// then come from the quote alone. Otherwise a clause or confirmation
	// without a term here is unanswered (see For).
	Terms []Term
	// UnknownFacts are the platform's facts still unknown today; each
	// becomes a question after the SLA clauses. Nil (a saved report's
	// frozen questions) asks none (docs/RULES.md §18.3).
	UnknownFacts []facts.Kind
}

// Term is the platform's answer to one SLA clause or written
// confirmation (catalog.SLAClauses, catalog.WrittenConfirmations).
type Term struct {
	// Kind and Key name the clause: KindSLA or KindConfirmation and the
	// catalog key.
	Kind Kind
	Key  string
	// Answer is what the vendor said; InWriting says it is in the
	// contract or a signed or stamped document; Date is the day of the
	// answer (YYYY-MM-DD), "" when not known.
	Answer    string
	InWriting bool
	Date      string
}

// written reports whether the term is answered in writing.
func (t Term) written() bool { return t.InWriting && strings.TrimSpace(t.Answer) != "" }

// term returns the platform's term for a clause, and whether terms were
// looked up at all.
func (c Context) term(kind Kind, key string) (Term, bool) {
	if c.Terms == nil {
		return Term{}, false
	}
	for _, t := range c.Terms {
		if t.Kind == kind && t.Key == key {
			return t, true
		}
	}
	return Term{Kind: kind, Key: key}, true
}

// unwritten asks the vendor to confirm in writing an answer given
// otherwise, quoting it (and its date) so they know which one.
func unwritten(c catalog.Clause, t Term) Question {
	args := map[string]any{"LabelID": c.LabelID, "Answer": strings.TrimSpace(t.Answer)}
	if t.Date != "" {
		args["Date"] = t.Date
		return Question{MessageID: "vq.term.unwritten_dated", Args: args}
	}
	return Question{MessageID: "vq.term.unwritten", Args: args}
}

// quantity returns the context's quantity for item k, formatted, and
// whether it is known.
func (c Context) quantity(k catalog.ItemKey) (string, bool) {
	var q decimal.Decimal
	switch k {
	case catalog.ItemBandwidth:
		q = c.Mbps
	case catalog.ItemEgress:
		q = c.EgressGBPerMonth
	case catalog.ItemDataMigration:
		q = c.MigrationGB
	case catalog.ItemPublicIP:
		q = decimal.NewFromInt(int64(c.PublicIPs))
	case catalog.ItemSystemDisk:
		q = c.SystemDiskGB
	case catalog.ItemDataDisk:
		q = c.DataDiskGB
	case catalog.ItemObjectStorage:
		q = c.ObjectStorageGB
	case catalog.ItemSnapshot:
		q = c.SnapshotGB
	case catalog.ItemImage:
		q = c.ImageGB
	case catalog.ItemStoppedRetention:
		q = c.StoppedHoursPerMonth
	case catalog.ItemStartStopSchedule:
		q = decimal.NewFromInt(int64(c.StartsPerMonth))
	}
	if q.Sign() <= 0 {
		return "", false
	}
	return number(q), true
}

// hasUsage reports whether item k has a quantity in a Context (the
// bundled add-on has none: it is 1 when mandatory).
func hasUsage(k catalog.ItemKey) bool { return k != catalog.ItemBundledAddon }

// number formats a quantity or percentage the same way in both languages:
// plain digits, thousands grouped, no trailing zeros ("1,500", "99.9").
func number(d decimal.Decimal) string { return money.Group(money.String(d)) }

// open reports whether a line still needs the vendor's answer: it is
// unconfirmed (or its status is missing), or it counts as unconfirmed.
func open(l quote.Line) bool {
	s := catalog.Status(l.Status)
	return !s.Valid() || s == catalog.StatusUnconfirmed || l.CountsAsUnconfirmed()
}

// linesByItem returns the quote's line for each of the twelve items; an
// item without a line gets an unconfirmed one (docs/RULES.md §3.1: a missing answer
// is an unconfirmed answer).
func linesByItem(q quote.Quote) map[catalog.ItemKey]quote.Line {
	out := make(map[catalog.ItemKey]quote.Line, catalog.ItemCount)
	for _, l := range q.Lines {
		out[catalog.ItemKey(l.Item)] = l
	}
	for _, it := range catalog.Items {
		if _, ok := out[it.Key]; !ok {
			out[it.Key] = quote.Line{Item: string(it.Key), Status: string(catalog.StatusUnconfirmed)}
		}
	}
	return out
}

// stoppedItems are the lines behind the second confirmation, in the
// guide's order: shutdown and stopped state, snapshots, images, public IP.
var stoppedItems = []catalog.ItemKey{catalog.ItemStoppedRetention, catalog.ItemSnapshot, catalog.ItemImage, catalog.ItemPublicIP}

// For returns the questions quote q raises, grouped: first the five written
// confirmations, then the six SLA clauses, each in its number order.
// Groups without questions are left out. The SLA clauses a quote cannot
// answer (maintenance notice, unilateral changes, data-loss
// responsibility) are asked unless the platform answered them in writing.
//
// With the platform's terms (ctx.Terms not nil), the guide's rule "only a
// written answer counts" applies to them too:
//   - an SLA clause the platform answered in writing is not asked; one it
//     answered otherwise is asked to be confirmed in writing, quoting the
//     answer, instead of the clause's open question;
//   - a written confirmation keeps the questions the quote's open lines
//     and terms raise (they name this offer's prices); the platform's
//     answer not in writing adds the request to confirm it in writing,
//     and no answer at all asks for one when the quote raised nothing
//     else under that confirmation. The first confirmation (the twelve
//     hidden-cost lines) is answered line by line by the quote, never by
//     a platform-wide answer.
func For(q quote.Quote, ctx Context) []Group {
	lines := linesByItem(q)
	var groups []Group
	add := func(kind Kind, c catalog.Clause, qs []Question) {
		if len(qs) > 0 {
			groups = append(groups, Group{Kind: kind, LabelID: c.LabelID, Number: c.Number, Questions: qs})
		}
	}
	for _, c := range catalog.WrittenConfirmations {
		qs := confirmation(c.Key, q, lines, ctx)
		if t, ok := ctx.term(KindConfirmation, c.Key); ok && c.Key != "hidden_items" && !t.written() {
			switch {
			case strings.TrimSpace(t.Answer) != "":
				qs = append(qs, unwritten(c, t))
			case len(qs) == 0:
				qs = append(qs, Question{MessageID: "vq.term.missing", Args: map[string]any{"LabelID": c.LabelID}})
			}
		}
		add(KindConfirmation, c, qs)
	}
	for _, c := range catalog.SLAClauses {
		qs := slaClause(c.Key, q)
		if t, ok := ctx.term(KindSLA, c.Key); ok {
			switch {
			case t.written():
				qs = nil
			case strings.TrimSpace(t.Answer) != "" && len(qs) > 0:
				qs = []Question{unwritten(c, t)}
			}
		}
		add(KindSLA, c, qs)
	}
	return append(groups, factGroup(ctx.UnknownFacts)...)
}

// confirmation returns the questions of the written confirmation key.
func confirmation(key string, q quote.Quote, lines map[catalog.ItemKey]quote.Line, ctx Context) []Question {
	var qs []Question
	switch key {
	case "hidden_items":
		// One question per line without a written answer, naming the item
		// and the quantity it applies to.
		for _, it := range catalog.Items {
			if l := lines[it.Key]; open(l) {
				qs = append(qs, lineQuestion(it, l, ctx))
			}
		}
	case "stopped_billing":
		for _, k := range stoppedItems {
			if open(lines[k]) {
				qs = append(qs, Question{MessageID: "vq.stopped." + string(k)})
			}
		}
	case "egress":
		if open(lines[catalog.ItemEgress]) {
			if v, ok := ctx.quantity(catalog.ItemEgress); ok {
				qs = append(qs, Question{MessageID: "vq.egress.volume", Args: map[string]any{"Quantity": v}})
			} else {
				qs = append(qs, Question{MessageID: "vq.egress.no_volume"})
			}
		}
	case "sla_terms":
		if !q.SLAAvailabilityPct.Valid {
			qs = append(qs, Question{MessageID: "vq.sla_terms.availability"})
		}
		if !hasCompensation(q) {
			if q.SLAAvailabilityPct.Valid {
				qs = append(qs, Question{MessageID: "vq.sla_terms.compensation_pct",
					Args: map[string]any{"Pct": number(q.SLAAvailabilityPct.Decimal)}})
			} else {
				qs = append(qs, Question{MessageID: "vq.sla_terms.compensation"})
			}
		}
	case "termination_refund":
		if earlyTerminationOpen(q) {
			qs = append(qs, Question{MessageID: "vq.termination.early", Args: map[string]any{"Months": q.CommitmentMonths}})
		}
		if q.DepositRefundable == nil {
			if q.Deposit.Valid && q.Deposit.Decimal.Sign() > 0 {
				amount := money.Group(money.Fixed(q.Deposit.Decimal, 2)) + " " + q.Currency
				qs = append(qs, Question{MessageID: "vq.termination.deposit_amount", Args: map[string]any{"Deposit": strings.TrimSpace(amount)}})
			} else {
				qs = append(qs, Question{MessageID: "vq.termination.deposit"})
			}
		}
		if q.BalanceWithdrawable == nil {
			qs = append(qs, Question{MessageID: "vq.termination.balance"})
		}
		if q.InvoiceType == "" {
			qs = append(qs, Question{MessageID: "vq.termination.invoice"})
		}
	}
	return qs
}

// lineQuestion asks about one open hidden-cost line: whether it is billed,
// and if so its unit price, unit and free allowance. An "included" or
// "not applicable" claim without a written answer is asked to be confirmed
// in writing.
func lineQuestion(it catalog.Item, l quote.Line, ctx Context) Question {
	id := "vq.line.unconfirmed"
	switch catalog.Status(l.Status) {
	case catalog.StatusIncluded:
		id = "vq.line.included"
	case catalog.StatusNotApplicable:
		id = "vq.line.not_applicable"
	}
	args := map[string]any{"ItemID": it.LabelID}
	if v, ok := ctx.quantity(it.Key); ok {
		id += "_usage"
		args["UsageID"] = "vq.usage." + string(it.Key)
		args["Quantity"] = v
	} else {
		args["BasisID"] = "vq.basis." + string(it.Key)
	}
	return Question{MessageID: id, Args: args}
}

// hasCompensation reports whether the quote records its SLA compensation.
func hasCompensation(q quote.Quote) bool { return strings.TrimSpace(q.SLACompensation) != "" }

// earlyTerminationOpen reports whether a minimum commitment has no recorded
// early-termination penalty.
func earlyTerminationOpen(q quote.Quote) bool {
	return q.CommitmentMonths > 0 && !q.EarlyTerminationPct.Valid
}

// slaClause returns the question of SLA clause key, or none when the
// quote's recorded terms answer it.
func slaClause(key string, q quote.Quote) []Question {
	answered := false
	switch key {
	case "availability_definition":
		answered = q.SLAAvailabilityPct.Valid
	case "compensation":
		answered = hasCompensation(q)
	case "termination_refund":
		answered = q.DepositRefundable != nil && q.BalanceWithdrawable != nil && !earlyTerminationOpen(q)
	}
	// maintenance_notice, unilateral_change and data_loss: no field of a
	// quote records them, so they are always asked.
	if answered {
		return nil
	}
	return []Question{{MessageID: "vq.sla." + key}}
}

// Translate renders message id with its template arguments, such as
// (*i18n.Translator).TMap.
type Translate func(id string, args map[string]any) string

// Args returns the template arguments of q ready for its message: every
// argument whose key ends in "ID" is translated (with q's other arguments)
// and passed under the key without the suffix; the others pass as they are.
func Args(q Question, t Translate) map[string]any {
	plain := make(map[string]any, len(q.Args))
	for k, v := range q.Args {
		if !isIDKey(k) {
			plain[k] = v
		}
	}
	out := make(map[string]any, len(q.Args))
	for k, v := range q.Args {
		if !isIDKey(k) {
			out[k] = v
			continue
		}
		if id, ok := v.(string); ok {
			out[strings.TrimSuffix(k, "ID")] = t(id, plain)
		}
	}
	return out
}

// isIDKey reports whether argument key k holds a message ID.
func isIDKey(k string) bool { return len(k) > 2 && strings.HasSuffix(k, "ID") }

// Render returns question q in the language of t.
func Render(q Question, t Translate) string { return t(q.MessageID, Args(q, t)) }

// Heading returns the heading of group g in the language of t, e.g.
// "SLA 条款 3：计划维护的提前通知期".
func Heading(g Group, t Translate) string {
	id := "vq.heading.confirmation"
	if g.Kind == KindFacts {
		return t(g.LabelID, nil)
	}
	if g.Kind == KindSLA {
		id = "vq.heading.sla"
	}
	return t(id, map[string]any{"Number": g.Number, "Label": t(g.LabelID, nil)})
}

// PlainText renders the groups as text to copy into an email or chat: the
// title (naming the platform, GPU and quote version) on top, a greeting,
// then each group's heading and its questions, one per line, numbered
// "1. …" straight through so the vendor can answer by number, and a
// closing line.
func PlainText(title string, groups []Group, t Translate) string {
	var b strings.Builder
	if title != "" {
		b.WriteString(title + "\n\n")
	}
	if len(groups) == 0 {
		b.WriteString(t("vq.text.none", nil) + "\n")
		return b.String()
	}
	b.WriteString(t("vq.text.intro", nil) + "\n")
	n := 0
	for _, g := range groups {
		b.WriteString("\n" + Heading(g, t) + "\n")
		for _, q := range g.Questions {
			n++
			b.WriteString(strconv.Itoa(n) + ". " + Render(q, t) + "\n")
		}
	}
	b.WriteString("\n" + t("vq.text.closing", nil) + "\n")
	return b.String()
}

// MergeLetters merges letters written by PlainText, each with a title,
// whose questions are word for word the same (everything after the title):
// one letter per distinct body, in the order first met, with the titles
// of every quote it stands for on top, one per line. members lists, per
// merged letter, the indexes of the letters it stands for.
func MergeLetters(letters []string) (merged []string, members [][]int) {
	var titles [][]string
	var bodies []string
	at := map[string]int{}
	for i, l := range letters {
		title, body, _ := strings.Cut(l, "\n\n")
		k, ok := at[body]
		if !ok {
			k = len(bodies)
			at[body] = k
			bodies, titles, members = append(bodies, body), append(titles, nil), append(members, nil)
		}
		titles[k], members[k] = append(titles[k], title), append(members[k], i)
	}
	for k, body := range bodies {
		merged = append(merged, strings.Join(titles[k], "\n")+"\n\n"+body)
	}
	return merged, members
}

// MessageIDs returns every message ID a question, heading or PlainText may
// use, including the nested ones, so a test can check each exists in every
// language.
func MessageIDs() []string {
	ids := []string{
		"vq.text.intro", "vq.text.closing", "vq.text.none", "vq.heading.confirmation", "vq.heading.sla",
		"vq.egress.volume", "vq.egress.no_volume",
		"vq.sla_terms.availability", "vq.sla_terms.compensation", "vq.sla_terms.compensation_pct",
		"vq.termination.early", "vq.termination.deposit_amount", "vq.termination.deposit",
		"vq.termination.balance", "vq.termination.invoice",
		"vq.term.missing", "vq.term.unwritten", "vq.term.unwritten_dated",
	}
	for _, s := range []string{"unconfirmed", "included", "not_applicable"} {
		ids = append(ids, "vq.line."+s, "vq.line."+s+"_usage")
	}
	for _, it := range catalog.Items {
		ids = append(ids, it.LabelID, "vq.basis."+string(it.Key))
		if hasUsage(it.Key) {
			ids = append(ids, "vq.usage."+string(it.Key))
		}
	}
	for _, k := range stoppedItems {
		ids = append(ids, "vq.stopped."+string(k))
	}
	for _, c := range catalog.WrittenConfirmations {
		ids = append(ids, c.LabelID)
	}
	for _, c := range catalog.SLAClauses {
		ids = append(ids, c.LabelID, "vq.sla."+c.Key)
	}
	return append(ids, factMessageIDs()...)
}

// ContextFor is what a usage profile adds to a quote's questions: its
// volumes, and the stopped hours the engine derives for the quote (730 −
// billable hours when the instance is kept stopped in an hourly mode),
// evaluated in the quote's own currency on the given day. The questions
// page and a saved report both ask it, so they ask the same questions.
// Terms are the caller's to add.
func ContextFor(q quote.Quote, p tco.Profile, today time.Time) Context {
	qc := Context{Mbps: p.Mbps, EgressGBPerMonth: p.EgressGBPerMonth, MigrationGB: p.MigrationGB, PublicIPs: p.PublicIPs,
		SystemDiskGB: p.SystemDiskGB, DataDiskGB: p.DataDiskGB, ObjectStorageGB: p.ObjectStorageGB, SnapshotGB: p.SnapshotGB,
		ImageGB: p.ImageGB, StartsPerMonth: p.StartsPerMonth}
	gpu := market.GPUModel{Vendor: q.GPUVendor, Name: q.GPUName}
	if res, err := tco.Evaluate(q.Engine(gpu), p, tco.Options{ReportCurrency: q.Currency, Today: today}); err == nil {
		for _, l := range res.Lines {
			if l.Item == catalog.ItemStoppedRetention {
				qc.StoppedHoursPerMonth = l.Quantity
			}
		}
	}
	return qc
}

// TermsOf are a platform's stored terms as the questions read them: every
// one of the eleven, answered or not (so the questions know they were
// looked up).
func TermsOf(terms []market.PlatformTerm) []Term {
	byKey := market.TermsByKey(terms)
	out := make([]Term, 0, len(catalog.SLAClauses)+len(catalog.WrittenConfirmations))
	for _, tc := range market.TermClauses() {
		t := byKey[tc.Kind+"."+tc.Clause.Key]
		kind := KindSLA
		if tc.Kind == market.TermKindConfirmation {
			kind = KindConfirmation
		}
		vt := Term{Kind: kind, Key: tc.Clause.Key, Answer: t.Answer, InWriting: t.InWriting}
		if t.AnsweredOn != nil {
			vt.Date = t.AnsweredOn.Format(time.DateOnly)
		}
		out = append(out, vt)
	}
	return out
}

// Frozen are a saved report row's frozen questions as groups.
func Frozen(r report.Row) []Group {
	out := make([]Group, 0, len(r.Questions))
	for _, g := range r.Questions {
		vg := Group{Kind: Kind(g.Kind), LabelID: g.LabelID, Number: g.Number}
		for _, q := range g.Questions {
			vg.Questions = append(vg.Questions, Question{MessageID: q.ID, Args: q.ArgsMap()})
		}
		out = append(out, vg)
	}
	return out
}

// UnconfirmedQuestion is the question about hidden-cost item k that an
// open line asks: whether it is billed, and at what price, unit and free
// allowance. The bill check shows it beside a hidden cost that appeared
// (docs/RULES.md §23.10): the question that would have caught it.
func UnconfirmedQuestion(k catalog.ItemKey) Question {
	it, _ := catalog.LookupItem(k)
	return lineQuestion(it, quote.Line{Item: string(k), Status: string(catalog.StatusUnconfirmed)}, Context{})
}
