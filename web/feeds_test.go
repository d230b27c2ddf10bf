package web

import (
	"testing"
	"time"

	"gpuquote/internal/feed"
	"gpuquote/internal/i18n"
)

func TestQuoteVersionSummary(t *testing.T) {
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	en, zh := cat.Translator(i18n.EN), cat.Translator(i18n.ZH)
	v := feed.QuoteVersion{Currency: "CNY", PrevID: 1, PrevHourly: nd("1.98"), Hourly: nd("1.78"), PrevMonthly: nd("900"), Monthly: nd("900")}
	if got, want := QuoteVersionSummary(en, v), "CN¥1.98/h → CN¥1.78/h, -10.1 %; CN¥900.00/month (unchanged)"; got != want {
		t.Errorf("en: %q, want %q", got, want)
	}
	if got, want := QuoteVersionSummary(zh, v), "¥1.98/小时 → ¥1.78/小时，-10.1%；¥900.00/月（未变）"; got != want {
		t.Errorf("zh: %q, want %q", got, want)
	}
	first := feed.QuoteVersion{Currency: "EUR", Hourly: nd("0.471")}
	if got, want := QuoteVersionSummary(en, first), "First version: €0.471/h"; got != want {
		t.Errorf("first: %q, want %q", got, want)
	}
	moved := feed.QuoteVersion{Currency: "USD", PrevID: 1, PrevHourly: nd("2"), Monthly: nd("1000")}
	if got, want := QuoteVersionSummary(en, moved), "$2.00/h → no longer offered; $1,000.00/month (new)"; got != want {
		t.Errorf("moved: %q, want %q", got, want)
	}
}

func TestNewQuotesFeed(t *testing.T) {
	cat, _ := i18n.Load()
	tr := cat.Translator(i18n.EN)
	made := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if f := NewQuotesFeed(tr, "https://q.example.com", "https://q.example.com/feeds/quotes.atom?token=x", nil, made); !f.Updated.Equal(made) ||
		f.ID != "tag:q.example.com,2026:quotes" || len(f.Entries) != 0 {
		t.Errorf("empty feed: %+v", f)
	}
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	f := NewQuotesFeed(tr, "https://q.example.com", "self", []feed.QuoteVersion{{ID: 7, Version: 2, PlatformNameZH: "平台", PlatformNameEN: "Cloud",
		GPUVendor: "NVIDIA", GPUName: "H100", GPUCount: 8, Label: "spot", Currency: "USD", Hourly: nd("2"), PublishedAt: at}}, made)
	e := f.Entries[0]
	if !f.Updated.Equal(at) || e.ID != "tag:q.example.com,2026:quote-version/7" || e.Link != "https://q.example.com/quotes/7" ||
		e.Title != "Cloud · NVIDIA H100 × 8 · spot · v2" {
		t.Errorf("feed: %+v", f)
	}
}
