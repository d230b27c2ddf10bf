package server_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// pricesApp is the server on 2026-03-01 10:00 UTC with a signed-in editor
// reading English.
func pricesApp(t *testing.T) (*testutil.App, *testutil.Client) {
	t.Helper()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	app := testutil.NewApp(t, withClock(clock))
	c, _ := app.AsUser(auth.RoleEditor)
	c.Header.Set("Accept-Language", "en")
	return app, c
}

func validReferencePrice() url.Values {
	return url.Values{"item": {"egress"}, "currency": {"CNY"}, "unit": {"per_gb"}, "unit_price": {"0.000123"},
		"as_of": {"2026-02-01"}, "source": {"https://vendor.example/pricing"}}
}

func validFXRate() url.Values {
	return url.Values{"base": {"EUR"}, "quote": {"CNY"}, "rate": {"7.8123456789"}, "as_of": {"2026-02-01"}, "source": {"central bank"}}
}

// pricesWith returns a copy of v with the given field set.
func pricesWith(v url.Values, field, value string) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	out.Set(field, value)
	return out
}

// pricesFieldErrors lists the fields a page marks with an error, sorted.
func pricesFieldErrors(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`data-testid="error-([a-z_]+)"`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// pricesSection returns the part of body from the element with data-testid id to
// the end of the next closing tag named end.
func pricesSection(t *testing.T, body, testID, end string) string {
	t.Helper()
	i := strings.Index(body, `data-testid="`+testID+`"`)
	if i < 0 {
		t.Fatalf("no %s on the page", testID)
	}
	j := strings.Index(body[i:], "</"+end+">")
	if j < 0 {
		t.Fatalf("%s is not closed by </%s>", testID, end)
	}
	return body[i : i+j]
}

func TestReferencePriceUnitNotAllowedForItem(t *testing.T) {
	t.Parallel()
	app, c := pricesApp(t)
	c.Get("/prices")
	// Egress is priced per GB or flat per month, never per hour (docs/RULES.md §3).
	r := c.PostForm("/prices/reference", pricesWith(pricesWith(validReferencePrice(), "unit", "per_hour"), "currency", " cny "))
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", r.StatusCode)
	}
	if got := pricesFieldErrors(r.Body); strings.Join(got, ",") != "unit" {
		t.Fatalf("errors beside %v, want only unit", got)
	}
	form := pricesSection(t, r.Body, "ref-form", "form")
	unitField := form[strings.Index(form, `id="ref-unit-field"`):]
	if !strings.Contains(unitField, "This item cannot be priced in this unit") {
		t.Error("the unit error is not beside the unit select")
	}
	// The input is kept (the currency as the code it means), and the unit
	// select offers egress's units only.
	for _, want := range []string{`value="0.000123"`, `value="https://vendor.example/pricing"`, `value="2026-02-01"`, `value="CNY"`,
		`<option value="egress" selected`, `<option value="per_gb"`, `<option value="flat_month"`} {
		if !strings.Contains(form, want) {
			t.Errorf("re-rendered form lacks %s", want)
		}
	}
	if strings.Contains(unitField[:strings.Index(unitField, "</select>")], `value="per_hour"`) {
		t.Error("the unit select offers per_hour for egress")
	}
	if n := countRows(t, app, "reference_prices"); n != 0 {
		t.Fatalf("%d reference prices saved, want none", n)
	}
	if n := countRows(t, app, "audit_log WHERE entity = 'reference_price'"); n != 0 {
		t.Fatalf("%d audit rows, want none", n)
	}
}

func TestReferencePriceFormNamesEveryBadFieldAtOnce(t *testing.T) {
	t.Parallel()
	app, c := pricesApp(t)
	c.Get("/prices")
	bad := url.Values{"item": {"gpu"}, "currency": {"EURO"}, "unit": {"per_week"}, "unit_price": {"1e3"},
		"as_of": {"2026-03-03"}, "source": {"  "}}
	r := c.PostForm("/prices/reference", bad)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", r.StatusCode)
	}
	want := "as_of,currency,item,source,unit,unit_price"
	got := pricesFieldErrors(r.Body)
	slices.Sort(got)
	if strings.Join(got, ",") != want {
		t.Fatalf("errors beside %v, want %s", got, want)
	}
	if !strings.Contains(r.Body, `data-testid="form-errors"`) || !strings.Contains(r.Body, "The date cannot be later than today.") {
		t.Error("summary or as-of message missing")
	}
	// Unit prices: at most six places, not negative, plain digits, in range.
	for _, p := range []string{"-0.01", "0.0000001", "1,000", "+1", "", "100000000000000"} {
		r := c.PostForm("/prices/reference", pricesWith(validReferencePrice(), "unit_price", p))
		if r.StatusCode != http.StatusUnprocessableEntity || strings.Join(pricesFieldErrors(r.Body), ",") != "unit_price" {
			t.Errorf("unit price %q: %d %v, want 422 beside unit_price", p, r.StatusCode, pricesFieldErrors(r.Body))
		}
	}
	if n := countRows(t, app, "reference_prices"); n != 0 {
		t.Fatalf("%d reference prices saved, want none", n)
	}
}

func TestPricesAreForEditorsOnly(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	if r := analyst.PostForm("/prices/reference", validReferencePrice()); r.StatusCode != http.StatusForbidden {
		t.Fatalf("analyst POST /prices/reference: %d, want 403", r.StatusCode)
	}
	if r := analyst.PostForm("/prices/fx", validFXRate()); r.StatusCode != http.StatusForbidden {
		t.Fatalf("analyst POST /prices/fx: %d, want 403", r.StatusCode)
	}
	if r := analyst.Get("/prices"); r.StatusCode != http.StatusForbidden {
		t.Fatalf("analyst GET /prices: %d, want 403", r.StatusCode)
	}
	if n := countRows(t, app, "reference_prices") + countRows(t, app, "fx_rates"); n != 0 {
		t.Fatalf("%d rows saved by an analyst", n)
	}
}

func TestPricesHappyPath(t *testing.T) {
	t.Parallel()
	app, c := pricesApp(t)
	r := c.Get("/prices")
	for _, id := range []string{"ref-current-empty", "ref-history-empty", "fx-current-empty", "fx-history-empty"} {
		if !strings.Contains(r.Body, `data-testid="`+id+`"`) {
			t.Errorf("empty page lacks %s", id)
		}
	}

	r = c.PostForm("/prices/reference", validReferencePrice())
	if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/prices" {
		t.Fatalf("create reference price: %d → %q", r.StatusCode, r.Header.Get("Location"))
	}
	r = c.Get("/prices")
	if !strings.Contains(r.Body, `data-testid="flash">Reference price saved.<`) {
		t.Error("no flash after saving")
	}
	cur := pricesSection(t, r.Body, "ref-current-CNY", "table")
	if !strings.Contains(cur, "Egress traffic") || !strings.Contains(cur, "per GB") || !strings.Contains(cur, "CN¥0.000123") ||
		!strings.Contains(cur, "2026-02-01") || !strings.Contains(cur, "https://vendor.example/pricing") {
		t.Errorf("current CNY table: %s", cur)
	}
	if hist := pricesSection(t, r.Body, "ref-history-table", "table"); !strings.Contains(hist, `data-value="0.000123"`) {
		t.Errorf("history table: %s", hist)
	}
	hist, total, err := app.Store.ReferencePrices(context.Background(), store.ReferencePriceFilter{})
	if err != nil || total != 1 || hist[0].UnitPrice.String() != "0.000123" || hist[0].Currency != "CNY" {
		t.Fatalf("stored: %v total %d %v", hist, total, err)
	}

	// The same item, currency, unit and day again: refused beside the date.
	r = c.PostForm("/prices/reference", pricesWith(validReferencePrice(), "unit_price", "0.2"))
	if r.StatusCode != http.StatusUnprocessableEntity || strings.Join(pricesFieldErrors(r.Body), ",") != "as_of" {
		t.Fatalf("duplicate: %d %v", r.StatusCode, pricesFieldErrors(r.Body))
	}
	// Dated tomorrow in UTC, which is already today east of UTC: accepted,
	// listed in the history, not yet in force on the UTC day.
	r = c.PostForm("/prices/reference", pricesWith(validReferencePrice(), "as_of", "2026-03-02"))
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("east-of-UTC today: %d %v", r.StatusCode, pricesFieldErrors(r.Body))
	}
	r = c.Get("/prices")
	if cur := pricesSection(t, r.Body, "ref-current-CNY", "table"); strings.Contains(cur, "2026-03-02") {
		t.Error("a sample dated after the UTC day is shown as in force")
	}
	if hist := pricesSection(t, r.Body, "ref-history-table", "table"); strings.Index(hist, "2026-03-02") > strings.Index(hist, "2026-02-01") {
		t.Error("history is not newest first")
	}

	r = c.PostForm("/prices/fx", validFXRate())
	if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/prices" {
		t.Fatalf("create fx rate: %d %v", r.StatusCode, pricesFieldErrors(r.Body))
	}
	r = c.Get("/prices")
	if cur := pricesSection(t, r.Body, "fx-current", "table"); !strings.Contains(cur, "1 EUR = 7.8123456789 CNY") {
		t.Errorf("current rates: %s", cur)
	}
	if !strings.Contains(r.Body, `data-testid="flash">Exchange rate saved.<`) {
		t.Error("no flash after saving the rate")
	}
	if n := countRows(t, app, "audit_log WHERE entity IN ('reference_price', 'fx_rate')"); n != 3 {
		t.Fatalf("%d audit rows, want 3", n)
	}
}

func TestFXRateFormErrors(t *testing.T) {
	t.Parallel()
	app, c := pricesApp(t)
	c.Get("/prices")
	cases := []struct {
		field, value, errorAt string
	}{
		{"quote", "eur", "quote"}, // the same currency as the base
		{"base", "XAU", "base"},   // ISO 4217, but not money anyone quotes in
		{"rate", "0", "rate"},
		{"rate", "-7.8", "rate"},
		{"rate", "1.12345678901", "rate"}, // eleven decimal places
		{"rate", "10000000000000000", "rate"},
		{"as_of", "2026-02-30", "as_of"},
		{"as_of", "", "as_of"},
		{"source", "", "source"},
		{"source", strings.Repeat("源", 501), "source"},
	}
	for _, tc := range cases {
		r := c.PostForm("/prices/fx", pricesWith(validFXRate(), tc.field, tc.value))
		if r.StatusCode != http.StatusUnprocessableEntity || strings.Join(pricesFieldErrors(r.Body), ",") != tc.errorAt {
			t.Errorf("%s=%q: %d %v, want 422 beside %s", tc.field, tc.value, r.StatusCode, pricesFieldErrors(r.Body), tc.errorAt)
		}
	}
	if n := countRows(t, app, "fx_rates"); n != 0 {
		t.Fatalf("%d rates saved, want none", n)
	}
	// Ten decimal places are fine; a second rate for the pair and day is not.
	if r := c.PostForm("/prices/fx", pricesWith(validFXRate(), "rate", "0.1234567891")); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("ten places: %d %v", r.StatusCode, pricesFieldErrors(r.Body))
	}
	r := c.PostForm("/prices/fx", validFXRate())
	if r.StatusCode != http.StatusUnprocessableEntity || strings.Join(pricesFieldErrors(r.Body), ",") != "as_of" ||
		!strings.Contains(r.Body, "This currency pair already has a rate on that day.") {
		t.Fatalf("duplicate: %d %v", r.StatusCode, pricesFieldErrors(r.Body))
	}
}

func TestPricesUnitSelectFollowsTheItem(t *testing.T) {
	t.Parallel()
	_, c := pricesApp(t)
	// What the item select's htmx request asks for: the page with ?item=.
	c.Header.Set("HX-Request", "true")
	r := c.Get("/prices?item=data_migration")
	if r.StatusCode != http.StatusOK || strings.Contains(r.Body, "<html") {
		t.Fatalf("htmx request: %d (want the body only)", r.StatusCode)
	}
	unit := pricesSection(t, r.Body, "ref-unit-hint", "p")
	sel := r.Body[strings.Index(r.Body, `id="ref-unit-field"`):]
	sel = sel[:strings.Index(sel, "</select>")]
	var got []string
	for _, m := range regexp.MustCompile(`<option value="([a-z_]+)"`).FindAllStringSubmatch(sel, -1) {
		got = append(got, m[1])
	}
	if strings.Join(got, ",") != "per_gb,one_off" || !strings.Contains(unit, "per GB, one-off") {
		t.Fatalf("units for data_migration: %v, hint %q", got, unit)
	}
}

func TestPricesHistoryFiltersAndPages(t *testing.T) {
	t.Parallel()
	app, c := pricesApp(t)
	ctx := context.Background()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 26 {
		if _, err := app.Store.CreateReferencePrice(ctx, user.SystemActor, market.ReferencePrice{Item: "snapshot", Currency: "CNY",
			Unit: "per_month", UnitPrice: decimal.New(int64(i+1), -2), AsOf: start.AddDate(0, 0, i), Source: "sheet"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := app.Store.CreateReferencePrice(ctx, user.SystemActor, market.ReferencePrice{Item: "image", Currency: "USD",
		Unit: "per_month", UnitPrice: decimal.RequireFromString("0.05"), AsOf: start, Source: "sheet"}); err != nil {
		t.Fatal(err)
	}
	rowsOf := func(body string) int {
		return len(regexp.MustCompile(`data-testid="ref-\d+"`).FindAllString(pricesSection(t, body, "ref-history-table", "table"), -1))
	}
	r := c.Get("/prices?fx_base=EUR")
	if n := rowsOf(r.Body); n != 25 {
		t.Fatalf("page 1: %d rows, want 25", n)
	}
	// The pager keeps the other list's filter and returns to the list.
	next := `href="/prices?fx_base=EUR&amp;ref_page=2#ref-history"`
	if !strings.Contains(r.Body, next) {
		t.Fatalf("no link %s", next)
	}
	if r := c.Get("/prices?fx_base=EUR&ref_page=2"); rowsOf(r.Body) != 2 {
		t.Fatalf("page 2: %d rows, want 2", rowsOf(r.Body))
	}
	r = c.Get("/prices?" + url.Values{"ref_item": {"image"}, "ref_currency": {"usd"}}.Encode())
	if n := rowsOf(r.Body); n != 1 || !strings.Contains(pricesSection(t, r.Body, "ref-history-table", "table"), "$0.05") {
		t.Fatalf("filtered: %d rows", n)
	}
	// Every sample older than 90 days is marked for review.
	if !strings.Contains(pricesSection(t, r.Body, "ref-history-table", "table"), "Over 90 days old") {
		t.Error("a 2025 sample is not marked for review")
	}
	// Current prices are grouped by currency, in currency order.
	if i, j := strings.Index(r.Body, `data-testid="ref-current-CNY"`), strings.Index(r.Body, `data-testid="ref-current-USD"`); i < 0 || j < i {
		t.Errorf("current groups: CNY at %d, USD at %d", i, j)
	}
}
