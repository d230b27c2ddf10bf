package compare

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
)

// offer is a priced row of platform 1, GPU model 1, one GPU, in EUR with
// tax included and an exchange rate of 1 unless changed.
func offer(hourly, monthly, yearly string, change ...func(*Row)) Row {
	q := quote.Quote{PlatformID: 1, GPUModelID: 1, GPUCount: 1, Sharing: "dedicated", Currency: "EUR", PricesIncludeTax: true}
	for _, p := range []struct {
		s string
		d *decimal.NullDecimal
	}{{hourly, &q.Hourly}, {monthly, &q.Monthly}, {yearly, &q.Yearly}} {
		if p.s != "" {
			*p.d = nd(p.s)
		}
	}
	r := Row{Candidate: Candidate{Quote: q, GPU: r9700}, Priced: true, Result: tco.Result{FXRate: decimal.NewFromInt(1)}}
	for _, c := range change {
		c(&r)
	}
	return r
}

// crossing is a crossing written for comparison: "kind flexible>committed value [differs]".
func crossing(c Crossing) string {
	s := string(c.Kind) + " " + strconv.Itoa(c.Flexible) + ">" + strconv.Itoa(c.Committed) + " " + c.Value.StringFixed(2)
	if len(c.Differs) > 0 {
		s += " [" + strings.Join(c.Differs, ",") + "]"
	}
	return s
}

func TestCrossings(t *testing.T) {
	cny := func(r *Row) {
		r.Quote.Currency = "CNY"
		r.Result.FXRate = decimal.RequireFromString("0.128")
	}
	exTax := func(rate string) func(*Row) {
		return func(r *Row) { r.Quote.PricesIncludeTax, r.Quote.TaxRate = false, decimal.RequireFromString(rate) }
	}
	platform := func(id int64) func(*Row) { return func(r *Row) { r.Quote.PlatformID = id } }
	gpus := func(n int) func(*Row) { return func(r *Row) { r.Quote.GPUCount = n } }
	unpriced := func(r *Row) { r.Priced, r.Result = false, tco.Result{} }
	cores := func(n int) func(*Row) { return func(r *Row) { r.Quote.CPUCores = &n } }
	ram := func(s string) func(*Row) { return func(r *Row) { r.Quote.RAMGB = nd(s) } }
	vram := func(s string) func(*Row) { return func(r *Row) { r.Quote.VRAMGB = nd(s) } }
	shared := func(r *Row) { r.Quote.Sharing = "shared" }
	disk := func(s string) func(*Row) {
		return func(r *Row) { r.Quote.IncludedDataDiskGB = decimal.RequireFromString(s) }
	}

	tests := []struct {
		name string
		rows []Row
		want []string
	}{
		{"the guide's HOSTKEY R9700: €0.471/h against €70, €118 and €284 a month",
			[]Row{offer("", "284", ""), offer("0.471", "", ""), offer("", "70", ""), offer("", "118", "")},
			[]string{"hours 1>2 148.62", "hours 1>3 250.53", "hours 1>0 602.97"}},
		{"rounded half-up once, from the exact quotient (100.002 ÷ 0.4 = 250.005)",
			[]Row{offer("0.4", "", ""), offer("", "100.002", "")},
			[]string{"hours 0>1 250.01"}},
		{"a crossing beyond a full month is still a crossing",
			[]Row{offer("0.1", "", ""), offer("", "100", "")},
			[]string{"hours 0>1 1000.00"}},
		{"yearly-only against monthly-only gives months; hourly and yearly are not paired",
			[]Row{offer("0.471", "", ""), offer("", "70", ""), offer("", "", "700")},
			[]string{"hours 0>1 148.62", "months 1>2 10.00"}},
		{"an offer with two prices has its own break-even and pairs with nothing",
			[]Row{offer("0.471", "70", ""), offer("", "118", ""), offer("0.5", "", ""), offer("", "70", "700")},
			[]string{"hours 2>1 236.00"}},
		{"other platform, other GPU count: not paired",
			[]Row{offer("0.471", "", ""), offer("", "70", "", platform(2)), offer("", "118", "", gpus(2))},
			nil},
		{"a row that could not be priced pairs with nothing",
			[]Row{offer("0.471", "", ""), offer("", "70", "", unpriced), offer("0.5", "", "", unpriced)},
			nil},
		{"a zero hourly price has no crossing",
			[]Row{offer("0", "", ""), offer("", "70", "")},
			nil},
		{"different currencies meet in the report currency (¥4/h at 0.128 = €0.512/h)",
			[]Row{offer("4", "", "", cny), offer("", "64", "")},
			[]string{"hours 0>1 125.00"}},
		{"same foreign currency: the rate cancels out",
			[]Row{offer("0.471", "", "", cny), offer("", "70", "", cny)},
			[]string{"hours 0>1 148.62"}},
		{"prices without tax are taken with it (0.5 + 6 % = 0.53)",
			[]Row{offer("0.5", "", "", exTax("0.06")), offer("", "106", "")},
			[]string{"hours 0>1 200.00"}},
		{"differing specs are named in the order of SpecFields",
			[]Row{offer("0.471", "", "", cores(8), ram("64")), offer("", "70", "", ram("64.00"), shared, disk("100"))},
			[]string{"hours 0>1 148.62 [sharing,cpu_cores,included_data_disk_gb]"}},
		{"VRAM not stated is the GPU model's",
			[]Row{offer("0.471", "", "", vram("32")), offer("", "70", ""), offer("", "118", "", vram("24"))},
			[]string{"hours 0>1 148.62", "hours 0>2 250.53 [vram_gb]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range Crossings(tc.rows) {
				got = append(got, crossing(c))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestCrossingsOfEngineRows pairs rows the engine priced: the rate it
// reports for a quote in the report currency is 1, and the figures are
// those of each quote's own break-even rule.
func TestCrossingsOfEngineRows(t *testing.T) {
	hourly := cand(1, "EUR", "0.471", "", "", r9700)
	monthly := cand(2, "EUR", "", "118", "", r9700)
	both := cand(3, "EUR", "0.471", "118", "", r9700)
	rows := Run([]Candidate{hourly, monthly, both}, input(profile("200")))
	cs := Crossings(rows)
	if len(cs) != 1 || cs[0].Flexible != 0 || cs[0].Committed != 1 || cs[0].Kind != CrossingHours {
		t.Fatalf("crossings %+v, want the hourly-only and the monthly-only quote", cs)
	}
	if own := rows[2].Result.BreakEvenHours; !own.Valid || !cs[0].Value.Equal(own.Decimal) {
		t.Fatalf("crossing %s, want the engine's own break-even for the same prices (%v)", cs[0].Value, own)
	}
}
