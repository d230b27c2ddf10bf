package form

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func reader(kv ...string) *Reader {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return Values(v)
}

// TestDecimalRules: exact decimals from strings, each problem its own
// message, empty is null unless required.
func TestDecimalRules(t *testing.T) {
	below := decimal.NewNullDecimal(decimal.New(1, 3))
	hundred := decimal.NewNullDecimal(decimal.New(100, 0))
	cases := []struct {
		in   string
		rule Decimal
		want string // value, or the message ID
	}{
		{"0.471", Decimal{Places: 6}, "0.471"},
		{" 12.50 ", Decimal{Places: 2}, "12.5"},
		{"", Decimal{Places: 2}, ""},
		{"", Decimal{Places: 2, Required: true}, MsgRequired},
		{"1.005", Decimal{Places: 2}, MsgPlaces(2)},
		{"1,5", Decimal{Places: 2}, MsgCommaDecimal},
		{"1e3", Decimal{Places: 2}, MsgNumber},
		{"-1", Decimal{Places: 2}, MsgNegative},
		{"0", Decimal{Places: 2, Positive: true}, MsgPositive},
		{"1000", Decimal{Places: 2, Below: below}, MsgTooLarge},
		{"100.5", Decimal{Places: 2, Max: hundred}, MsgRange},
		{"100", Decimal{Places: 2, Max: hundred}, "100"},
	}
	for _, c := range cases {
		r := reader("x", c.in)
		d := r.Decimal("x", c.rule)
		got := ""
		if d.Valid {
			got = d.Decimal.String()
		}
		if r.Has("x") {
			got = r.Errs.ID("x")
		}
		if got != c.want {
			t.Errorf("%q %+v: %q, want %q", c.in, c.rule, got, c.want)
		}
	}
}

// TestWholeNumbersDatesAndChoices: digits only for counts, bounds named
// in the message, dates as YYYY-MM-DD within their bounds, choices from a
// list, yes/no/not stated, checkboxes.
func TestWholeNumbersDatesAndChoices(t *testing.T) {
	r := reader("a", "08", "b", "+5", "c", "0", "d", "2026-12-04", "e", "2026-02-30", "f", "1999-12-31",
		"g", "maybe", "h", "no", "i", "on", "j", "eur", "k", "XAU")
	if n, ok := r.Int("a", 1, 10, true); !ok || n != 8 {
		t.Errorf("08: %d %v", n, ok)
	}
	r.Int("b", 1, 10, true)
	r.Int("c", 1, 1000000, true)
	if r.Errs.ID("b") != MsgInteger || r.Errs.ID("c") != MsgRange || r.Errs["c"].Args[3] != "1,000,000" {
		t.Errorf("b %v, c %v", r.Errs["b"], r.Errs["c"])
	}
	today := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	rule := Date{NotAfter: today, NotBefore: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}
	r.Date("d", rule)
	r.Date("e", rule)
	r.Date("f", rule)
	if r.Errs.ID("d") != MsgFuture || r.Errs.ID("e") != MsgDate || r.Errs.ID("f") != MsgDate {
		t.Errorf("dates: %v %v %v", r.Errs["d"], r.Errs["e"], r.Errs["f"])
	}
	if r.Choice("g", true, "yes", "no"); r.Errs.ID("g") != MsgChoice {
		t.Errorf("choice %v", r.Errs["g"])
	}
	if b := r.YesNo("h"); b == nil || *b {
		t.Error("no is no")
	}
	if r.Check("i"); r.Errs.ID("i") != MsgChoice {
		t.Error("a checkbox sends true or nothing")
	}
	if c := r.Currency("j", true); c != "EUR" || r.Has("j") {
		t.Errorf("currency %q %v", c, r.Errs["j"])
	}
	if r.Currency("k", true); !r.Has("k") {
		t.Error("a currency without minor units takes no prices")
	}
}

// TestTextAndTheFirstProblem: text is trimmed and bounded in characters,
// multi-line text keeps "\n" line ends, and a field keeps the first
// problem found.
func TestTextAndTheFirstProblem(t *testing.T) {
	r := reader("a", "  价格  ", "b", "一二三四", "c", "line 1\r\nline 2", "d", "")
	if got := r.Text("a", 2); got != "价格" || r.Has("a") {
		t.Errorf("text %q %v", got, r.Errs["a"])
	}
	r.Text("b", 3)
	if r.Errs.ID("b") != MsgTooLong {
		t.Errorf("too long: %v", r.Errs["b"])
	}
	if got := r.Paragraphs("c", 100); got != "line 1\nline 2" {
		t.Errorf("paragraphs %q", got)
	}
	r.RequiredText("d", 10)
	r.Fail("d", "later.problem")
	if r.Errs.ID("d") != MsgRequired || r.OK() {
		t.Errorf("first problem %v", r.Errs["d"])
	}
}

// TestNumberProblemsSayHowToWriteIt: each way people mistype a number gets
// its own advice.
func TestNumberProblemsSayHowToWriteIt(t *testing.T) {
	for _, c := range []struct {
		in      string
		integer bool
		want    string
	}{
		{"２００", false, MsgFullWidth}, {"１．５", false, MsgFullWidth}, {"1,5", false, MsgCommaDecimal},
		{"0,471", false, MsgCommaDecimal}, {"1,234", false, MsgThousands}, {"1,234.5", false, MsgThousands},
		{"12 000", false, MsgThousands}, {"abc", false, MsgNumber}, {"1.5", true, MsgInteger},
		{"1,5", true, MsgInteger}, {"２", true, MsgFullWidth}, {"1e3", false, MsgNumber},
		// The digits after the comma decide (docs/RULES.md §14.1): three in
		// groups are thousands, any other count a decimal comma.
		{"1,50", false, MsgCommaDecimal}, {"1,5000", false, MsgCommaDecimal}, {"1.234,5", false, MsgCommaDecimal},
		{"1 234,56", false, MsgCommaDecimal}, {"-1.000,5", false, MsgCommaDecimal}, {"1,500", false, MsgThousands},
		{"1,500", true, MsgThousands}, {"12,345", true, MsgThousands}, {"1.234,5", true, MsgInteger},
	} {
		if got := NumberProblem(c.in, c.integer); got != c.want {
			t.Errorf("%q (integer %v): %s, want %s", c.in, c.integer, got, c.want)
		}
	}
	r := reader("n", "-3", "d", "1,5")
	r.Int("n", 1, 10, true)
	r.Decimal("d", Decimal{Places: 2})
	if r.Errs.ID("n") != MsgRange || r.Errs.ID("d") != MsgCommaDecimal {
		t.Errorf("%v", r.Errs)
	}
}

// TestOneLineAndParagraphs: a field of one line refuses a line break of
// any kind (MsgLineBreak) before its length; text of several lines keeps
// them, "\r\n" made "\n".
func TestOneLineAndParagraphs(t *testing.T) {
	for _, v := range []string{"a\r\nb", "a\nb", "a\rb", "a\u2028b", "a\u0085b"} {
		r := reader("title", v, "purpose", v)
		r.Text("title", 200)
		if r.Errs.ID("title") != MsgLineBreak {
			t.Errorf("Text(%q): %q, want %s", v, r.Errs.ID("title"), MsgLineBreak)
		}
		if got := r.Paragraphs("purpose", 200); r.Has("purpose") || strings.Contains(got, "\r\n") {
			t.Errorf("Paragraphs(%q) = %q, %v", v, got, r.Errs)
		}
	}
	r := reader("title", "  one line\t with a tab  ")
	if got := r.Text("title", 200); got != "one line\t with a tab" || !r.OK() {
		t.Errorf("Text = %q, %v", got, r.Errs)
	}
	r = reader("title", " \r\n padded \r\n ")
	if got := r.Text("title", 200); got != "padded" || !r.OK() {
		t.Errorf("line breaks around the text are trimmed: %q, %v", got, r.Errs)
	}
}

// TestStorableText: UTF-8 without NUL, other control characters or DEL;
// tab and line breaks are text.
func TestStorableText(t *testing.T) {
	for v, want := range map[string]bool{"": true, "中文 text": true, "a\tb\r\nc": true, "a\x00b": false, "a\x01b": false,
		"a\x1fb": false, "a\x7fb": false, "a\xffb": false, "\u0085": true} {
		if got := StorableText(v); got != want {
			t.Errorf("StorableText(%q) = %v", v, got)
		}
	}
}
