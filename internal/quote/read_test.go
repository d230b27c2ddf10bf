package quote

import (
	"encoding/csv"
	"net/url"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/form"
	"gpuquote/internal/market"
)

var testRefs = NewRefs(
	[]market.RefName{{ID: 7, Names: []string{"HOSTKEY", "HOSTKEY"}}, {ID: 8, Names: []string{"AutoDL", "AutoDL 算力云"}}},
	[]market.RefName{{ID: 3, Names: []string{"NVIDIA RTX 4090", "RTX 4090"}}})

var today = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)

func validQuoteInput() url.Values {
	return url.Values{
		"platform": {"7"}, "gpu_model": {"3"}, "gpu_count": {"1"}, "sharing": {"dedicated"}, "currency": {"eur"},
		"hourly": {"0.471"}, "billing_granularity": {"second"}, "prices_include_tax": {"true"},
		"as_of": {"2026-11-30"}, "source": {"https://hostkey.example/gpu"},
		"egress.status": {"charged"}, "egress.unit": {"per_gb"}, "egress.unit_price": {"0.01"}, "egress.in_writing": {"true"},
		"public_ip.status": {"included"}, "public_ip.in_writing": {"true"},
	}
}

func TestReadValid(t *testing.T) {
	q, errs := Read(validQuoteInput().Get, testRefs, today)
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	if q.PlatformID != 7 || q.GPUModelID != 3 || q.Currency != "EUR" || q.Hourly.Decimal.String() != "0.471" || len(q.Lines) != 12 {
		t.Fatalf("quote %+v", q)
	}
	if q.Lines[1].Item != "egress" || q.Lines[1].UnitPrice.Decimal.String() != "0.01" || !q.Lines[1].InWriting ||
		q.Lines[0].Status != "unconfirmed" || q.Lines[3].Status != "included" {
		t.Fatalf("lines %+v", q.Lines[:4])
	}
	// Names resolve as ids do (the CSV names platforms and GPUs).
	in := validQuoteInput()
	in.Set("platform", "autodl 算力云")
	in.Set("gpu_model", "rtx 4090")
	if q, errs := Read(in.Get, testRefs, today); len(errs) != 0 || q.PlatformID != 8 || q.GPUModelID != 3 {
		t.Fatalf("by name: %v %d %d", errs, q.PlatformID, q.GPUModelID)
	}
	// The inverse gives the same quote back.
	back, errs := Read(Values(q).Get, testRefs, today)
	if len(errs) != 0 || back.Hourly.Decimal.String() != q.Hourly.Decimal.String() || back.AsOf != q.AsOf ||
		back.Lines[1].UnitPrice.Decimal.String() != "0.01" || back.Lines[1].Unit != "per_gb" || !back.Lines[1].InWriting ||
		back.Lines[3].Status != "included" || back.PricesIncludeTax != q.PricesIncludeTax {
		t.Fatalf("round trip: %v %+v", errs, back)
	}
}

func TestReadReportsEveryBadField(t *testing.T) {
	in := validQuoteInput()
	for k, v := range map[string]string{
		"platform": "Nowhere", "gpu_model": "", "gpu_count": "0", "currency": "EURO", "hourly": "0.4711111",
		"monthly": "-5", "billing_granularity": "fortnight", "tax_rate": "1", "as_of": "2027-01-01", "source": " ",
		"egress.unit": "per_event", "public_ip.unit_price": "3", "snapshot.status": "charged", "image.status": "maybe",
		"early_termination_pct": "120", "deposit_refundable": "perhaps",
	} {
		in.Set(k, v)
	}
	_, errs := Read(in.Get, testRefs, today)
	want := map[string]string{
		"platform": "quote.error.unknown_platform", "gpu_model": "form.required", "gpu_count": "form.error.range",
		"currency": "form.error.currency", "hourly": "form.error.places.6", "monthly": "form.error.negative",
		"billing_granularity": "form.error.choice", "tax_rate": "quote.error.tax_rate", "as_of": "form.error.future",
		"source": "form.required", "egress.unit": "quote.error.unit", "public_ip.unit_price": "quote.error.price_not_charged",
		"snapshot.unit_price": "quote.error.price_required", "image.status": "form.error.choice",
		"early_termination_pct": "form.error.range", "deposit_refundable": "form.error.choice",
	}
	for f, id := range want {
		if errs.ID(f) != id {
			t.Errorf("%s: %q, want %q", f, errs.ID(f), id)
		}
	}
	if len(errs) != len(want) {
		t.Errorf("%d errors, want %d: %v", len(errs), len(want), errs)
	}
	// No price at all is one error, at the hourly price.
	in = validQuoteInput()
	in.Del("hourly")
	if _, errs := Read(in.Get, testRefs, today); errs.ID("hourly") != "quote.error.no_price" || len(errs) != 1 {
		t.Fatalf("no price: %v", errs)
	}
}

// TestReadRefusesAllowanceOnBundledAddon: the quote form and the CSV
// import refuse a free allowance on the bundled add-on, as the engine
// does (docs/RULES.md §3.4), and keep allowing one elsewhere.
func TestReadRefusesAllowanceOnBundledAddon(t *testing.T) {
	in := validQuoteInput()
	in.Set("bundled_addon.status", "charged")
	in.Set("bundled_addon.unit", "per_month")
	in.Set("bundled_addon.unit_price", "30.83")
	in.Set("egress.free_allowance", "100")
	if _, errs := Read(in.Get, testRefs, today); len(errs) != 0 {
		t.Fatalf("without an allowance: %v", errs)
	}
	in.Set("bundled_addon.free_allowance", "4")
	_, errs := Read(in.Get, testRefs, today)
	if len(errs) != 1 || errs["bundled_addon.free_allowance"].ID != MsgNoAllowance {
		t.Fatalf("form errors %v", errs)
	}

	// The same row in a CSV file: a problem of that row and column.
	var b strings.Builder
	w := csv.NewWriter(&b)
	var header, row []string
	for k, v := range in {
		header = append(header, k)
		row = append(row, v[0])
	}
	_ = w.Write(header)
	_ = w.Write(row)
	w.Flush()
	quotes, p := ReadCSV(strings.NewReader(b.String()), testRefs, today)
	if len(quotes) != 0 || len(p.File) != 0 || len(p.Rows) != 1 || p.Rows[0].Row != 2 ||
		p.Rows[0].Column != "bundled_addon.free_allowance" || p.Rows[0].ID != MsgNoAllowance {
		t.Fatalf("csv: %d quotes, problems %+v", len(quotes), p)
	}
}

// TestReadOneLineFields: the label, region, source and SLA compensation
// are one line each (form.MsgLineBreak on a line break), the notes and a
// line's note keep theirs, CR LF read as LF (docs/RULES.md §16.4).
func TestReadOneLineFields(t *testing.T) {
	for _, f := range []string{"label", "region", "source", "sla_compensation"} {
		in := validQuoteInput()
		in.Set(f, "one\r\ntwo")
		if _, errs := Read(in.Get, testRefs, today); errs.ID(f) != form.MsgLineBreak || len(errs) != 1 {
			t.Errorf("%s: %v", f, errs)
		}
	}
	in := validQuoteInput()
	in.Set("notes", "one\r\ntwo")
	in.Set("egress.note", "one\ntwo")
	q, errs := Read(in.Get, testRefs, today)
	if len(errs) != 0 || q.Notes != "one\ntwo" {
		t.Fatalf("notes %q, %v", q.Notes, errs)
	}
	for _, l := range q.Lines {
		if l.Item == "egress" && l.Note != "one\ntwo" {
			t.Errorf("line note %q", l.Note)
		}
	}
}
