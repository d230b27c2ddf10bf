package tcoapi

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/money"
)

// refRequest is an EUR quote (hourly €0.471, second billing) with all lines
// missing, so unconfirmed, for 200 h, 300 GB of egress and 100 GB of
// snapshots a month, with the given reference_prices.
func refRequest(refs string) string {
	return `{"quote": {"currency": "EUR", "gpu_count": 1, "hourly": "0.471", "billing_granularity": "second",
	           "prices_include_tax": true},
	 "reference_prices": [` + refs + `],
	 "profile": {"hours_per_month": "200", "months": 1, "instances": 1,
	             "egress_gb_per_month": "300", "snapshot_gb": "100"}}`
}

// rates holds USD → EUR 0.92 and CNY → EUR 0.128, dated the day before.
func rates(asked *[]string) FXLookup {
	return func(from, to string, day time.Time) (FXRate, bool, error) {
		if asked != nil {
			*asked = append(*asked, from+"→"+to)
		}
		date := day.AddDate(0, 0, -1)
		switch {
		case from == "USD" && to == "EUR":
			return FXRate{Rate: money.MustParse("0.92"), Date: date}, true, nil
		case from == "CNY" && to == "EUR":
			return FXRate{Rate: money.MustParse("0.128"), Date: date}, true, nil
		}
		return FXRate{}, false, nil
	}
}

func lineOf(t *testing.T, r Response, item string) map[string]any {
	t.Helper()
	for _, l := range r.Lines {
		if l.Item == item {
			return toMap(t, l)
		}
	}
	t.Fatalf("no line %s", item)
	return nil
}

// TestPessimisticUnpricedAndShare: the new result fields, with an
// editors' reference for egress only.
func TestPessimisticUnpricedAndShare(t *testing.T) {
	// No reference: every used unconfirmed line is named, in table order.
	r := evaluateOK(t, refRequest(``), nil)
	want := []string{"egress", "bundled_addon", "snapshot", "start_stop_schedule"}
	if !reflect.DeepEqual(r.PessimisticUnpriced, want) || r.TCOPessimistic != "94.20" || *r.HiddenSharePessimistic != "0.0000" {
		t.Errorf("unpriced %v pessimistic %s share %v", r.PessimisticUnpriced, r.TCOPessimistic, r.HiddenSharePessimistic)
	}
	// Egress 0.05 × 300 = 15.00; share 15 ÷ 109.20 = 0.13736… → 0.1374.
	r = evaluateOK(t, refRequest(`{"item": "egress", "unit": "per_gb", "unit_price": "0.05"}`), nil)
	if !reflect.DeepEqual(r.PessimisticUnpriced, []string{"bundled_addon", "snapshot", "start_stop_schedule"}) ||
		r.TCOPessimistic != "109.20" || *r.HiddenSharePessimistic != "0.1374" || *r.HiddenShare != "0.0000" {
		t.Errorf("unpriced %v pessimistic %s share %v", r.PessimisticUnpriced, r.TCOPessimistic, *r.HiddenSharePessimistic)
	}
	// Nothing left out: an empty array, never null.
	full := strings.Replace(golden(), `"lines": []`, `"lines": []`, 1)
	b, _ := json.Marshal(evaluateOK(t, full, nil))
	if !strings.Contains(string(b), `"pessimistic_unpriced":[]`) || !strings.Contains(string(b), `"hidden_share_pessimistic":"0.0000"`) {
		t.Errorf("all lines included: %s", b)
	}
	// No share of nothing: a free quote.
	free := strings.Replace(golden(), `"hourly": "0.471"`, `"hourly": "0"`, 1)
	b, _ = json.Marshal(evaluateOK(t, free, nil))
	if !strings.Contains(string(b), `"hidden_share_pessimistic":null`) {
		t.Errorf("free quote: %s", b)
	}
}

// golden is the reference quote with all twelve lines included.
func golden() string {
	items := []string{"bandwidth", "egress", "data_migration", "public_ip", "system_disk", "data_disk",
		"object_storage", "bundled_addon", "snapshot", "image", "stopped_retention", "start_stop_schedule"}
	lines := make([]string, len(items))
	for i, it := range items {
		lines[i] = `{"item": "` + it + `", "status": "included"}`
	}
	return `{"quote": {"currency": "EUR", "gpu_count": 1, "hourly": "0.471", "billing_granularity": "second",
	  "prices_include_tax": true, "lines": [` + strings.Join(lines, ", ") + `]},
	 "profile": {"hours_per_month": "200", "months": 1, "instances": 1}}`
}

// TestMarketReferences: the market reference stands in where editors keep
// none, names its quote; an editors' reference wins item by item.
func TestMarketReferences(t *testing.T) {
	r := evaluateOK(t, refRequest(`
	  {"item": "snapshot", "unit": "per_month", "unit_price": "0.08", "source": "market", "quote_id": 7},
	  {"item": "snapshot", "unit": "per_month", "unit_price": "0.05", "source": "editor"},
	  {"item": "egress", "unit": "per_gb", "unit_price": "0.09", "source": "market", "quote_id": 42}`), nil)
	snap, egress := lineOf(t, r, "snapshot"), lineOf(t, r, "egress")
	if snap["reference_amount"] != "5.00" || snap["reference_source"] != "editor" || snap["reference_quote_id"] != nil {
		t.Errorf("snapshot %v", snap)
	}
	if egress["reference_amount"] != "27.00" || egress["reference_source"] != "market" || egress["reference_quote_id"] != float64(42) {
		t.Errorf("egress %v", egress)
	}
	if r.TCOPessimistic != "126.20" || !reflect.DeepEqual(r.PessimisticUnpriced, []string{"bundled_addon", "start_stop_schedule"}) {
		t.Errorf("pessimistic %s unpriced %v", r.TCOPessimistic, r.PessimisticUnpriced)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"reference_source":"market","reference_quote_id":42`) {
		t.Errorf("quote id is not a JSON number: %s", b)
	}
}

// TestReferencesInOtherCurrencies: a reference in another currency is
// converted at the dated rate the server holds from its currency into the
// quote's; without a rate it does not exist for the quote.
func TestReferencesInOtherCurrencies(t *testing.T) {
	var asked []string
	body := refRequest(`
	  {"item": "egress", "unit": "per_gb", "unit_price": "0.05", "currency": "USD"},
	  {"item": "snapshot", "unit": "per_month", "unit_price": "0.5", "currency": "CNY", "source": "market", "quote_id": 3},
	  {"item": "snapshot", "unit": "per_day", "unit_price": "1", "currency": "GBP"},
	  {"item": "image", "unit": "per_month", "unit_price": "2", "currency": "USD"}`)
	r := evaluateOK(t, body, rates(&asked))
	// Egress 0.05 USD × 0.92 = 0.046 EUR × 300 = 13.80, the price shown
	// exactly as converted. Snapshot: no GBP rate, so the market reference
	// (0.5 CNY × 0.128 = 0.064 × 100 = 6.40) stands in.
	egress, snap := lineOf(t, r, "egress"), lineOf(t, r, "snapshot")
	if egress["reference_unit_price"] != "0.046" || egress["reference_amount"] != "13.80" || egress["reference_source"] != "editor" {
		t.Errorf("egress %v", egress)
	}
	if snap["reference_unit_price"] != "0.064" || snap["reference_amount"] != "6.40" || snap["reference_source"] != "market" ||
		snap["reference_quote_id"] != float64(3) || snap["unit"] != "per_month" {
		t.Errorf("snapshot %v", snap)
	}
	if r.TCOPessimistic != "114.40" {
		t.Errorf("pessimistic %s", r.TCOPessimistic)
	}
	// One lookup per currency, into the quote's currency.
	if !reflect.DeepEqual(asked, []string{"USD→EUR", "CNY→EUR", "GBP→EUR"}) {
		t.Errorf("asked %v", asked)
	}
	// Without any rate the foreign references are left out, and their used
	// items are named.
	r = evaluateOK(t, body, nil)
	if !reflect.DeepEqual(r.PessimisticUnpriced, []string{"egress", "bundled_addon", "snapshot", "start_stop_schedule"}) ||
		r.TCOPessimistic != "94.20" {
		t.Errorf("no rates: %v %s", r.PessimisticUnpriced, r.TCOPessimistic)
	}
	// The quote's own currency, spelt out, needs no rate.
	asked = nil
	r = evaluateOK(t, refRequest(`{"item": "egress", "unit": "per_gb", "unit_price": "0.05", "currency": "EUR"}`), rates(&asked))
	if len(asked) != 0 || lineOf(t, r, "egress")["reference_amount"] != "15.00" {
		t.Errorf("asked %v egress %v", asked, lineOf(t, r, "egress"))
	}
	// The lookup failing is the server's error.
	boom := errors.New("db down")
	failing := func(from, to string, day time.Time) (FXRate, bool, error) { return FXRate{}, false, boom }
	if _, _, err := Evaluate([]byte(body), failing, today); !errors.Is(err, boom) {
		t.Errorf("err %v", err)
	}
	// Two currencies' references for one item and unit: both convert, the
	// higher amount is used (0.05 USD = 0.046 EUR beats 0.04 EUR).
	r = evaluateOK(t, refRequest(`
	  {"item": "egress", "unit": "per_gb", "unit_price": "0.04"},
	  {"item": "egress", "unit": "per_gb", "unit_price": "0.05", "currency": "USD"}`), rates(nil))
	if lineOf(t, r, "egress")["reference_unit_price"] != "0.046" {
		t.Errorf("egress %v", lineOf(t, r, "egress"))
	}
}

// TestReferenceFieldErrors: every bad reference field is named.
func TestReferenceFieldErrors(t *testing.T) {
	body := refRequest(`
	  {"item": "egress", "unit": "per_gb", "unit_price": "0.05", "source": "vendor"},
	  {"item": "egress", "unit": "per_gb", "unit_price": "0.05", "quote_id": 3},
	  {"item": "egress", "unit": "per_gb", "unit_price": "0.05", "source": "market"},
	  {"item": "egress", "unit": "per_gb", "unit_price": "0.05", "source": "market", "quote_id": 0.5},
	  {"item": "egress", "unit": "per_gb", "unit_price": "0.05", "source": "market", "quote_id": "9"},
	  {"item": "egress", "unit": "per_gb", "unit_price": "0.05", "source": "market", "quote_id": -2},
	  {"item": "egress", "unit": "per_gb", "unit_price": "0.05", "currency": "usd"},
	  {"item": "snapshot", "unit": "per_month", "unit_price": "0.1234567"},
	  {"item": "snapshot", "unit": "per_day", "unit_price": "1000000000001"},
	  {"item": "image", "unit": "per_month", "unit_price": "0.1"},
	  {"item": "image", "unit": "per_month", "unit_price": "0.2"},
	  {"item": "image", "unit": "per_month", "unit_price": "0.3", "currency": "EUR"},
	  {"item": "image", "unit": "per_month", "unit_price": "0.3", "currency": "USD"},
	  {"item": "image", "unit": "per_month", "unit_price": "0.3", "source": "market", "quote_id": 1},
	  {"item": "image", "unit": "per_month", "unit_price": "0.4", "source": "market", "quote_id": 2},
	  {"item": "image", "unit": "per_month", "unit_price": "0.5", "colour": "red"}`)
	_, errs, err := Evaluate([]byte(body), rates(nil), today)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"reference_prices[0].source:unknown_source",
		"reference_prices[1].quote_id:quote_id_not_market",
		"reference_prices[2].quote_id:required",
		"reference_prices[3].quote_id:not_integer",
		"reference_prices[4].quote_id:wrong_type",
		"reference_prices[5].quote_id:must_be_positive",
		"reference_prices[6].currency:unknown_currency",
		"reference_prices[7].unit_price:too_many_decimals",
		"reference_prices[8].unit_price:too_large",
		"reference_prices[10]:duplicate_reference", // same item, unit, currency (the quote's) and source
		"reference_prices[11]:duplicate_reference", // "EUR" is the quote's currency
		"reference_prices[14]:duplicate_reference", // two market references
		"reference_prices[15].colour:unknown_field",
	}
	if got := errorSet(errs); strings.Join(got, "\n") != strings.Join(sortedCopy(want), "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(sortedCopy(want), "\n"))
	}
	for _, e := range errs {
		if e.Field == "reference_prices[7].unit_price" && e.Args["Max"] != "6" {
			t.Errorf("places as sent are at most 6: %+v", e)
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
