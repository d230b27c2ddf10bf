package billfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/billcheck"
	"gpuquote/internal/billfile"
	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

func d(s string) decimal.Decimal { return money.MustParse(s) }

func nd(s string) decimal.NullDecimal { return decimal.NewNullDecimal(d(s)) }

func november(t testing.TB) time.Time {
	t.Helper()
	m, ok := billcheck.ParseMonth("2026-11")
	if !ok {
		t.Fatal("2026-11")
	}
	return m
}

func readFile(t *testing.T, path ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(path...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// refused asserts a reader refused its file and returns why.
func refused(t *testing.T, err error) *billfile.Refused {
	t.Helper()
	var r *billfile.Refused
	if !errors.As(err, &r) {
		t.Fatalf("error %v, want the file refused", err)
	}
	return r
}

// arg is a row error's message argument by name (nil when absent).
func arg(e billfile.RowError, name string) any {
	for i := 0; i+1 < len(e.Args); i += 2 {
		if e.Args[i] == name {
			return e.Args[i+1]
		}
	}
	return nil
}

// golden1 is billcheck's first golden bill (month 2026-11): its quote
// (EUR, hourly 0.471, public IP charged 3.00 a month, egress included,
// the data disk unconfirmed) and its four lines, as docs/examples/bill.csv
// holds them.
func golden1() (tco.Quote, billcheck.Bill) {
	q := tco.Quote{Currency: "EUR", GPUCount: 1, Hourly: nd("0.471"), BillingGranularity: catalog.GranularitySecond,
		PricesIncludeTax: true, Lines: []tco.Line{
			{Item: catalog.ItemPublicIP, Status: catalog.StatusCharged, Unit: catalog.UnitPerMonth, UnitPrice: nd("3.00")},
			{Item: catalog.ItemEgress, Status: catalog.StatusIncluded},
			{Item: catalog.ItemDataDisk, Status: catalog.StatusUnconfirmed},
		}}
	m, _ := billcheck.ParseMonth("2026-11")
	b := billcheck.Bill{Month: m, Currency: "EUR", PricesIncludeTax: true, Instances: 1, Lines: golden1Lines()}
	return q, b
}

func golden1Lines() []billcheck.Line {
	return []billcheck.Line{
		{Item: billcheck.ItemComputeHourly, Quantity: d("200"), Amount: d("94.20"), Description: "GPU hours"},
		{Item: billcheck.Item(catalog.ItemPublicIP), Quantity: d("1"), Amount: d("3.50"), Description: "Public IP"},
		{Item: billcheck.Item(catalog.ItemEgress), Quantity: d("120"), Amount: d("1.20"), Description: "Internet egress"},
		{Item: billcheck.Item(catalog.ItemDataDisk), Quantity: d("100"), Amount: d("4.00"), Description: "Data disk 100 GB"},
	}
}

// sameLines compares bill lines by value (decimals by value, not
// spelling).
func sameLines(t *testing.T, got, want []billcheck.Line) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Item != w.Item || !g.Quantity.Equal(w.Quantity) || !g.Amount.Equal(w.Amount) || g.Description != w.Description {
			t.Errorf("line %d: %s %s %s %q, want %s %s %s %q", i, g.Item, g.Quantity, g.Amount, g.Description,
				w.Item, w.Quantity, w.Amount, w.Description)
		}
	}
}
