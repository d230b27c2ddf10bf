package store_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// rpDay parses a YYYY-MM-DD day of a test table.
func rpDay(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// addRefPrice stores one reference price and fails the test on error.
func addRefPrice(t *testing.T, st *store.Store, item, currency, unit, price, asOf string) market.ReferencePrice {
	t.Helper()
	r, err := st.CreateReferencePrice(context.Background(), actor, market.ReferencePrice{Item: item, Currency: currency,
		Unit: unit, UnitPrice: decimal.RequireFromString(price), AsOf: rpDay(t, asOf), Source: "test sheet"})
	if err != nil {
		t.Fatalf("create %s %s %s %s: %v", item, currency, unit, asOf, err)
	}
	return r
}

// refKey names a current price by what identifies it, with its price and day.
func refKey(r market.ReferencePrice) string {
	return r.Currency + " " + r.Item + " " + r.Unit + " " + r.UnitPrice.String() + " " + r.AsOf.Format(time.DateOnly)
}

func TestCurrentReferencePricesPicksTheNewestOnOrBeforeTheDay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	addRefPrice(t, st, "egress", "CNY", "per_gb", "0.8", "2026-01-01")
	addRefPrice(t, st, "egress", "CNY", "per_gb", "0.5", "2026-02-01")
	addRefPrice(t, st, "egress", "CNY", "per_gb", "0.9", "2026-03-01") // after the day asked for
	addRefPrice(t, st, "egress", "CNY", "flat_month", "30", "2026-01-15")
	addRefPrice(t, st, "bandwidth", "CNY", "per_month", "25", "2026-02-10")
	addRefPrice(t, st, "snapshot", "EUR", "per_month", "0.1", "2026-01-20")

	cases := []struct {
		currency, day string
		want          []string
	}{
		{"CNY", "2025-12-31", nil},
		{"CNY", "2026-01-01", []string{"CNY egress per_gb 0.8 2026-01-01"}},
		// bandwidth comes first: the hidden-cost table's order, not the alphabet.
		{"CNY", "2026-02-15", []string{"CNY bandwidth per_month 25 2026-02-10", "CNY egress per_gb 0.5 2026-02-01",
			"CNY egress flat_month 30 2026-01-15"}},
		{"CNY", "2026-03-01", []string{"CNY bandwidth per_month 25 2026-02-10", "CNY egress per_gb 0.9 2026-03-01",
			"CNY egress flat_month 30 2026-01-15"}},
		{"EUR", "2026-02-15", []string{"EUR snapshot per_month 0.1 2026-01-20"}},
		{"USD", "2026-02-15", nil},
		{"", "2026-02-15", []string{"CNY bandwidth per_month 25 2026-02-10", "CNY egress per_gb 0.5 2026-02-01",
			"CNY egress flat_month 30 2026-01-15", "EUR snapshot per_month 0.1 2026-01-20"}},
	}
	for _, c := range cases {
		got, err := st.CurrentReferencePrices(ctx, c.currency, rpDay(t, c.day))
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, r := range got {
			keys = append(keys, refKey(r))
		}
		if strings.Join(keys, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("current %q on %s:\n got %q\nwant %q", c.currency, c.day, keys, c.want)
		}
	}
}

func TestReferencePriceDuplicateDayIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	addRefPrice(t, st, "public_ip", "CNY", "per_month", "20", "2026-02-01")
	audits := count(t, st, "audit_log")

	_, err := st.CreateReferencePrice(ctx, actor, market.ReferencePrice{Item: "public_ip", Currency: "CNY", Unit: "per_month",
		UnitPrice: decimal.RequireFromString("21"), AsOf: rpDay(t, "2026-02-01"), Source: "correction"})
	if !errors.Is(err, store.ErrReferencePriceExists) {
		t.Fatalf("same item, currency, unit and day: %v, want ErrReferencePriceExists", err)
	}
	if n := count(t, st, "reference_prices"); n != 1 {
		t.Fatalf("%d reference prices after the refused duplicate, want 1", n)
	}
	if n := count(t, st, "audit_log"); n != audits {
		t.Fatalf("the refused duplicate left %d audit rows", n-audits)
	}
	// A correction is a new dated sample; another unit or currency the same
	// day is another price.
	addRefPrice(t, st, "public_ip", "CNY", "per_month", "21", "2026-02-02")
	addRefPrice(t, st, "public_ip", "CNY", "per_hour", "0.03", "2026-02-01")
	addRefPrice(t, st, "public_ip", "USD", "per_month", "3", "2026-02-01")

	// A unit the item cannot be priced in is refused before SQL.
	_, err = st.CreateReferencePrice(ctx, actor, market.ReferencePrice{Item: "egress", Currency: "CNY", Unit: "per_hour",
		UnitPrice: decimal.RequireFromString("1"), AsOf: rpDay(t, "2026-02-01"), Source: "x"})
	if !errors.Is(err, store.ErrReferencePriceUnit) {
		t.Fatalf("egress per_hour: %v, want ErrReferencePriceUnit", err)
	}
}

func TestReferencePriceIsAuditedInTheSameTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The serving role writes; the owner plants the failing trigger.
	owner, app := testutil.DB(t)
	st, own := testutil.Open(t, app), testutil.Open(t, owner)
	r := addRefPrice(t, st, "snapshot", "CNY", "per_month", "0.000123", "2026-02-01")
	recs, err := st.AuditLog(ctx, store.AuditFilter{Entity: "reference_price"})
	if err != nil || len(recs) != 1 {
		t.Fatalf("audit: %v, %v", recs, err)
	}
	rec := recs[0]
	if rec.Action != store.ActionReferencePriceCreate || rec.EntityID != strconv.FormatInt(r.ID, 10) ||
		rec.ActorEmail != actor.Email || rec.RequestID != actor.RequestID {
		t.Fatalf("audit record: %+v", rec)
	}
	// The audited row carries the price as an exact decimal string.
	if after := string(rec.After); !strings.Contains(after, `"unit_price": "0.000123"`) || !strings.Contains(after, `"item": "snapshot"`) {
		t.Fatalf("audit after: %s", after)
	}

	// When the audit insert fails, the price is not stored either.
	_, err = own.Pool().Exec(ctx, `
		CREATE FUNCTION fail_reference_price_audit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.action = 'reference_price.create' THEN RAISE EXCEPTION 'audit unavailable'; END IF; RETURN NEW; END $$;
		CREATE TRIGGER fail_reference_price_audit BEFORE INSERT ON audit_log
			FOR EACH ROW EXECUTE FUNCTION fail_reference_price_audit();`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.CreateReferencePrice(ctx, actor, market.ReferencePrice{Item: "snapshot", Currency: "CNY", Unit: "per_month",
		UnitPrice: decimal.RequireFromString("0.2"), AsOf: rpDay(t, "2026-02-02"), Source: "x"})
	if err == nil {
		t.Fatal("reference price stored although its audit failed")
	}
	if n := count(t, st, "reference_prices"); n != 1 {
		t.Fatalf("%d reference prices after the failed audit, want 1", n)
	}
}

func TestReferencePriceDecimalsRoundTripExactly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	prices := []string{"0.000123", "123456789.123456", "0", "0.000001", "99999999999999.999999", "1.5"}
	for i, p := range prices {
		created := addRefPrice(t, st, "egress", "CNY", "per_gb", p, "2026-01-0"+strconv.Itoa(i+1))
		if created.UnitPrice.String() != p {
			t.Errorf("returned by create: %s, want %s", created.UnitPrice, p)
		}
	}
	hist, total, err := st.ReferencePrices(ctx, store.ReferencePriceFilter{})
	if err != nil || total != len(prices) || len(hist) != len(prices) {
		t.Fatalf("history: %d rows, total %d, %v", len(hist), total, err)
	}
	for i, r := range hist {
		want := prices[len(prices)-1-i] // newest first
		if r.UnitPrice.String() != want || !r.UnitPrice.Equal(decimal.RequireFromString(want)) {
			t.Errorf("history row %d: %s, want exactly %s", i, r.UnitPrice, want)
		}
	}
	// The database holds exactly the digits written.
	var text string
	if err := st.Pool().QueryRow(ctx, `SELECT unit_price::text FROM reference_prices WHERE as_of = '2026-01-02'`).Scan(&text); err != nil {
		t.Fatal(err)
	}
	if text != "123456789.123456" {
		t.Fatalf("stored numeric %s", text)
	}
	cur, err := st.CurrentReferencePrices(ctx, "CNY", rpDay(t, "2026-01-02"))
	if err != nil || len(cur) != 1 || cur[0].UnitPrice.String() != "123456789.123456" {
		t.Fatalf("current: %v, %v", cur, err)
	}
}

func TestReferencePriceHistoryFiltersAndPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	addRefPrice(t, st, "egress", "CNY", "per_gb", "0.8", "2026-01-01")
	addRefPrice(t, st, "egress", "EUR", "per_gb", "0.09", "2026-01-03")
	addRefPrice(t, st, "image", "CNY", "per_month", "0.2", "2026-01-02")
	addRefPrice(t, st, "egress", "CNY", "per_gb", "0.7", "2026-01-04")

	rows, total, err := st.ReferencePrices(ctx, store.ReferencePriceFilter{Limit: 2})
	if err != nil || total != 4 || len(rows) != 2 || rows[0].AsOf.Format(time.DateOnly) != "2026-01-04" ||
		rows[1].AsOf.Format(time.DateOnly) != "2026-01-03" {
		t.Fatalf("page 1: %v total %d %v", rows, total, err)
	}
	rows, total, err = st.ReferencePrices(ctx, store.ReferencePriceFilter{Item: "egress", Currency: "CNY"})
	if err != nil || total != 2 || len(rows) != 2 || rows[0].UnitPrice.String() != "0.7" || rows[1].UnitPrice.String() != "0.8" {
		t.Fatalf("egress CNY: %v total %d %v", rows, total, err)
	}
	rows, total, err = st.ReferencePrices(ctx, store.ReferencePriceFilter{Currency: "CNY", Offset: 10, Limit: 2})
	if err != nil || total != 3 || len(rows) != 0 {
		t.Fatalf("past the end: %d rows total %d %v", len(rows), total, err)
	}
}

func addFXRate(t *testing.T, st *store.Store, base, quote, rate, asOf string) {
	t.Helper()
	_, err := st.CreateFXRate(context.Background(), actor, market.FXRate{Base: base, Quote: quote,
		Rate: decimal.RequireFromString(rate), AsOf: rpDay(t, asOf), Source: "central bank"})
	if err != nil {
		t.Fatalf("fx %s/%s %s: %v", base, quote, asOf, err)
	}
}

func TestFXRateHistoryAndCurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	addFXRate(t, st, "EUR", "CNY", "7.5", "2026-01-01")
	addFXRate(t, st, "EUR", "CNY", "7.8123456789", "2026-02-01")
	addFXRate(t, st, "EUR", "CNY", "9.9", "2026-03-01")
	addFXRate(t, st, "USD", "CNY", "7.1", "2026-01-10")
	addFXRate(t, st, "CNY", "USD", "0.1408450704", "2026-01-10")

	cur, err := st.CurrentFXRates(ctx, rpDay(t, "2026-02-15"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range cur {
		got = append(got, r.Base+"/"+r.Quote+" "+r.Rate.String()+" "+r.AsOf.Format(time.DateOnly))
	}
	want := []string{"CNY/USD 0.1408450704 2026-01-10", "EUR/CNY 7.8123456789 2026-02-01", "USD/CNY 7.1 2026-01-10"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("current on 2026-02-15:\n got %q\nwant %q", got, want)
	}
	if cur, _ := st.CurrentFXRates(ctx, rpDay(t, "2025-12-31")); len(cur) != 0 {
		t.Fatalf("current before any rate: %v", cur)
	}
	// The current selection agrees with the lookup the evaluation uses.
	one, err := st.FXRateOn(ctx, "EUR", "CNY", rpDay(t, "2026-02-15"))
	if err != nil || !one.Rate.Equal(cur[1].Rate) {
		t.Fatalf("FXRateOn %v %v, CurrentFXRates %v", one, err, cur[1])
	}

	hist, total, err := st.FXRates(ctx, store.FXRateFilter{Base: "EUR", Quote: "CNY", Limit: 2})
	if err != nil || total != 3 || len(hist) != 2 || hist[0].Rate.String() != "9.9" || hist[1].Rate.String() != "7.8123456789" {
		t.Fatalf("EUR/CNY history page 1: %v total %d %v", hist, total, err)
	}
	hist, total, err = st.FXRates(ctx, store.FXRateFilter{Quote: "CNY", Offset: 2, Limit: 2})
	if err != nil || total != 4 || len(hist) != 2 || hist[0].Base+hist[1].Base != "USDEUR" {
		t.Fatalf("→CNY history page 2: %v total %d %v", hist, total, err)
	}
	if _, total, err := st.FXRates(ctx, store.FXRateFilter{Offset: 50}); err != nil || total != 5 {
		t.Fatalf("past the end: total %d %v", total, err)
	}
}

// publishWithLines publishes a quote in currency, as of asOf, charging the
// given lines (item, unit, price) and returns its id.
func publishWithLines(t *testing.T, st *store.Store, pid, gid int64, currency, asOf string, lines ...[3]string) int64 {
	t.Helper()
	ctx := context.Background()
	q := sampleQuote(pid, gid)
	q.Currency, q.AsOf, q.Lines = currency, rpDay(t, asOf), nil
	for _, l := range lines {
		q.Lines = append(q.Lines, quote.Line{Item: l[0], Status: "charged", Unit: l[1], UnitPrice: nd(l[2]), InWriting: true})
	}
	d, err := st.CreateQuoteDraft(ctx, actor, q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.PublishQuote(ctx, actor, d.ID, d.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func TestMarketPricesAreTheHighestChargedWithin180Days(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid := marketFixture(t, st)
	day := rpDay(t, "2026-12-01")
	publishWithLines(t, st, pid, gid, "EUR", "2026-11-20", [3]string{"egress", "per_gb", "0.05"}, [3]string{"snapshot", "per_month", "0.1"})
	dear := publishWithLines(t, st, pid, gid, "EUR", "2026-06-04", [3]string{"egress", "per_gb", "0.09"}) // 180 days before: still counts
	publishWithLines(t, st, pid, gid, "EUR", "2026-06-03", [3]string{"egress", "per_gb", "0.50"})         // 181 days: too old
	publishWithLines(t, st, pid, gid, "EUR", "2026-12-02", [3]string{"egress", "per_gb", "0.70"})         // after the day
	tie := publishWithLines(t, st, pid, gid, "EUR", "2026-11-25", [3]string{"snapshot", "per_month", "0.1"})
	publishWithLines(t, st, pid, gid, "EUR", "2026-11-26", [3]string{"public_ip", "per_month", "0"}) // zero prices nothing
	cny := publishWithLines(t, st, pid, gid, "CNY", "2026-11-01", [3]string{"egress", "per_gb", "0.8"})
	cnyFlat := publishWithLines(t, st, pid, gid, "CNY", "2026-10-01", [3]string{"egress", "flat_month", "30"})

	// A newer version replaces its series' old one: only published versions count.
	old := publishWithLines(t, st, pid, gid, "USD", "2026-11-01", [3]string{"egress", "per_gb", "0.99"})
	v2, err := st.NewQuoteVersion(ctx, actor, old)
	if err != nil {
		t.Fatal(err)
	}
	v2.Lines = []quote.Line{{Item: "egress", Status: "charged", Unit: "per_gb", UnitPrice: nd("0.07"), InWriting: true}}
	if v2, err = st.UpdateQuoteDraft(ctx, actor, v2); err != nil {
		t.Fatal(err)
	}
	usd, err := st.PublishQuote(ctx, actor, v2.ID, v2.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	// A draft never counts.
	draft := sampleQuote(pid, gid)
	draft.Currency, draft.AsOf = "EUR", day
	draft.Lines = []quote.Line{{Item: "egress", Status: "charged", Unit: "per_gb", UnitPrice: nd("9"), InWriting: true}}
	if _, err := st.CreateQuoteDraft(ctx, actor, draft); err != nil {
		t.Fatal(err)
	}

	got, err := st.MarketPrices(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range got {
		lines = append(lines, m.Currency+" "+m.Item+" "+m.Unit+" "+m.UnitPrice.String()+" #"+strconv.FormatInt(m.QuoteID, 10)+" "+m.AsOf.Format(time.DateOnly))
	}
	want := []string{
		"CNY egress per_gb 0.8 #" + strconv.FormatInt(cny, 10) + " 2026-11-01",
		"CNY egress flat_month 30 #" + strconv.FormatInt(cnyFlat, 10) + " 2026-10-01",
		"EUR egress per_gb 0.09 #" + strconv.FormatInt(dear, 10) + " 2026-06-04",
		"EUR snapshot per_month 0.1 #" + strconv.FormatInt(tie, 10) + " 2026-11-25", // the tie: newest as-of
		"USD egress per_gb 0.07 #" + strconv.FormatInt(usd.ID, 10) + " 2026-11-01",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("market prices:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestMarketPricesFollowEveryPublication: the market reference a store
// keeps is replaced as soon as the set of published quotes changes, also
// when another server process (another store on the same database)
// publishes, and the same day and stamp read it again without the query.
func TestMarketPricesFollowEveryPublication(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	other := store.New(st.Pool()) // a second server process
	pid, gid := marketFixture(t, st)
	day := rpDay(t, "2026-12-01")
	egress := func(s *store.Store) string {
		t.Helper()
		ps, err := s.MarketPrices(ctx, day)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.Item == "egress" && p.Currency == "EUR" {
				return p.UnitPrice.String() + "@" + strconv.FormatInt(p.QuoteID, 10)
			}
		}
		return "none"
	}
	if got := egress(st); got != "none" {
		t.Fatalf("empty market: %s", got)
	}
	a := publishWithLines(t, st, pid, gid, "EUR", "2026-11-20", [3]string{"egress", "per_gb", "0.05"})
	if got, want := egress(st), "0.05@"+strconv.FormatInt(a, 10); got != want {
		t.Fatalf("after a publication: %s, want %s", got, want)
	}
	b := publishWithLines(t, other, pid, gid, "EUR", "2026-11-21", [3]string{"egress", "per_gb", "0.08"})
	if got, want := egress(st), "0.08@"+strconv.FormatInt(b, 10); got != want {
		t.Fatalf("after another process published: %s, want %s", got, want)
	}
	// A new version of b without the charge: b's series no longer counts.
	v2, err := other.NewQuoteVersion(ctx, actor, b)
	if err != nil {
		t.Fatal(err)
	}
	v2.Lines = nil
	if v2, err = other.UpdateQuoteDraft(ctx, actor, v2); err != nil {
		t.Fatal(err)
	}
	if _, err := other.PublishQuote(ctx, actor, v2.ID, v2.LockVersion); err != nil {
		t.Fatal(err)
	}
	if got, want := egress(st), "0.05@"+strconv.FormatInt(a, 10); got != want {
		t.Fatalf("after b was replaced: %s, want %s", got, want)
	}
}
