package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// searchReference is the quote search as it was before the trigram index
// (docs/RULES.md §20.2), kept here as the oracle: label, region, platform
// name (either language) or GPU name (alone or after its vendor) contains
// the trimmed text, ignoring case, with %, _ and \ matching themselves;
// newest sample first.
const searchReference = `
SELECT q.id FROM quotes q
WHERE q.state = ANY($2) AND ($1 = '' OR
	q.label ILIKE '%' || $1 || '%' OR q.region ILIKE '%' || $1 || '%'
	OR q.platform_id IN (SELECT id FROM platforms WHERE name_zh ILIKE '%' || $1 || '%' OR name_en ILIKE '%' || $1 || '%')
	OR q.gpu_model_id IN (SELECT id FROM gpu_models WHERE name ILIKE '%' || $1 || '%' OR (vendor || ' ' || name) ILIKE '%' || $1 || '%'))
ORDER BY q.as_of DESC, q.id DESC`

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// searchFixture fills a fresh database with platforms and GPU models named
// in Chinese and English, and quotes in every listed state whose labels and
// regions mix scripts, case, spaces and the LIKE wildcards.
func searchFixture(t *testing.T, st *store.Store) {
	t.Helper()
	_, err := st.Pool().Exec(context.Background(), `
		INSERT INTO platforms (name_zh, name_en, currency) VALUES
		  ('阿里云', 'Alibaba Cloud', 'CNY'), ('腾讯云', 'Tencent Cloud', 'CNY'), ('百分百%云', '100% Cloud', 'USD'),
		  ('下划线_云', 'Under_score GPU', 'EUR'), ('反斜杠云', 'Back\slash Labs', 'USD');
		INSERT INTO gpu_models (vendor, name, vram_gb) VALUES
		  ('NVIDIA', 'H100 SXM', 80), ('NVIDIA', 'RTX 4090', 24), ('AMD', 'MI300X', 192), ('华为', '昇腾 910B', 64);
		WITH p AS (SELECT array_agg(id ORDER BY id) a FROM platforms), g AS (SELECT array_agg(id ORDER BY id) a FROM gpu_models),
		labels(n, label, region) AS (VALUES
		  (1, '4090 单卡', '华东2（上海）'), (2, 'H100 八卡 整机', 'us-east-1'), (3, 'Spot 50% off', 'EU West'),
		  (4, 'tier_a', ''), (5, 'tierXa', '100%'), (6, 'back\slash', 'cn-north'), (7, 'MIXED Case Label', 'Ünïcode Région'),
		  (8, '', ''), (9, '整机 H100', '华北（北京）'), (10, 'a', 'ab'), (11, 'Ab Cd', 'xyz'), (12, '昇腾 集群', 'Shanghai'))
		INSERT INTO quotes (series_id, version, state, platform_id, gpu_model_id, label, region, gpu_count, currency,
		                    hourly, billing_granularity, as_of, source, published_at, archived_at)
		SELECT 1000 * s.k + l.n, 1, s.state, p.a[1 + (l.n + s.k) % 5], g.a[1 + (l.n * 7 + s.k) % 4], l.label, l.region, 1, 'CNY',
		       1.5, 'hour', date '2026-11-01' - (l.n % 4), 'test',
		       CASE WHEN s.state = 'draft' THEN NULL ELSE now() END, CASE WHEN s.state = 'archived' THEN now() END
		FROM labels l, p, g,
		     (VALUES (1, 'published'), (2, 'published'), (3, 'draft'), (4, 'archived')) s(k, state)`)
	if err != nil {
		t.Fatal(err)
	}
}

func referenceSearch(t *testing.T, st *store.Store, text string, states []string) []int64 {
	t.Helper()
	rows, err := st.Pool().Query(context.Background(), searchReference, likeEscaper.Replace(strings.TrimSpace(text)), states)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

func quoteIDs(list []quote.Quote) []int64 {
	ids := make([]int64, len(list))
	for i, q := range list {
		ids[i] = q.ID
	}
	return ids
}

// TestQuoteSearchMatchesTheFormerQuery: the list, its pages, its count,
// the data API's keyset pages and the CSV export find exactly the rows the
// former query found, in the same order, for texts in both languages, in
// any case, shorter than a trigram, and holding %, _ or \.
func TestQuoteSearchMatchesTheFormerQuery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	searchFixture(t, st)
	texts := []string{"", "   ", "4090", " 4090 ", "单卡", "上海", "华东", "（上海）", "h100", "H100 SXM", "nvidia h100",
		"NVIDIA H100", "amd mi", "AMD MI300X", "华为 昇腾", "昇腾", "阿里", "alibaba", "CLOUD", "云", "%", "50%", "100%",
		"_", "tier_a", "tierXa", "\\", `back\slash`, `Back\slash Labs`, "mixed case", "ÜNÏCODE", "région", "a", "ab",
		"b c", "x", "zz-no-match", "整机", "%%", "__", "Under_score", "Under score"}
	stateSets := [][]string{nil, {quote.Draft}, {quote.Archived}, {quote.Draft, quote.Published, quote.Archived}}
	for _, text := range texts {
		for _, states := range stateSets {
			want := referenceSearch(t, st, text, cmpStates(states))
			name := fmt.Sprintf("%q %v", text, states)
			got, total, err := st.Quotes(ctx, store.QuoteFilter{Query: text, States: states, Limit: 200})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(quoteIDs(got), want) || total != len(want) {
				t.Errorf("%s: list %v (total %d), want %v", name, quoteIDs(got), total, want)
			}
			// A page in the middle, counted and uncounted.
			page, total, err := st.Quotes(ctx, store.QuoteFilter{Query: text, States: states, Offset: 1, Limit: 2})
			if err != nil {
				t.Fatal(err)
			}
			if wantPage := window(want, 1, 2); !slices.Equal(quoteIDs(page), wantPage) || total != len(want) {
				t.Errorf("%s: page 1+2 %v (total %d), want %v", name, quoteIDs(page), total, wantPage)
			}
			page, more, err := st.Quotes(ctx, store.QuoteFilter{Query: text, States: states, Limit: 3, NoCount: true})
			if err != nil {
				t.Fatal(err)
			}
			if wantPage := window(want, 0, 3); !slices.Equal(quoteIDs(page), wantPage) || more != min(len(want), 4) {
				t.Errorf("%s: uncounted %v (%d), want %v", name, quoteIDs(page), more, wantPage)
			}
			// The data API's keyset pages, two rows at a time.
			var keyset []int64
			after := store.QuoteKey{}
			for {
				rows, err := st.QuotesAfter(ctx, store.QuoteFilter{Query: text, States: states}, after, 2)
				if err != nil {
					t.Fatal(err)
				}
				keyset = append(keyset, quoteIDs(rows)...)
				if len(rows) < 2 {
					break
				}
				after = store.QuoteKey{AsOf: rows[1].AsOf, ID: rows[1].ID}
			}
			if !slices.Equal(keyset, want) {
				t.Errorf("%s: keyset pages %v, want %v", name, keyset, want)
			}
			// The export: the same rows in id order.
			var exported []int64
			if err := st.ExportQuotes(ctx, store.QuoteFilter{Query: text, States: states}, func(q quote.Quote) error {
				exported = append(exported, q.ID)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if byID := slices.Sorted(slices.Values(want)); !slices.Equal(exported, byID) {
				t.Errorf("%s: export %v, want %v", name, exported, byID)
			}
		}
	}
}

func cmpStates(states []string) []string {
	if len(states) == 0 {
		return []string{quote.Published}
	}
	return states
}

func window(ids []int64, offset, limit int) []int64 {
	if offset >= len(ids) {
		return nil
	}
	return ids[offset:min(len(ids), offset+limit)]
}

// TestQuoteSearchReadsTheTrigramIndex: over 20,000 quotes a search reads
// the label and region trigram index, combined with the platform and GPU
// indexes for names, instead of testing every quote (docs/RULES.md §20.2).
func TestQuoteSearchReadsTheTrigramIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ownerURL, appURL := testutil.DB(t)
	owner, st := testutil.Open(t, ownerURL), testutil.Open(t, appURL)
	_, err := st.Pool().Exec(ctx, `
		INSERT INTO platforms (name_zh, name_en, currency)
		SELECT '平台' || i, 'Platform ' || i, 'CNY' FROM generate_series(1, 50) i;
		INSERT INTO gpu_models (vendor, name, vram_gb)
		SELECT 'NVIDIA', 'GPU ' || i, 80 FROM generate_series(1, 30) i;
		INSERT INTO quotes (series_id, version, state, platform_id, gpu_model_id, label, region, gpu_count, currency,
		                    hourly, billing_granularity, as_of, source, published_at)
		SELECT i, 1, 'published', (SELECT min(id) FROM platforms) + i % 50, (SELECT min(id) FROM gpu_models) + i % 30,
		       '档位 tier ' || i, 'region-' || (i % 20), 1, 'CNY', 1.5, 'hour', date '2026-12-01' - (i % 730), 'test', now()
		FROM generate_series(1, 20000) i`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Pool().Exec(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"tier 12345", "Platform 42", "平台42", "gpu 7"} {
		cond, args, err := store.QuoteListCondition(ctx, st, store.QuoteFilter{Query: text})
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		rows, err := st.Pool().Query(ctx, `EXPLAIN SELECT q.id FROM quotes q WHERE `+cond, args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		shown := strings.Join(plan, "\n")
		if !strings.Contains(shown, "quotes_search_trgm_idx") || strings.Contains(shown, "Seq Scan on quotes") {
			t.Errorf("search %q does not read the trigram index:\n%s", text, shown)
		}
	}
}
