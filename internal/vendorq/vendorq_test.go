package vendorq

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/quote"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func yes() *bool { b := true; return &b }

// allLines returns the twelve lines with one status, in writing or not.
func allLines(status catalog.Status, inWriting bool) []quote.Line {
	out := make([]quote.Line, 0, catalog.ItemCount)
	for _, it := range catalog.Items {
		out = append(out, quote.Line{Item: string(it.Key), Status: string(status), InWriting: inWriting})
	}
	return out
}

// openQuote has every line unconfirmed and no recorded terms, with a
// six-month commitment and a deposit.
func openQuote() quote.Quote {
	return quote.Quote{Currency: "CNY", CommitmentMonths: 6, Deposit: decimal.NewNullDecimal(d("500")),
		Lines: allLines(catalog.StatusUnconfirmed, false)}
}

// closedQuote has every line confirmed in writing and every term recorded.
func closedQuote() quote.Quote {
	lines := allLines(catalog.StatusIncluded, true)
	lines[1] = quote.Line{Item: string(catalog.ItemEgress), Status: string(catalog.StatusCharged), Unit: string(catalog.UnitPerGB),
		UnitPrice: decimal.NewNullDecimal(d("0.8")), InWriting: true}
	lines[7].Status = string(catalog.StatusNotApplicable)
	return quote.Quote{Currency: "CNY", CommitmentMonths: 6, EarlyTerminationPct: decimal.NewNullDecimal(d("20")),
		DepositRefundable: yes(), BalanceWithdrawable: yes(), InvoiceType: "vat_special",
		SLAAvailabilityPct: decimal.NewNullDecimal(d("99.9")), SLACompensation: "10 % voucher per hour down, capped at the month's fee",
		Lines: lines}
}

type groupKey struct {
	kind   Kind
	number int
}

func byKey(gs []Group) map[groupKey]Group {
	out := map[groupKey]Group{}
	for _, g := range gs {
		out[groupKey{g.Kind, g.Number}] = g
	}
	return out
}

func TestEverythingOpenAsksEveryGroup(t *testing.T) {
	gs := For(openQuote(), Context{})
	if len(gs) != 5+6 {
		t.Fatalf("%d groups, want 11: %+v", len(gs), gs)
	}
	for i, c := range catalog.WrittenConfirmations {
		if gs[i].Kind != KindConfirmation || gs[i].Number != c.Number || gs[i].LabelID != c.LabelID {
			t.Errorf("group %d is %+v, want confirmation %d", i, gs[i], c.Number)
		}
	}
	for i, c := range catalog.SLAClauses {
		g := gs[5+i]
		if g.Kind != KindSLA || g.Number != c.Number || g.LabelID != c.LabelID || len(g.Questions) != 1 {
			t.Errorf("group %d is %+v, want SLA clause %d", 5+i, g, c.Number)
		}
	}
	if n := len(gs[0].Questions); n != 12 {
		t.Errorf("%d line questions, want 12", n)
	}
	for i, q := range gs[0].Questions {
		if q.MessageID != "vq.line.unconfirmed" || q.Args["ItemID"] != catalog.Items[i].LabelID ||
			q.Args["BasisID"] != "vq.basis."+string(catalog.Items[i].Key) {
			t.Errorf("line question %d: %+v", i, q)
		}
	}
	if n := len(gs[1].Questions); n != 4 {
		t.Errorf("%d stopped-billing questions, want 4", n)
	}
	if q := gs[2].Questions; len(q) != 1 || q[0].MessageID != "vq.egress.no_volume" {
		t.Errorf("egress: %+v", q)
	}
	if q := gs[3].Questions; len(q) != 2 || q[1].MessageID != "vq.sla_terms.compensation" {
		t.Errorf("SLA terms: %+v", q)
	}
	// Commitment without a penalty, deposit, balance, invoice.
	q := gs[4].Questions
	if len(q) != 4 || q[0].Args["Months"] != 6 || q[1].MessageID != "vq.termination.deposit_amount" || q[1].Args["Deposit"] != "500.00 CNY" {
		t.Errorf("termination: %+v", q)
	}
}

func TestMissingLinesAreUnconfirmed(t *testing.T) {
	q := closedQuote()
	q.Lines = q.Lines[:10] // no stopped_retention, no start_stop_schedule line
	g := byKey(For(q, Context{}))
	if qs := g[groupKey{KindConfirmation, 1}].Questions; len(qs) != 2 || qs[0].Args["ItemID"] != "item.stopped_retention" {
		t.Errorf("missing lines: %+v", qs)
	}
	if qs := g[groupKey{KindConfirmation, 2}].Questions; len(qs) != 1 || qs[0].MessageID != "vq.stopped.stopped_retention" {
		t.Errorf("stopped billing: %+v", qs)
	}
}

func TestFullyAnsweredAsksOnlyTheAlwaysAskedClauses(t *testing.T) {
	gs := For(closedQuote(), Context{EgressGBPerMonth: d("500")})
	var got []string
	for _, g := range gs {
		if g.Kind != KindSLA {
			t.Errorf("confirmation %d asked: %+v", g.Number, g.Questions)
		}
		got = append(got, g.LabelID)
	}
	want := []string{"sla.maintenance_notice", "sla.unilateral_change", "sla.data_loss"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("groups %v, want %v", got, want)
	}
	// A charged line not in writing keeps its published price: not asked.
	q := closedQuote()
	q.Lines[1].InWriting = false
	if len(For(q, Context{})) != 3 {
		t.Error("a charged line without writing was asked about")
	}
}

func TestIncludedWithoutWritingIsAsked(t *testing.T) {
	q := closedQuote()
	q.Lines[8].InWriting = false                                         // snapshot: included, not in writing
	q.Lines[3] = quote.Line{Item: "public_ip", Status: "not_applicable"} // not in writing either
	if !q.Lines[8].CountsAsUnconfirmed() || !q.Lines[3].CountsAsUnconfirmed() || q.Lines[0].CountsAsUnconfirmed() {
		t.Fatal("CountsAsUnconfirmed")
	}
	if (quote.Line{Status: "unconfirmed"}).CountsAsUnconfirmed() || (quote.Line{Status: "charged"}).CountsAsUnconfirmed() {
		t.Error("CountsAsUnconfirmed is only about claims of included / not applicable")
	}
	g := byKey(For(q, Context{SnapshotGB: d("200")}))
	lines := g[groupKey{KindConfirmation, 1}].Questions
	if len(lines) != 2 {
		t.Fatalf("line questions %+v", lines)
	}
	if lines[0].MessageID != "vq.line.not_applicable" || lines[0].Args["ItemID"] != "item.public_ip" {
		t.Errorf("public IP: %+v", lines[0])
	}
	if lines[1].MessageID != "vq.line.included_usage" || lines[1].Args["UsageID"] != "vq.usage.snapshot" || lines[1].Args["Quantity"] != "200" {
		t.Errorf("snapshot: %+v", lines[1])
	}
	// Both also fall under the second confirmation, in the guide's order.
	stopped := g[groupKey{KindConfirmation, 2}].Questions
	if len(stopped) != 2 || stopped[0].MessageID != "vq.stopped.snapshot" || stopped[1].MessageID != "vq.stopped.public_ip" {
		t.Errorf("stopped billing: %+v", stopped)
	}
}

func TestTermsDecideTheirQuestions(t *testing.T) {
	q := closedQuote()
	q.SLACompensation = " "
	q.InvoiceType = ""
	g := byKey(For(q, Context{}))
	if qs := g[groupKey{KindConfirmation, 4}].Questions; len(qs) != 1 || qs[0].MessageID != "vq.sla_terms.compensation_pct" || qs[0].Args["Pct"] != "99.9" {
		t.Errorf("SLA terms: %+v", qs)
	}
	if qs := g[groupKey{KindConfirmation, 5}].Questions; len(qs) != 1 || qs[0].MessageID != "vq.termination.invoice" {
		t.Errorf("termination: %+v", qs)
	}
	if _, ok := g[groupKey{KindSLA, 2}]; !ok {
		t.Error("compensation clause not asked")
	}
	if _, ok := g[groupKey{KindSLA, 6}]; ok {
		t.Error("termination clause asked though its terms are recorded")
	}
	// Without a commitment a missing penalty is not a question.
	q = closedQuote()
	q.CommitmentMonths, q.EarlyTerminationPct = 0, decimal.NullDecimal{}
	if len(For(q, Context{})) != 3 {
		t.Error("penalty asked without a commitment")
	}
	q.BalanceWithdrawable = nil
	g = byKey(For(q, Context{}))
	if qs := g[groupKey{KindConfirmation, 5}].Questions; len(qs) != 1 || qs[0].MessageID != "vq.termination.balance" {
		t.Errorf("balance: %+v", qs)
	}
	if _, ok := g[groupKey{KindSLA, 6}]; !ok {
		t.Error("termination clause not asked")
	}
}

func TestRenderTranslatesIDArgs(t *testing.T) {
	tr := func(id string, args map[string]any) string {
		switch id {
		case "item.egress":
			return "Egress"
		case "vq.usage.egress":
			return "about " + args["Quantity"].(string) + " GB"
		case "q":
			return args["Item"].(string) + ": " + args["Usage"].(string) + "?"
		}
		return "[" + id + "]"
	}
	got := Render(Question{MessageID: "q", Args: map[string]any{"ItemID": "item.egress", "UsageID": "vq.usage.egress", "Quantity": "1,500"}}, tr)
	if got != "Egress: about 1,500 GB?" {
		t.Errorf("Render = %q", got)
	}
}

func TestPlainTextInBothLanguages(t *testing.T) {
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range MessageIDs() {
		for _, l := range i18n.Langs {
			if !cat.Has(l, id) {
				t.Errorf("message %q missing in %s", id, l)
			}
		}
	}
	ctx := Context{Mbps: d("100"), EgressGBPerMonth: d("1500"), MigrationGB: d("300"), PublicIPs: 1, SystemDiskGB: d("50"),
		DataDiskGB: d("500"), ObjectStorageGB: d("1000"), SnapshotGB: d("200"), ImageGB: d("40"),
		StoppedHoursPerMonth: d("530"), StartsPerMonth: 20}
	half := openQuote()
	for i := range half.Lines {
		switch i % 3 {
		case 1:
			half.Lines[i].Status = string(catalog.StatusIncluded)
		case 2:
			half.Lines[i].Status = string(catalog.StatusNotApplicable)
		}
	}
	terms := closedQuote()
	terms.SLACompensation = ""
	cases := []struct {
		name string
		q    quote.Quote
		ctx  Context
	}{
		{"open, no usage", openQuote(), Context{}},
		{"open, usage", openQuote(), ctx},
		{"claims, usage", half, ctx},
		{"claims, no usage", half, Context{}},
		{"terms", terms, ctx},
	}
	for _, l := range i18n.Langs {
		tr := cat.Translator(l)
		for _, c := range cases {
			groups := For(c.q, c.ctx)
			text := PlainText("AutoDL · RTX 4090 × 1 · v3 (2026-03-01)", groups, tr.TMap)
			for _, bad := range []string{"[", "<no value>", "{{", "ID}"} {
				if strings.Contains(text, bad) {
					t.Errorf("%s, %s: %q in\n%s", l, c.name, bad, text)
				}
			}
			if !strings.HasPrefix(text, "AutoDL · RTX 4090 × 1 · v3 (2026-03-01)\n") || !strings.Contains(text, "\n1. ") {
				t.Errorf("%s, %s: title or numbering missing:\n%s", l, c.name, text)
			}
			// Questions are numbered straight through, one a line.
			n := 0
			for _, g := range groups {
				n += len(g.Questions)
			}
			numbered := 0
			for _, line := range strings.Split(text, "\n") {
				if strings.HasPrefix(line, strconv.Itoa(numbered+1)+". ") {
					numbered++
				}
			}
			if numbered != n {
				t.Errorf("%s, %s: %d numbered lines, want %d:\n%s", l, c.name, numbered, n, text)
			}
			if testing.Verbose() && c.name == "claims, usage" {
				t.Logf("%s:\n%s", l, text)
			}
		}
	}
	// The words a reader must see.
	zh := PlainText("x", For(openQuote(), ctx), cat.Translator(i18n.ZH).TMap)
	for _, want := range []string{"出网流量：我们每台实例每月的出网流量预计约 1,500 GB。", "押金 500.00 CNY", "合同最短期限为 6 个月", "SLA 条款 3：计划维护的提前通知期"} {
		if !strings.Contains(zh, want) {
			t.Errorf("zh text lacks %q:\n%s", want, zh)
		}
	}
	en := PlainText("x", nil, cat.Translator(i18n.EN).TMap)
	if en != "x\n\nThis quote leaves nothing to ask the vendor.\n" {
		t.Errorf("no groups: %q", en)
	}
}
