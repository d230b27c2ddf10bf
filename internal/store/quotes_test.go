package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// marketFixture inserts one platform and one GPU model and returns their ids.
func marketFixture(t *testing.T, st *store.Store) (platformID, gpuID int64) {
	t.Helper()
	ctx := context.Background()
	if err := st.Pool().QueryRow(ctx, `INSERT INTO platforms (name_zh, name_en, currency) VALUES ('示例云', 'Example Cloud', 'CNY') RETURNING id`).Scan(&platformID); err != nil {
		t.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, `INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('NVIDIA', 'RTX 4090', 24) RETURNING id`).Scan(&gpuID); err != nil {
		t.Fatal(err)
	}
	return platformID, gpuID
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func nd(s string) decimal.NullDecimal { return decimal.NewNullDecimal(dec(s)) }

func sampleQuote(platformID, gpuID int64) quote.Quote {
	return quote.Quote{
		PlatformID: platformID, GPUModelID: gpuID, Label: "4090 单卡", GPUCount: 1, VRAMGB: nd("24"), Sharing: "dedicated",
		Currency: "CNY", Hourly: nd("1.98"), Monthly: nd("1099.000001"), BillingGranularity: "second",
		PricesIncludeTax: true, TaxRate: dec("0"), AsOf: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC),
		Source: "https://example.test/pricing", IncludedMbps: dec("10"),
		Lines: []quote.Line{
			{Item: "egress", Status: "charged", Unit: "per_gb", UnitPrice: nd("0.8"), FreeAllowance: dec("20"), InWriting: true},
			{Item: "public_ip", Status: "included", InWriting: true},
			{Item: "snapshot", Status: "unconfirmed", Note: "客服未回复"},
		},
	}
}

func TestQuoteVersioningKeepsHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid := marketFixture(t, st)
	draft, err := st.CreateQuoteDraft(ctx, actor, sampleQuote(pid, gid))
	if err != nil {
		t.Fatal(err)
	}
	if draft.Version != 1 || draft.SeriesID != draft.ID || draft.State != quote.Draft || len(draft.Lines) != 3 {
		t.Fatalf("draft %+v", draft)
	}
	// Exact decimals survive the round trip.
	if draft.Monthly.Decimal.String() != "1099.000001" || draft.Lines[0].UnitPrice.Decimal.String() != "0.8" {
		t.Fatalf("decimals: monthly %s", draft.Monthly.Decimal)
	}
	v1, err := st.PublishQuote(ctx, actor, draft.ID, draft.LockVersion)
	if err != nil || v1.State != quote.Published || v1.PublishedAt == nil {
		t.Fatalf("publish: %+v %v", v1, err)
	}

	// A published quote cannot be changed in place, by any path.
	v1.Hourly = nd("0.01")
	if _, err := st.UpdateQuoteDraft(ctx, actor, v1); !errors.Is(err, store.ErrNotDraft) {
		t.Fatalf("update published: %v, want ErrNotDraft", err)
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE quotes SET hourly = 0.01 WHERE id = $1`, v1.ID); err == nil {
		t.Fatal("the database accepted an in-place update of a published quote")
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE quote_lines SET unit_price = 0 WHERE quote_id = $1`, v1.ID); err == nil {
		t.Fatal("the database accepted an in-place update of a published quote's line")
	}
	if _, err := st.Pool().Exec(ctx, `DELETE FROM quotes WHERE id = $1`, v1.ID); err == nil {
		t.Fatal("the database deleted a published quote")
	}

	// Edit → a new draft version linked to its predecessor.
	v2, err := st.NewQuoteVersion(ctx, actor, v1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v2.Version != 2 || v2.SeriesID != v1.SeriesID || v2.PredecessorID != v1.ID || v2.State != quote.Draft || len(v2.Lines) != 3 {
		t.Fatalf("v2 %+v", v2)
	}
	if _, err := st.NewQuoteVersion(ctx, actor, v1.ID); !errors.Is(err, store.ErrDraftExists) {
		t.Fatalf("second edit while a draft exists: %v", err)
	}
	v2.Hourly = nd("2.20")
	v2.AsOf = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	v2.Lines = v2.Lines[:1]
	v2, err = st.UpdateQuoteDraft(ctx, actor, v2)
	if err != nil {
		t.Fatal(err)
	}
	v2, err = st.PublishQuote(ctx, actor, v2.ID, v2.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	old, err := st.QuoteByID(ctx, v1.ID)
	if err != nil || old.State != quote.Archived || old.Hourly.Decimal.String() != "1.98" || len(old.Lines) != 3 {
		t.Fatalf("old version after v2 published: state %s hourly %s lines %d (%v)", old.State, old.Hourly.Decimal, len(old.Lines), err)
	}
	versions, err := st.QuoteVersions(ctx, v1.SeriesID)
	if err != nil || len(versions) != 2 || versions[0].Version != 2 || versions[1].State != quote.Archived {
		t.Fatalf("versions %+v %v", versions, err)
	}
	// The list shows only the current published version by default.
	list, total, err := st.Quotes(ctx, store.QuoteFilter{})
	if err != nil || total != 1 || list[0].ID != v2.ID || list[0].PlatformNameEN != "Example Cloud" {
		t.Fatalf("list %+v total %d %v", list, total, err)
	}
	// Every step is audited, newest first.
	recs, _ := st.AuditLog(ctx, store.AuditFilter{Entity: "quote"})
	var acts []string
	for _, r := range recs {
		acts = append(acts, r.Action)
	}
	if got, want := strings.Join(acts, " "), "quote.publish quote.update quote.new_version quote.publish quote.create"; got != want {
		t.Fatalf("audit: %s, want %s", got, want)
	}
}

func TestQuoteDraftOptimisticLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid := marketFixture(t, st)
	draft, err := st.CreateQuoteDraft(ctx, actor, sampleQuote(pid, gid))
	if err != nil {
		t.Fatal(err)
	}
	// Two editors loaded the same version; both save.
	alice, bob := draft, draft
	alice.Hourly = nd("2.00")
	bob.Hourly = nd("3.00")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, q := range []quote.Quote{alice, bob} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = st.UpdateQuoteDraft(ctx, actor, q)
		}()
	}
	wg.Wait()
	wins, conflicts := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case errors.Is(err, store.ErrConflict):
			conflicts++
		default:
			t.Fatal(err)
		}
	}
	if wins != 1 || conflicts != 1 {
		t.Fatalf("wins %d conflicts %d, want exactly one of each", wins, conflicts)
	}
	got, _ := st.QuoteByID(ctx, draft.ID)
	if got.LockVersion != draft.LockVersion+1 || (got.Hourly.Decimal.String() != "2" && got.Hourly.Decimal.String() != "3") {
		t.Fatalf("after the race: lock %d hourly %s", got.LockVersion, got.Hourly.Decimal)
	}
	// Publishing with a stale lock version is a conflict too.
	if _, err := st.PublishQuote(ctx, actor, draft.ID, draft.LockVersion); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale publish: %v", err)
	}
	// A failed save leaves no audit row.
	n := count(t, st, "audit_log")
	if _, err := st.UpdateQuoteDraft(ctx, actor, alice); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale save: %v", err)
	}
	if count(t, st, "audit_log") != n {
		t.Fatal("a conflicting save was audited")
	}
	// Drafts can be discarded; published quotes cannot.
	if err := st.DeleteQuoteDraft(ctx, actor, draft.ID, got.LockVersion); err != nil {
		t.Fatal(err)
	}
	if _, err := st.QuoteByID(ctx, draft.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted draft: %v", err)
	}
}

func TestQuoteListFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid := marketFixture(t, st)
	for i, cur := range []string{"CNY", "EUR", "CNY"} {
		q := sampleQuote(pid, gid)
		q.Currency = cur
		q.AsOf = time.Date(2026, time.Month(6+i), 1, 0, 0, 0, 0, time.UTC)
		d, err := st.CreateQuoteDraft(ctx, actor, q)
		if err != nil {
			t.Fatal(err)
		}
		if i < 2 {
			if _, err := st.PublishQuote(ctx, actor, d.ID, d.LockVersion); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, n, _ := st.Quotes(ctx, store.QuoteFilter{}); n != 2 {
		t.Fatalf("published: %d", n)
	}
	if _, n, _ := st.Quotes(ctx, store.QuoteFilter{States: []string{quote.Draft}}); n != 1 {
		t.Fatalf("drafts: %d", n)
	}
	if l, n, _ := st.Quotes(ctx, store.QuoteFilter{Currency: "EUR"}); n != 1 || l[0].Currency != "EUR" {
		t.Fatalf("EUR: %d", n)
	}
	if _, n, _ := st.Quotes(ctx, store.QuoteFilter{AsOfBefore: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)}); n != 1 {
		t.Fatalf("stale: %d", n)
	}
	if _, n, _ := st.Quotes(ctx, store.QuoteFilter{MinVRAMGB: nd("48")}); n != 0 {
		t.Fatalf("VRAM ≥ 48: %d", n)
	}
	if l, n, _ := st.Quotes(ctx, store.QuoteFilter{Query: "example"}); n != 2 || l[0].AsOf.Month() != 7 {
		t.Fatalf("query: %d", n)
	}
	// Without a count: the rows asked for, and a total one past them when
	// more match.
	if l, n, _ := st.Quotes(ctx, store.QuoteFilter{Limit: 1, NoCount: true}); len(l) != 1 || n != 2 || l[0].AsOf.Month() != 7 {
		t.Fatalf("no count, more match: %d rows, total %d", len(l), n)
	}
	if l, n, _ := st.Quotes(ctx, store.QuoteFilter{Limit: 2, NoCount: true}); len(l) != 2 || n != 2 {
		t.Fatalf("no count, all listed: %d rows, total %d", len(l), n)
	}
}
