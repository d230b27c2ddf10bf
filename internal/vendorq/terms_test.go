package vendorq

import (
	"strings"
	"testing"

	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
)

// ids lists the message IDs of a group's questions.
func ids(g Group) []string {
	var out []string
	for _, q := range g.Questions {
		out = append(out, q.MessageID)
	}
	return out
}

func TestNilTermsKeepTheQuotesQuestions(t *testing.T) {
	withNil, withEmpty := For(closedQuote(), Context{}), For(closedQuote(), Context{Terms: []Term{}})
	if len(withNil) != 3 {
		t.Fatalf("closed quote without terms looked up: %d groups, want the 3 always-asked SLA clauses", len(withNil))
	}
	// Looked up but none recorded: confirmations 2–5 have no quote
	// question, so each asks for the written answer; 1 never does.
	got := byKey(withEmpty)
	for _, c := range catalog.WrittenConfirmations {
		g, ok := got[groupKey{KindConfirmation, c.Number}]
		if c.Key == "hidden_items" {
			if ok {
				t.Errorf("confirmation 1 asked: %v", ids(g))
			}
			continue
		}
		if !ok || len(g.Questions) != 1 || g.Questions[0].MessageID != "vq.term.missing" || g.Questions[0].Args["LabelID"] != c.LabelID {
			t.Errorf("confirmation %d: %+v", c.Number, g)
		}
	}
	if n := len(withEmpty); n != 4+3 {
		t.Errorf("%d groups, want 4 confirmations and 3 SLA clauses", n)
	}
}

func TestWrittenTermsAnswerAndUnwrittenOnesAreQuoted(t *testing.T) {
	terms := []Term{
		{Kind: KindSLA, Key: "maintenance_notice", Answer: "72 小时前邮件通知", InWriting: true, Date: "2026-03-01"},
		{Kind: KindSLA, Key: "data_loss", Answer: "平台不承担责任", Date: "2026-03-02"},
		{Kind: KindSLA, Key: "unilateral_change", Answer: "", InWriting: false},
		{Kind: KindSLA, Key: "availability_definition", Answer: "口头说 99.9%"}, // the quote's 99.9 % answers it
		{Kind: KindConfirmation, Key: "egress", Answer: "出网免费"},
		{Kind: KindConfirmation, Key: "stopped_billing", Answer: "关机不计费", InWriting: true},
		{Kind: KindConfirmation, Key: "hidden_items", Answer: "见价目表"},
	}
	got := byKey(For(closedQuote(), Context{Terms: terms}))
	if g, ok := got[groupKey{KindSLA, 3}]; ok {
		t.Errorf("maintenance notice answered in writing still asked: %v", ids(g))
	}
	dl := got[groupKey{KindSLA, 5}]
	if len(dl.Questions) != 1 || dl.Questions[0].MessageID != "vq.term.unwritten_dated" ||
		dl.Questions[0].Args["Answer"] != "平台不承担责任" || dl.Questions[0].Args["Date"] != "2026-03-02" {
		t.Errorf("data loss answered orally: %+v", dl)
	}
	if g := got[groupKey{KindSLA, 4}]; len(g.Questions) != 1 || g.Questions[0].MessageID != "vq.sla.unilateral_change" {
		t.Errorf("unanswered unilateral change: %v", ids(g))
	}
	if g, ok := got[groupKey{KindSLA, 1}]; ok {
		t.Errorf("availability recorded on the quote still asked: %v", ids(g))
	}
	if g := got[groupKey{KindConfirmation, 3}]; len(g.Questions) != 1 || g.Questions[0].MessageID != "vq.term.unwritten" {
		t.Errorf("egress answered orally: %v", ids(g))
	}
	if g, ok := got[groupKey{KindConfirmation, 2}]; ok {
		t.Errorf("stopped billing answered in writing still asked: %v", ids(g))
	}
	if g, ok := got[groupKey{KindConfirmation, 1}]; ok {
		t.Errorf("hidden items asked from a platform answer: %v", ids(g))
	}
	// An open quote keeps its line questions; the oral answer is added.
	open := byKey(For(openQuote(), Context{Terms: terms}))
	eg := ids(open[groupKey{KindConfirmation, 3}])
	if len(eg) != 2 || eg[0] != "vq.egress.no_volume" || eg[1] != "vq.term.unwritten" {
		t.Errorf("open quote's egress questions: %v", eg)
	}
	if st := ids(open[groupKey{KindConfirmation, 2}]); len(st) != 4 {
		t.Errorf("open quote's stopped-billing questions: %v (the quote's lines still need answers)", st)
	}

	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	zh := PlainText("x", For(closedQuote(), Context{Terms: terms}), cat.Translator(i18n.ZH).TMap)
	en := PlainText("x", For(closedQuote(), Context{Terms: terms}), cat.Translator(i18n.EN).TMap)
	for _, want := range []string{"贵方于 2026-03-02 答复：“平台不承担责任”", "数据丢失的责任归属", "出网免费"} {
		if !strings.Contains(zh, want) {
			t.Errorf("zh lacks %q:\n%s", want, zh)
		}
	}
	for _, text := range []string{zh, en} {
		for _, bad := range []string{"[", "<no value>", "{{"} {
			if strings.Contains(text, bad) {
				t.Errorf("%q in\n%s", bad, text)
			}
		}
	}
}
