package web

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/feed"
	"gpuquote/internal/i18n"
)

// FeedURLs are a feed token's two feed addresses (docs/RULES.md §24.5):
// the quotes feed and the user's watch feed, in lang (zh-CN, the
// default, adds nothing).
func FeedURLs(base, token string, lang i18n.Lang) (quotes, watch string) {
	quotes = base + "/feeds/quotes.atom?token=" + url.QueryEscape(token)
	watch = base + "/feeds/watch/" + url.PathEscape(token) + ".atom"
	if lang == i18n.EN {
		quotes += "&lang=en"
		watch += "?lang=en"
	}
	return quotes, watch
}

// feedAuthority is the host name of base, the authority of the feeds'
// tag: ids.
func feedAuthority(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}

// NewQuotesFeed is the quotes feed (docs/RULES.md §24.5): one entry per
// published quote version, newest first as versions are given, each with
// its prices and their change from the previous version of the same offer.
// base is the site's absolute address, self the feed's own; empty is the
// feed's time when it has no entry.
func NewQuotesFeed(tr *i18n.Translator, base, self string, versions []feed.QuoteVersion, empty time.Time) feed.Feed {
	auth := feedAuthority(base)
	f := feed.Feed{ID: feed.TagURI(auth, "quotes"), Title: tr.T("feed.quotes.title"), Lang: string(tr.Lang),
		Updated: empty, Self: self, Alternate: base + "/quotes", Author: tr.T("feed.author")}
	for i, v := range versions {
		if i == 0 || v.PublishedAt.After(f.Updated) {
			f.Updated = v.PublishedAt
		}
		name := tr.T("quote.detail.title", "Platform", DisplayName(tr.Lang, v.PlatformNameZH, v.PlatformNameEN),
			"GPU", v.GPUVendor+" "+v.GPUName, "Count", strconv.Itoa(v.GPUCount))
		if v.Label != "" {
			name += " · " + v.Label
		}
		id := strconv.FormatInt(v.ID, 10)
		f.Entries = append(f.Entries, feed.Entry{ID: feed.TagURI(auth, "quote-version/"+id),
			Title:     tr.T("feed.entry.title", "Name", name, "Version", tr.T("quote.version_short", "Version", strconv.Itoa(v.Version))),
			Published: v.PublishedAt, Updated: v.PublishedAt, Link: base + "/quotes/" + id,
			Summary: QuoteVersionSummary(tr, v)})
	}
	return f
}

// QuoteVersionSummary words a version's prices and how each moved from
// the previous version of the same offer: "¥1.98/h → ¥1.78/h, -10.1 %"
// (the change as the price history words it, docs/RULES.md §7.2).
func QuoteVersionSummary(tr *i18n.Translator, v feed.QuoteVersion) string {
	var parts []string
	price := func(kind string, d decimal.NullDecimal) string {
		return tr.T("feed.price."+kind, "Price", FormatMoney(tr.Lang, d, v.Currency))
	}
	for _, p := range []struct {
		kind      string
		prev, now decimal.NullDecimal
	}{{"hourly", v.PrevHourly, v.Hourly}, {"monthly", v.PrevMonthly, v.Monthly}} {
		switch {
		case v.PrevID == 0:
			if p.now.Valid {
				parts = append(parts, price(p.kind, p.now))
			}
		case p.prev.Valid && p.now.Valid && p.prev.Decimal.Equal(p.now.Decimal):
			parts = append(parts, tr.T("feed.summary.unchanged", "Now", price(p.kind, p.now)))
		case p.prev.Valid && p.now.Valid:
			parts = append(parts, tr.T("feed.summary.changed", "Prev", price(p.kind, p.prev), "Now", price(p.kind, p.now),
				"Change", ChangeText(tr, p.prev, p.now)))
		case p.now.Valid:
			parts = append(parts, tr.T("feed.summary.added", "Now", price(p.kind, p.now)))
		case p.prev.Valid:
			parts = append(parts, tr.T("feed.summary.dropped", "Prev", price(p.kind, p.prev)))
		}
	}
	out := strings.Join(parts, tr.T("feed.summary.sep"))
	if v.PrevID == 0 && out != "" {
		return tr.T("feed.summary.first", "Prices", out)
	}
	return out
}

// NewWatchFeed is a user's watch feed (docs/RULES.md §24.5): one entry per
// event of their watches, as given (newest first). Its id names the user,
// not the token, so a new token keeps the feed's identity.
func NewWatchFeed(tr *i18n.Translator, base, self string, userID int64, events []feed.WatchEvent, empty time.Time) feed.Feed {
	auth := feedAuthority(base)
	f := feed.Feed{ID: feed.TagURI(auth, "watch/"+strconv.FormatInt(userID, 10)), Title: tr.T("feed.watch.title"),
		Lang: string(tr.Lang), Updated: empty, Self: self, Alternate: base + "/watches", Author: tr.T("feed.author")}
	for i, e := range events {
		if i == 0 || e.At.After(f.Updated) {
			f.Updated = e.At
		}
		title, summary := e.TitleZH, e.SummaryZH
		if tr.Lang == i18n.EN {
			title, summary = DisplayName(tr.Lang, e.TitleZH, e.TitleEN), DisplayName(tr.Lang, e.SummaryZH, e.SummaryEN)
		}
		f.Entries = append(f.Entries, feed.Entry{ID: feed.TagURI(auth, "watch-event/"+strconv.FormatInt(e.ID, 10)),
			Title: title, Published: e.At, Updated: e.At, Link: base + e.Link, Summary: summary})
	}
	return f
}
