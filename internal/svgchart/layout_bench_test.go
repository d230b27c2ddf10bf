package svgchart

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/shopspring/decimal"
)

// randomCurves is a cost-curve chart of n quotes with prices, break-evens
// and crossings drawn from r, like a comparison of n offers.
func randomCurves(r *rand.Rand, n int) CurveChart {
	price := func(lo, hi int, places int32) decimal.NullDecimal {
		if r.IntN(5) == 0 {
			return decimal.NullDecimal{}
		}
		return decimal.NewNullDecimal(decimal.New(int64(lo+r.IntN(hi-lo)), -places))
	}
	c := CurveChart{ID: "cmp-curves", Title: "t", Desc: "d", XLabel: "hours", YLabel: "cost"}
	for i := range n {
		q := CurveQuote{Name: fmt.Sprintf("Platform %d · H100 × %d · offer %d", i, 1+r.IntN(8), r.IntN(1000)),
			Hourly: price(100, 90000, 2), Monthly: price(10000, 9000000, 2), Spot: price(100, 50000, 3)}
		if q.Hourly.Valid && q.Monthly.Valid {
			be := q.Monthly.Decimal.Div(q.Hourly.Decimal).Round(2)
			q.BreakEvenHours = decimal.NewNullDecimal(be)
			q.BreakEvenLabel = be.String() + " h"
		}
		c.Quotes = append(c.Quotes, q)
	}
	for range r.IntN(2 * n) {
		h, m := r.IntN(n), r.IntN(n)
		if h != m && c.Quotes[h].Hourly.Valid && c.Quotes[m].Monthly.Valid {
			at := c.Quotes[m].Monthly.Decimal.Div(c.Quotes[h].Hourly.Decimal).Round(2)
			c.Crossings = append(c.Crossings, CurveCrossing{Hourly: h, Monthly: m, Hours: at, Label: at.String() + " h"})
		}
	}
	if r.IntN(3) == 0 {
		c.Own = append(c.Own, CurveOwn{Name: "own box", At0: decimal.New(int64(r.IntN(900000)), -2), At730: decimal.New(int64(r.IntN(9000000)), -2)})
		c.MarkHours = decimal.NewNullDecimal(decimal.New(int64(r.IntN(730)), 0))
		c.MarkLabel = "your hours"
		c.LegendOwn = "own"
	}
	return c
}

// TestCostCurvesSameBytes draws 300 random charts and compares their
// digest with the one the layout gave before its comparisons were made
// cheaper: placing labels compares exactly, so nothing moves.
func TestCostCurvesSameBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	h := sha256.New()
	for i := range 300 {
		_, _ = h.Write([]byte(CostCurves(randomCurves(r, 1+i%20))))
	}
	got := hex.EncodeToString(h.Sum(nil))
	if p := os.Getenv("CURVES_DIGEST_OUT"); p != "" {
		_ = os.WriteFile(p, []byte(got), 0o644)
	}
	if want := curvesDigest; want != "" && got != want {
		t.Fatalf("the charts changed: digest %s, want %s", got, want)
	}
}

func BenchmarkCostCurves20(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	charts := make([]CurveChart, 16)
	for i := range charts {
		charts[i] = randomCurves(r, 20)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = CostCurves(charts[i%len(charts)])
	}
}

// curvesDigest is TestCostCurvesSameBytes's digest of the charts as drawn
// before the layout's comparisons were made cheaper.
const curvesDigest = "ab07a0681bd88ffe509b0f855c610946e9999e907c2b68fe89daeb2d7bc49a79"
