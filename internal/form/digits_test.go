package form

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestIntDigits(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "0.5": 0, "1": 1, "9.99": 1, "10": 2, "99999999.99": 8, "100000000": 9,
		"99999999999999999999999999.99": 26} {
		if got := IntDigits(decimal.RequireFromString(in)); got != want {
			t.Errorf("IntDigits(%s) = %d, want %d", in, got, want)
		}
	}
}

// TestNumericRuleRefusesWhatTheColumnCannotHold: a NUMERIC(10,2) field
// takes 99999999.99 and refuses 100000000 with the digits message.
func TestNumericRuleRefusesWhatTheColumnCannotHold(t *testing.T) {
	vals := map[string]string{"ok": "99999999.99", "big": "100000000", "huge": "99999999999999999999999999.99"}
	r := NewReader(func(k string) string { return vals[k] })
	rule := Numeric(10, 2)
	if d := r.Decimal("ok", rule); !d.Valid || r.Has("ok") {
		t.Errorf("99999999.99 refused: %v", r.Errs)
	}
	for _, k := range []string{"big", "huge"} {
		r.Decimal(k, rule)
		if m := r.Errs[k]; m.ID != MsgDigits(8) || len(m.Args) != 2 || m.Args[1] != 8 {
			t.Errorf("%s: %+v", k, m)
		}
	}
}
