package billcheck

import (
	"strconv"
	"testing"

	"gpuquote/internal/catalog"
	"gpuquote/internal/tco"
)

// benchBill is a month's bill of 2,000 lines across every item: the size
// of a busy team's itemised FOCUS export for one vendor.
func benchBill(tb testing.TB) Bill {
	b := month(tb, "2026-11")
	b.Currency, b.PricesIncludeTax, b.Instances = "CNY", true, 8
	items := Items()
	for i := 0; i < 2000; i++ {
		it := items[i%len(items)]
		q := strconv.Itoa(1 + i%97)
		b.Lines = append(b.Lines, Line{Item: it, Quantity: d(q + ".25"), Amount: d(strconv.Itoa(i%50) + ".37"),
			Description: "line " + strconv.Itoa(i)})
	}
	return b
}

func BenchmarkBillCheck(b *testing.B) {
	q := golden2Quote()
	q.Monthly, q.SpotHourly, q.Yearly = nd("1150"), nd("0.99"), nd("12000")
	q.Lines = append(q.Lines, golden1Quote().Lines[:2]...)
	q.Lines = append(q.Lines, tco.Line{Item: catalog.ItemSnapshot, Status: catalog.StatusUnconfirmed})
	bill := benchBill(b)
	if errs := Validate(q, bill, Options{}); len(errs) > 0 {
		b.Fatal(errs)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Check(q, bill, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
