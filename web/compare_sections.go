package web

import (
	"net/url"
	"strconv"
)

// The sections of the compare page that load when opened (docs/RULES.md
// §20.4): the twelve-line matrix, the platforms' facts and the
// availability. Each has its own address, the comparison's shown state
// under /compare/<key>, which serves the section alone: a fragment for
// htmx, else a page of its own with a link back to the comparison.
const (
	SectionLines        = "lines"
	SectionFacts        = "facts"
	SectionAvailability = "availability"
)

// CompareSection is a section of the compare page, closed until opened:
// its title, its address and how many quotes it shows.
type CompareSection struct {
	Key     string
	TitleID string
	URL     string
	Count   int
}

// CompareSectionView is one section on its own, as its address serves it.
// Only the section's own fields are filled; Count 0 is its empty state.
type CompareSectionView struct {
	Page Page
	CompareSection
	// BackURL is the comparison the section belongs to.
	BackURL string
	// Rows and ItemLabelIDs are the twelve-line matrix's.
	Rows         []CompareRow
	ItemLabelIDs []string
	// Facts are the compared platforms' facts in force (docs/RULES.md §18.3).
	Facts []CompareFactsPlatform
	// Availability is each priced row's record of attempts (docs/RULES.md
	// §18.2) on AvailabilityDay.
	Availability    []CompareAvailabilityRow
	AvailabilityDay string
}

// SectionTitleID is the title of section key ("" for none).
func SectionTitleID(key string) string {
	switch key {
	case SectionLines:
		return "compare.lines.title"
	case SectionFacts:
		return "facts.compare.title"
	case SectionAvailability:
		return "availability.heading"
	}
	return ""
}

// SectionURL is section key's address for the page state shown.
func SectionURL(key string, shown url.Values) string {
	if len(shown) == 0 {
		return "/compare/" + key
	}
	return "/compare/" + key + "?" + shown.Encode()
}

// CompareSections are the sections of a comparison whose formatted rows
// are rows, in the page's order, at the address of the state shown: the
// matrix and the availability show the priced quotes, the facts every
// compared quote's platform. A section with nothing to show is left out.
func CompareSections(shown url.Values, rows []CompareRow) []CompareSection {
	priced := PricedCount(rows)
	var out []CompareSection
	for _, s := range []struct {
		key   string
		count int
	}{{SectionLines, priced}, {SectionFacts, len(rows)}, {SectionAvailability, priced}} {
		if s.count > 0 {
			out = append(out, CompareSection{Key: s.key, TitleID: SectionTitleID(s.key), URL: SectionURL(s.key, shown), Count: s.count})
		}
	}
	return out
}

// PricedCount is how many of rows were priced: what the matrix and the
// availability sections show.
func PricedCount(rows []CompareRow) int {
	n := 0
	for _, r := range rows {
		if r.Priced {
			n++
		}
	}
	return n
}

// sectionTestID names a section's body on its own page and once opened.
func sectionTestID(key string) string { return "section-body-" + key }

// countText is n as a plain number, for data attributes.
func countText(n int) string { return strconv.Itoa(n) }
