package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// historyFixture inserts a platform and two GPU models.
func historyFixture(t *testing.T, st *store.Store) (platformID, gpuID, otherGPUID int64) {
	t.Helper()
	ctx := context.Background()
	if err := st.Pool().QueryRow(ctx, `INSERT INTO platforms (name_zh, name_en, currency) VALUES ('历史云', 'History Cloud', 'CNY') RETURNING id`).Scan(&platformID); err != nil {
		t.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, `INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('NVIDIA', 'A100', 80) RETURNING id`).Scan(&gpuID); err != nil {
		t.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, `INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('NVIDIA', 'H100', 80) RETURNING id`).Scan(&otherGPUID); err != nil {
		t.Fatal(err)
	}
	return platformID, gpuID, otherGPUID
}

func histDay(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// histQuote is a minimal valid quote priced hourly and monthly in CNY.
func histQuote(platformID, gpuID int64, asOf, hourly, monthly string) quote.Quote {
	q := quote.Quote{PlatformID: platformID, GPUModelID: gpuID, Label: "A100 单卡", GPUCount: 1, Sharing: "dedicated",
		Currency: "CNY", BillingGranularity: "second", PricesIncludeTax: true, TaxRate: dec("0"),
		AsOf: histDay(asOf), Source: "https://example.test/prices",
		Lines: []quote.Line{{Item: "egress", Status: "charged", Unit: "per_gb", UnitPrice: nd("0.5"), FreeAllowance: dec("0")}}}
	if hourly != "" {
		q.Hourly = nd(hourly)
	}
	if monthly != "" {
		q.Monthly = nd(monthly)
	}
	return q
}

// histPublish creates and publishes version 1 of a new series.
func histPublish(t *testing.T, st *store.Store, q quote.Quote) quote.Quote {
	t.Helper()
	ctx := context.Background()
	d, err := st.CreateQuoteDraft(ctx, actor, q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.PublishQuote(ctx, actor, d.ID, d.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// histNewVersion publishes the next version of a published quote with a
// new date and prices.
func histNewVersion(t *testing.T, st *store.Store, prev quote.Quote, asOf, hourly, monthly string) quote.Quote {
	t.Helper()
	ctx := context.Background()
	d, err := st.NewQuoteVersion(ctx, actor, prev.ID)
	if err != nil {
		t.Fatal(err)
	}
	d.AsOf, d.Hourly, d.Monthly = histDay(asOf), nd(hourly), nd(monthly)
	if d, err = st.UpdateQuoteDraft(ctx, actor, d); err != nil {
		t.Fatal(err)
	}
	p, err := st.PublishQuote(ctx, actor, d.ID, d.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPriceHistoryOrderVersionsAndJumps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid, other := historyFixture(t, st)

	v1 := histPublish(t, st, histQuote(pid, gid, "2026-01-10", "2.00", "1000"))
	// Exactly +30 % on both prices: not a jump.
	v2 := histNewVersion(t, st, v1, "2026-03-01", "2.60", "1300")
	// Monthly +30.0008 %: a jump; hourly barely moves.
	v3 := histNewVersion(t, st, v2, "2026-05-01", "2.600001", "1690.01")
	// Another offer in USD on the same day as v2: its own series of
	// samples, never compared with the CNY prices.
	usd := histQuote(pid, gid, "2026-03-01", "9.99", "")
	usd.Currency = "USD"
	usdQ := histPublish(t, st, usd)
	// Another offer of the same card, same currency and size at +150 %
	// (a package of another spec): a different product, not a price move.
	big := histQuote(pid, gid, "2026-04-01", "5.00", "")
	histPublish(t, st, big)
	// Neither a draft nor another GPU model is part of this history.
	if _, err := st.CreateQuoteDraft(ctx, actor, histQuote(pid, gid, "2026-06-01", "1", "")); err != nil {
		t.Fatal(err)
	}
	histPublish(t, st, histQuote(pid, other, "2026-02-01", "5", ""))

	hist, err := st.PriceHistory(ctx, pid, gid)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id      int64
		version int
		state   string
		asOf    string
		hJump   bool
		mJump   bool
	}
	var got []row
	for _, p := range hist {
		got = append(got, row{p.ID, p.Version, p.State, p.AsOf.Format(time.DateOnly), p.HourlyJump, p.MonthlyJump})
	}
	want := []row{
		{v1.ID, 1, quote.Archived, "2026-01-10", false, false},
		{v2.ID, 2, quote.Archived, "2026-03-01", false, false},
		{usdQ.ID, 1, quote.Published, "2026-03-01", false, false},
		{0, 1, quote.Published, "2026-04-01", false, false},
		{v3.ID, 3, quote.Published, "2026-05-01", false, true},
	}
	if len(got) != len(want) {
		t.Fatalf("history %+v", got)
	}
	for i := range want {
		if want[i].id == 0 {
			want[i].id = got[i].id
		}
		if got[i] != want[i] {
			t.Errorf("sample %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if hist[4].PrevID != v2.ID || hist[4].PrevMonthly.Decimal.String() != "1300" || hist[4].Monthly.Decimal.String() != "1690.01" {
		t.Errorf("v3's previous sample: %+v", hist[4])
	}
	if hist[2].PrevID != 0 || hist[3].PrevID != 0 || hist[0].SeriesID != v1.SeriesID || hist[4].Source != "https://example.test/prices" {
		t.Errorf("each offer is compared only with its own earlier versions: %+v", hist)
	}

	// The dashboard sees the current jump only.
	jumps, total, err := st.PriceJumps(ctx, histDay("2026-01-01"), market.JumpPercent, 10)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || len(jumps) != 1 || jumps[0].QuoteID != v3.ID || !jumps[0].MonthlyJump || jumps[0].HourlyJump ||
		jumps[0].PrevID != v2.ID || jumps[0].PrevAsOf.Format(time.DateOnly) != "2026-03-01" || jumps[0].PlatformNameEN != "History Cloud" {
		t.Fatalf("jumps %+v total %d", jumps, total)
	}
	// … and none before the window.
	if jumps, total, err := st.PriceJumps(ctx, histDay("2026-05-02"), market.JumpPercent, 10); err != nil || total != 0 || len(jumps) != 0 {
		t.Fatalf("jumps after the window: %+v %d %v", jumps, total, err)
	}
	// A falling price counts as much as a rising one.
	down := histNewVersion(t, st, v3, "2026-06-15", "1.80", "1690.01") // −30.77 %
	jumps, _, err = st.PriceJumps(ctx, histDay("2026-01-01"), market.JumpPercent, 10)
	if err != nil || len(jumps) != 1 || jumps[0].QuoteID != down.ID || !jumps[0].HourlyJump || jumps[0].MonthlyJump {
		t.Fatalf("falling jump: %+v %v", jumps, err)
	}
}

func TestStaleQuotesOldestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid, _ := historyFixture(t, st)
	oldest := histPublish(t, st, histQuote(pid, gid, "2025-01-01", "1", ""))
	old := histPublish(t, st, histQuote(pid, gid, "2025-06-01", "1", ""))
	histPublish(t, st, histQuote(pid, gid, "2026-03-01", "1", ""))
	// An old quote that has a newer version is not stale: it is history.
	histNewVersion(t, st, histPublish(t, st, histQuote(pid, gid, "2024-01-01", "1", "")), "2026-03-02", "1", "1")

	list, total, err := st.StaleQuotes(ctx, histDay("2026-01-01"), 0, 10)
	if err != nil || total != 2 || len(list) != 2 || list[0].ID != oldest.ID || list[1].ID != old.ID || list[0].PlatformNameZH != "历史云" {
		t.Fatalf("stale %+v total %d %v", list, total, err)
	}
	if list, total, err := st.StaleQuotes(ctx, histDay("2026-01-01"), 1, 10); err != nil || total != 2 || len(list) != 1 || list[0].ID != old.ID {
		t.Fatalf("second page %+v %d %v", list, total, err)
	}
	c, err := st.CountQuotes(ctx)
	if err != nil || c.Published != 4 || c.Archived != 1 || c.Drafts != 0 {
		t.Fatalf("counts %+v %v", c, err)
	}
}

func histCount(t *testing.T, st *store.Store, table string) int {
	t.Helper()
	var n int
	if err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestImportQuotesAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid, other := historyFixture(t, st)
	histPublish(t, st, histQuote(pid, gid, "2026-01-01", "1", ""))
	before := [3]int{histCount(t, st, "quotes"), histCount(t, st, "quote_lines"), histCount(t, st, "audit_log")}

	batch := []quote.Quote{
		histQuote(pid, gid, "2026-02-01", "2.5", "1099.000001"),
		histQuote(pid, other, "2026-02-02", "", "800"),
		histQuote(pid, gid, "2026-02-03", "3", ""),
	}
	bad := append([]quote.Quote(nil), batch...)
	bad[2].Hourly = nd("-1") // breaks CHECK (hourly >= 0) on the last quote
	if ids, err := st.ImportQuotes(ctx, actor, bad); err == nil {
		t.Fatalf("import with a bad quote succeeded: %v", ids)
	}
	bad[2] = histQuote(pid, 999999, "2026-02-03", "3", "") // no such GPU model
	if _, err := st.ImportQuotes(ctx, actor, bad); err == nil {
		t.Fatal("import with a dangling GPU model succeeded")
	}
	after := [3]int{histCount(t, st, "quotes"), histCount(t, st, "quote_lines"), histCount(t, st, "audit_log")}
	if after != before {
		t.Fatalf("a failed import left rows behind: quotes, lines, audit %v → %v", before, after)
	}

	ids, err := st.ImportQuotes(ctx, actor, batch)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 {
		t.Fatalf("ids %v", ids)
	}
	got, err := st.QuotesByIDs(ctx, ids)
	if err != nil || len(got) != 3 {
		t.Fatalf("imported %+v %v", got, err)
	}
	for i, q := range got {
		if q.ID != ids[i] || q.SeriesID != q.ID || q.Version != 1 || q.State != quote.Published || q.PublishedAt == nil ||
			q.AsOf != batch[i].AsOf || len(q.Lines) != 1 || q.Lines[0].UnitPrice.Decimal.String() != "0.5" {
			t.Errorf("quote %d: %+v", i, q)
		}
	}
	if got[0].Monthly.Decimal.String() != "1099.000001" || got[0].Hourly.Decimal.String() != "2.5" || got[1].Hourly.Valid {
		t.Errorf("decimals: %+v", got[0])
	}
	// Imported quotes are published: immutable like any other.
	if _, err := st.Pool().Exec(ctx, `UPDATE quotes SET label = 'x' WHERE id = $1`, ids[0]); err == nil {
		t.Error("an imported quote could be changed in place")
	}
	recs, err := st.AuditLog(ctx, store.AuditFilter{Action: store.ActionQuoteImport})
	if err != nil || len(recs) != 1 || recs[0].ActorEmail != actor.Email {
		t.Fatalf("audit %+v %v", recs, err)
	}
	var rec struct {
		Count int     `json:"count"`
		IDs   []int64 `json:"ids"`
	}
	if err := json.Unmarshal(recs[0].After, &rec); err != nil || rec.Count != 3 || len(rec.IDs) != 3 || rec.IDs[2] != ids[2] {
		t.Fatalf("audit after %s: %v", recs[0].After, err)
	}
	if n := histCount(t, st, "audit_log"); n != before[2]+1 {
		t.Fatalf("audit rows %d, want %d", n, before[2]+1)
	}
	if ids, err := st.ImportQuotes(ctx, actor, nil); err != nil || ids != nil {
		t.Fatalf("empty import: %v %v", ids, err)
	}
}
