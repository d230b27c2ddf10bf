package store_test

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/testutil"
)

// TestNumericsReadExactly: numerics read from PostgreSQL come back as the
// same decimals, written precision included ("0.300" stays 0.300, which
// the comparison cache's key and the edit forms rely on), at any size and
// sign, and NULL as an invalid NullDecimal, through the pool the store
// opens.
func TestNumericsReadExactly(t *testing.T) {
	st := testutil.Store(t)
	ctx := context.Background()
	for _, text := range []string{"0", "0.300", "1280.00", "-0.05", "0.000001", "123456789012345678901234567890.123456789",
		"1e-20", "100000000", "7.80"} {
		var got decimal.Decimal
		var null decimal.NullDecimal
		if err := st.Pool().QueryRow(ctx, `SELECT $1::text::numeric, NULL::numeric`, text).Scan(&got, &null); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		want := decimal.RequireFromString(text)
		if !got.Equal(want) || got.Exponent() != want.Exponent() && text != "1e-20" {
			t.Errorf("%s read as %s (exponent %d), want %s (exponent %d)", text, got, got.Exponent(), want, want.Exponent())
		}
		if null.Valid {
			t.Errorf("NULL read as %s", null.Decimal)
		}
	}
}
