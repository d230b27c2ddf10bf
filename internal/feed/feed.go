// Package feed writes Atom feeds (RFC 4287) and holds what they are made
// of: the feed, its entries, the published quote versions of the quotes
// feed and the watch events of a user's watch feed (docs/RULES.md §24.5).
// It does no IO beyond the bytes it writes; the same feed gives the same
// bytes.
package feed

import (
	"bytes"
	"encoding/xml"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// ContentType is what an Atom feed is served as.
const ContentType = "application/atom+xml; charset=utf-8"

// MaxEntries is how many entries a feed holds: the newest.
const MaxEntries = 50

// TagYear is the date of every tag: URI the feeds write (RFC 4151): the
// year gpuquote began to name its feeds' entries under its host name, so
// an id never changes once written.
const TagYear = "2026"

// Feed is one Atom feed.
type Feed struct {
	// ID is the feed's permanent id (a tag: URI, TagURI).
	ID    string
	Title string
	// Lang is the language of its text (xml:lang): zh-CN or en.
	Lang string
	// Updated is when it last changed: its newest entry's time, or a
	// fixed time of its own when it has none; never the time of the
	// request, so the same input gives the same bytes.
	Updated time.Time
	// Self is the feed's own absolute address, Alternate the HTML page it
	// follows.
	Self, Alternate string
	Author          string
	Entries         []Entry
}

// Entry is one entry of a feed.
type Entry struct {
	ID    string
	Title string
	// Published and Updated are the same for what never changes once
	// written (a published quote version, a watch match).
	Published, Updated time.Time
	// Link is the absolute address of the entry's page.
	Link    string
	Summary string
}

// TagURI is the tag: URI of name under authority (a host name; a port
// or brackets of an IPv6 address are no part of a tag's authority, so
// they are dropped): tag:example.com,2026:quotes.
func TagURI(authority, name string) string {
	host := authority
	if strings.HasPrefix(host, "[") {
		if i := strings.Index(host, "]"); i > 0 {
			host = strings.ReplaceAll(host[1:i], ":", "-")
		}
	} else if i := strings.LastIndex(host, ":"); i >= 0 {
		host = host[:i]
	}
	if host == "" {
		host = "localhost"
	}
	return "tag:" + strings.ToLower(host) + "," + TagYear + ":" + name
}

type atomLink struct {
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Text string `xml:",chardata"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomEntry struct {
	ID        string   `xml:"id"`
	Title     atomText `xml:"title"`
	Published string   `xml:"published"`
	Updated   string   `xml:"updated"`
	Link      atomLink `xml:"link"`
	Summary   atomText `xml:"summary"`
}

type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Lang    string      `xml:"xml:lang,attr,omitempty"`
	ID      string      `xml:"id"`
	Title   atomText    `xml:"title"`
	Updated string      `xml:"updated"`
	Links   []atomLink  `xml:"link"`
	Author  atomPerson  `xml:"author"`
	Entries []atomEntry `xml:"entry"`
}

// stamp is an Atom date: RFC 3339 in UTC, to the second.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Atom writes the feed as an Atom document, UTF-8, indented.
func (f Feed) Atom() ([]byte, error) {
	doc := atomFeed{Lang: f.Lang, ID: f.ID, Title: atomText{Type: "text", Text: f.Title}, Updated: stamp(f.Updated),
		Links: []atomLink{
			{Rel: "self", Type: "application/atom+xml", Href: f.Self},
			{Rel: "alternate", Type: "text/html", Href: f.Alternate},
		},
		Author: atomPerson{Name: f.Author}}
	for _, e := range f.Entries {
		doc.Entries = append(doc.Entries, atomEntry{ID: e.ID, Title: atomText{Type: "text", Text: e.Title},
			Published: stamp(e.Published), Updated: stamp(e.Updated),
			Link:    atomLink{Rel: "alternate", Type: "text/html", Href: e.Link},
			Summary: atomText{Type: "text", Text: e.Summary}})
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// QuoteVersion is one published (or since archived) quote version as the
// quotes feed tells it: its offer, its prices and the prices of the
// previous version of the same offer (docs/RULES.md §7.2), and when it
// was published.
type QuoteVersion struct {
	ID             int64
	Version        int
	PlatformNameZH string
	PlatformNameEN string
	GPUVendor      string
	GPUName        string
	GPUCount       int
	Label          string
	Currency       string
	Hourly         decimal.NullDecimal
	Monthly        decimal.NullDecimal
	// PrevID is the previous version of the same offer, 0 for none; its
	// prices are PrevHourly and PrevMonthly.
	PrevID      int64
	PrevHourly  decimal.NullDecimal
	PrevMonthly decimal.NullDecimal
	PublishedAt time.Time
}

// WatchEvent is one event of a user's watch feed: one of their watches
// matched (docs/RULES.md §24.5). Its texts
// come in both languages; Link is a path of the site ("/quotes/12").
type WatchEvent struct {
	ID                   int64
	TitleZH, TitleEN     string
	Link                 string
	At                   time.Time
	SummaryZH, SummaryEN string
}
