package skycatalog

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/form"
	"gpuquote/internal/quote"
)

// Settings are what the editor states for a whole import: the platform,
// the day the catalog's prices were seen (as_of), where they come from,
// and the two terms a catalog does not state but a new quote needs: the
// sharing of a whole card and the billing granularity of its hourly price
// (docs/RULES.md §7.7).
type Settings struct {
	PlatformID         int64
	AsOf               time.Time
	Source             string
	Sharing            string
	BillingGranularity string
}

// Series is one quote series of the platform as it stands: its newest
// published or archived version, with its lines (Base, ID 0 when it has
// none), and its draft (Draft, ID 0 when none: only its id, label, GPU
// model, count and region are read).
type Series struct {
	Base  quote.Quote
	Draft quote.Quote
}

// ID is the series' id.
func (s Series) ID() int64 {
	if s.Base.ID != 0 {
		return s.Base.SeriesID
	}
	return s.Draft.SeriesID
}

// current is the version whose offer the series stands for: the newest
// in the market, else its draft.
func (s Series) current() quote.Quote {
	if s.Base.ID != 0 {
		return s.Base
	}
	return s.Draft
}

// Item is what the plan does with one offer: the version it follows
// (Base, for a changed or unchanged offer), the draft it makes (Next, for
// a new or changed one), or the draft that already waits (DraftID).
type Item struct {
	Offer   Offer
	GPUID   int64
	Base    quote.Quote
	Next    quote.Quote
	DraftID int64
}

// Unknown is a GPU name no GPU model is known by (name or alias), with the
// nearest known name ("" when none is near) and how many offers and rows
// name it.
type Unknown struct {
	Name    string `json:"name"`
	Nearest string `json:"nearest"`
	Offers  int    `json:"offers"`
	Rows    int    `json:"rows"`
}

// Refused is an offer whose quote the entry rules refuse (docs/RULES.md
// §2.3): the field and its problem.
type Refused struct {
	Label   string       `json:"label"`
	Field   string       `json:"field"`
	Message form.Message `json:"message"`
}

// Plan is what an import makes of a catalog on a platform.
type Plan struct {
	// New start series of their own; Changed follow their series' newest
	// version; Unchanged make nothing; Pending match a series that already
	// has a draft, which the import leaves as it is.
	New, Changed, Unchanged, Pending []Item
	// Unknown are the GPU names not resolved: their offers make nothing.
	Unknown []Unknown
	// Refused are offers whose quote would break an entry rule.
	Refused []Refused
}

// seriesKey is what an offer and a series are matched by (docs/RULES.md
// §7.7): the label (the instance type), the GPU model, the GPU count and
// the currency (a catalog's is always USD), all within the one platform.
type seriesKey struct {
	label    string
	gpu      int64
	count    int
	currency string
}

// MakePlan matches the catalog's offers with the platform's series and
// says what each becomes. refs resolves GPU names (names and aliases) and
// checks each quote by the entry rules; today is the latest day an as_of
// may name. The result depends only on its inputs: the offers in their
// order, the series by id.
func MakePlan(c Catalog, series []Series, refs quote.Refs, s Settings, today time.Time) Plan {
	var p Plan
	unknown := map[string]int{} // name → index in p.Unknown
	type resolved struct {
		offer Offer
		gpu   int64
	}
	var offers []resolved
	perKey := map[seriesKey]int{}
	for _, o := range c.Offers {
		id, ok := refs.GPUModel(o.GPUName)
		if !ok {
			i, seen := unknown[o.GPUName]
			if !seen {
				i = len(p.Unknown)
				unknown[o.GPUName] = i
				p.Unknown = append(p.Unknown, Unknown{Name: o.GPUName, Nearest: refs.SuggestGPUModel(o.GPUName)})
			}
			p.Unknown[i].Offers++
			p.Unknown[i].Rows += o.Rows
			continue
		}
		offers = append(offers, resolved{o, id})
		perKey[seriesKey{o.InstanceType, id, o.GPUCount, Currency}]++
	}

	sorted := slices.Clone(series)
	slices.SortFunc(sorted, func(a, b Series) int { return cmpInt64(a.ID(), b.ID()) })
	byKey := map[seriesKey][]int{}
	for i, sr := range sorted {
		q := sr.current()
		k := seriesKey{q.Label, q.GPUModelID, q.GPUCount, q.Currency}
		byKey[k] = append(byKey[k], i)
	}
	claimed := map[int]bool{}
	for _, r := range offers {
		k := seriesKey{r.offer.InstanceType, r.gpu, r.offer.GPUCount, Currency}
		match := -1
		var free []int
		for _, i := range byKey[k] {
			if !claimed[i] {
				free = append(free, i)
			}
		}
		if perKey[k] == 1 && len(byKey[k]) == 1 && len(free) == 1 {
			match = free[0]
		} else {
			// Several offers or several series under one key (an instance
			// type priced differently by region): the regions decide.
			region := RegionText(r.offer.Regions)
			for _, i := range free {
				if sorted[i].current().Region == region {
					match = i
					break
				}
			}
		}
		item := Item{Offer: r.offer, GPUID: r.gpu}
		if match < 0 {
			item.Next = newQuote(r.offer, r.gpu, s)
			if p.refuse(item, refs, today) {
				continue
			}
			p.New = append(p.New, item)
			continue
		}
		claimed[match] = true
		sr := sorted[match]
		if sr.Draft.ID != 0 {
			item.DraftID = sr.Draft.ID
			item.Base = sr.Base
			p.Pending = append(p.Pending, item)
			continue
		}
		item.Base = sr.Base
		next := nextVersion(sr.Base, r.offer, s)
		if !Changed(sr.Base, next) {
			p.Unchanged = append(p.Unchanged, item)
			continue
		}
		item.Next = next
		if p.refuse(item, refs, today) {
			continue
		}
		p.Changed = append(p.Changed, item)
	}
	return p
}

// refuse checks the draft an item makes by the entry rules, the one
// validation every way in goes through (quote.Read); a refused one is
// listed with its first problem and makes nothing.
func (p *Plan) refuse(it Item, refs quote.Refs, today time.Time) bool {
	values := quote.Values(it.Next)
	_, errs := quote.Read(values.Get, refs, today)
	if len(errs) == 0 {
		return false
	}
	fields := make([]string, 0, len(errs))
	for f := range errs {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	p.Refused = append(p.Refused, Refused{Label: it.Offer.InstanceType, Field: fields[0], Message: errs[fields[0]]})
	return true
}

// newQuote is the first version of an offer's series: what the catalog
// says, the editor's settings, and the twelve hidden-cost lines
// unconfirmed, since a catalog says nothing of them (docs/RULES.md §3.1).
func newQuote(o Offer, gpu int64, s Settings) quote.Quote {
	q := quote.Quote{PlatformID: s.PlatformID, GPUModelID: gpu, Sharing: s.Sharing, BillingGranularity: s.BillingGranularity,
		Currency: Currency, PricesIncludeTax: false, TaxRate: decimal.Zero}
	for _, it := range catalog.Items {
		q.Lines = append(q.Lines, quote.Line{Item: string(it.Key), Status: string(catalog.StatusUnconfirmed)})
	}
	return apply(q, o, s)
}

// nextVersion is the version that follows base for the offer: base as it
// is (its lines, terms, notes, sharing and granularity, which the catalog
// does not state), with what the catalog states in its place.
func nextVersion(base quote.Quote, o Offer, s Settings) quote.Quote {
	q := base
	q.ID, q.Version, q.State, q.LockVersion, q.PublishedAt, q.ArchivedAt = 0, 0, quote.Draft, 0, nil, nil
	q.PredecessorID = base.ID
	q.Lines = slices.Clone(base.Lines)
	return apply(q, o, s)
}

// apply writes what the catalog states about an offer into q. A figure
// the catalog leaves empty leaves q's as it is.
func apply(q quote.Quote, o Offer, s Settings) quote.Quote {
	q.Label, q.GPUCount, q.Currency = o.InstanceType, o.GPUCount, Currency
	q.Hourly, q.SpotHourly = decimal.NewNullDecimal(o.Hourly), o.SpotHourly
	if o.VCPUs != nil {
		n := *o.VCPUs
		q.CPUCores = &n
	}
	if o.MemoryGiB.Valid {
		q.RAMGB = o.MemoryGiB
	}
	if o.VRAMGiB.Valid {
		q.VRAMGB = o.VRAMGiB
	}
	q.Region = RegionText(o.Regions)
	q.AsOf, q.Source = s.AsOf, s.Source
	return q
}

// Changed reports whether next says anything about the offer that base
// does not: its prices (hourly, spot and currency), vCPUs, memory, VRAM or
// regions (docs/RULES.md §7.7). The date and source of a sample are no
// change.
func Changed(base, next quote.Quote) bool {
	return base.Currency != next.Currency || !sameDec(base.Hourly, next.Hourly) || !sameDec(base.SpotHourly, next.SpotHourly) ||
		!sameInt(base.CPUCores, next.CPUCores) || !sameDec(base.RAMGB, next.RAMGB) || !sameDec(base.VRAMGB, next.VRAMGB) ||
		base.Region != next.Region
}

func sameDec(a, b decimal.NullDecimal) bool {
	return a.Valid == b.Valid && (!a.Valid || a.Decimal.Equal(b.Decimal))
}

func sameInt(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// maxRegionText is the length of a quote's region field.
const maxRegionText = 100

// RegionText is how an offer's regions are written in its quote's region
// field: sorted, joined with ", ". When that is longer than the field
// (100 characters), as many whole names as fit are kept, followed by
// "… +N", N being how many were left out; so the text is the same for the
// same regions, and a different set of regions almost always writes a
// different text (docs/RULES.md §7.7).
func RegionText(regions []string) string {
	all := strings.Join(regions, ", ")
	if utf8.RuneCountInString(all) <= maxRegionText {
		return all
	}
	for keep := len(regions) - 1; keep >= 0; keep-- {
		s := strings.Join(regions[:keep], ", ")
		tail := "… +" + strconv.Itoa(len(regions)-keep)
		if keep > 0 {
			tail = ", " + tail
		}
		if utf8.RuneCountInString(s)+utf8.RuneCountInString(tail) <= maxRegionText {
			return s + tail
		}
	}
	return "… +" + strconv.Itoa(len(regions))
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Waiting is a series the import left alone because a draft of it waits
// for review: the offer's label and the draft's id.
type Waiting struct {
	Label   string `json:"label"`
	DraftID int64  `json:"draft_id"`
}

// Summary is what an import read and did, as its record keeps it and its
// page says it (docs/RULES.md §7.7).
type Summary struct {
	// Rows read after the header; of them GPU rows, rows without a GPU and
	// rows of a fraction of a GPU (both passed over); Folded the GPU rows
	// folded into another row's offer; Offers what they fold into.
	Rows           int `json:"rows"`
	GPURows        int `json:"gpu_rows"`
	NoGPURows      int `json:"no_gpu_rows"`
	FractionalRows int `json:"fractional_rows"`
	Folded         int `json:"folded"`
	Offers         int `json:"offers"`
	// New, Changed and Unchanged count the offers by what they made.
	New       int `json:"new"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
	// Unknown, Waiting and Refused are the offers that made nothing for
	// another reason.
	Unknown []Unknown `json:"unknown"`
	Waiting []Waiting `json:"waiting"`
	Refused []Refused `json:"refused"`
}

// UnknownRows is how many rows name a GPU no model is known by.
func (s Summary) UnknownRows() int {
	n := 0
	for _, u := range s.Unknown {
		n += u.Rows
	}
	return n
}

// NewSummary is the summary of importing c as p says.
func NewSummary(c Catalog, p Plan) Summary {
	s := Summary{Rows: c.Rows, GPURows: c.GPURows, NoGPURows: c.NoGPURows, FractionalRows: c.FractionalRows,
		Folded: c.Folded(), Offers: len(c.Offers), New: len(p.New), Changed: len(p.Changed), Unchanged: len(p.Unchanged),
		Unknown: p.Unknown, Refused: p.Refused}
	for _, it := range p.Pending {
		s.Waiting = append(s.Waiting, Waiting{Label: it.Offer.InstanceType, DraftID: it.DraftID})
	}
	return s
}
