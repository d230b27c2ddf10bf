package web

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/quote"
)

// TestQuoteRowsDrawnApartAreTheSame: the quote list's rows drawn apart
// (DrawQuoteRows, for a kept page, docs/RULES.md §20.6) give the list the
// same bytes as rows drawn with it, in both languages, a stale sample
// marked in both.
func TestQuoteRowsDrawnApartAreTheSame(t *testing.T) {
	today := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	quotes := []quote.Quote{
		{ID: 7, Version: 2, State: quote.Published, PlatformNameZH: "平台 <七>", PlatformNameEN: "Platform & Seven", GPUVendor: "NVIDIA",
			GPUName: "H100", GPUCount: 8, Label: `tier "a"`, Region: "eu", Currency: "EUR", AsOf: today.AddDate(0, 0, -3),
			Hourly: decimal.NewNullDecimal(decimal.RequireFromString("12.5"))},
		{ID: 9, Version: 1, State: quote.Published, PlatformNameZH: "平台九", PlatformNameEN: "Platform Nine", GPUVendor: "AMD",
			GPUName: "MI300X", GPUCount: 1, Currency: "CNY", AsOf: today.AddDate(0, 0, -200),
			Monthly: decimal.NewNullDecimal(decimal.RequireFromString("1999.9"))},
	}
	for _, lang := range []i18n.Lang{i18n.ZH, i18n.EN} {
		tr := testCatalog.Translator(lang)
		ctx := i18n.WithTranslator(context.Background(), tr)
		in := QuoteListRecords{Filter: url.Values{"q": {"tier"}}, Quotes: quotes, Page: 1, PerPage: 50, Total: 2, CountCap: 10000, Today: today}
		var inline, apart strings.Builder
		if err := QuoteList(NewQuoteListView(tr, in)).Render(ctx, &inline); err != nil {
			t.Fatal(err)
		}
		rows, err := DrawQuoteRows(ctx, quotes, today)
		if err != nil {
			t.Fatal(err)
		}
		in.RowsHTML = rows
		v := NewQuoteListView(tr, in)
		if len(v.Rows) != 0 {
			t.Error("rows drawn before are built again")
		}
		if err := QuoteList(v).Render(ctx, &apart); err != nil {
			t.Fatal(err)
		}
		if inline.String() != apart.String() {
			t.Errorf("%s: the rows drawn apart differ:\n%s\n%s", lang, inline.String(), apart.String())
		}
		if strings.Count(apart.String(), `data-testid="stale"`) != 1 || !strings.Contains(apart.String(), "Platform &amp; Seven") && !strings.Contains(apart.String(), "平台 &lt;七&gt;") {
			t.Errorf("%s: the rows lack their stale mark or escaping", lang)
		}
	}
}
