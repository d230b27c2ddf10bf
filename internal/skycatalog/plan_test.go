package skycatalog_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/skycatalog"
)

var (
	day1 = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	day2 = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
)

// planRefs know one platform (1) and some of RunPod's cards by alias; the
// others are unknown.
func planRefs() quote.Refs {
	return quote.NewRefs([]market.RefName{{ID: 1, Names: []string{"RunPod", "RunPod"}}}, []market.RefName{
		{ID: 10, Names: []string{"NVIDIA H100 SXM", "H100 SXM", "H100-SXM"}},
		{ID: 11, Names: []string{"NVIDIA H200 SXM 141GB", "H200 SXM 141GB", "H200-SXM"}},
		{ID: 12, Names: []string{"NVIDIA L40S", "L40S"}},
		{ID: 13, Names: []string{"NVIDIA A100 SXM4 80GB", "A100 SXM4 80GB", "A100-80GB-SXM", "A100-80GB"}},
		{ID: 14, Names: []string{"NVIDIA RTX 4000 Ada", "RTX 4000 Ada"}},
	})
}

func settings(asOf time.Time) skycatalog.Settings {
	return skycatalog.Settings{PlatformID: 1, AsOf: asOf, Source: "https://github.com/skypilot-org/skypilot-catalog",
		Sharing: string(catalog.SharingDedicated), BillingGranularity: string(catalog.GranularitySecond)}
}

// published turns the plan's drafts into the series' published versions,
// as publishing them would, with ids from next.
func published(items []skycatalog.Item, next *int64) []skycatalog.Series {
	var out []skycatalog.Series
	for _, it := range items {
		q := it.Next
		*next++
		q.ID, q.State = *next, quote.Published
		q.SeriesID = q.ID
		if it.Base.ID != 0 {
			q.SeriesID, q.Version = it.Base.SeriesID, it.Base.Version+1
		} else {
			q.Version = 1
		}
		out = append(out, skycatalog.Series{Base: q})
	}
	return out
}

func labels(items []skycatalog.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Offer.InstanceType)
	}
	return out
}

// changePrice sets the Price of every row of instanceType.
func changePrice(t *testing.T, b []byte, instanceType, price string) []byte {
	t.Helper()
	rows := readCSV(t, b)
	col, n := slices.Index(rows[0], "Price"), 0
	for _, r := range rows[1:] {
		if r[0] == instanceType {
			r[col] = price
			n++
		}
	}
	if n == 0 {
		t.Fatalf("no rows of %s", instanceType)
	}
	return writeCSV(t, rows)
}

func TestPlanNewThenUnchangedThenChanged(t *testing.T) {
	refs, file := planRefs(), fixture(t, "runpod")
	c := read(t, file)
	p := skycatalog.MakePlan(c, nil, refs, settings(day1), day2)
	// Known by an alias: A100-80GB, A100-80GB-SXM, H100-SXM, H200-SXM and
	// L40S, four sizes each.
	if len(p.New) != 20 || len(p.Changed)+len(p.Unchanged)+len(p.Pending)+len(p.Refused) != 0 {
		t.Fatalf("first import: %d new, %d changed, %d unchanged, %d pending, refused %v",
			len(p.New), len(p.Changed), len(p.Unchanged), len(p.Pending), p.Refused)
	}
	var unknown []string
	for _, u := range p.Unknown {
		unknown = append(unknown, u.Name+"→"+u.Nearest)
		// Four sizes of each card, 25 rows each; the file stops after the
		// third size of the RTX 4090.
		offers := 4
		if u.Name == "RTX4090" {
			offers = 3
		}
		if u.Offers != offers || u.Rows != 25*offers {
			t.Errorf("unknown %s: %d offers, %d rows; want %d and %d", u.Name, u.Offers, u.Rows, offers, 25*offers)
		}
	}
	// Each with the nearest known name (docs/RULES.md §7.5), by first offer.
	want := []string{"A40→L40S", "H100→H100 SXM", "L40→L40S", "L4→L40S", "RTX3090→", "RTX4000-Ada→RTX 4000 Ada", "RTX4090→RTX 4000 Ada"}
	if !slices.Equal(unknown, want) {
		t.Errorf("unknown %v, want %v", unknown, want)
	}
	q := p.New[slices.IndexFunc(p.New, func(it skycatalog.Item) bool { return it.Offer.InstanceType == "8x_H200-SXM_SECURE" })].Next
	if q.PlatformID != 1 || q.GPUModelID != 11 || q.GPUCount != 8 || q.Label != "8x_H200-SXM_SECURE" || q.Currency != "USD" ||
		q.Hourly.Decimal.String() != "31.92" || q.SpotHourly.Decimal.String() != "28.72" || *q.CPUCores != 160 ||
		q.RAMGB.Decimal.String() != "1128" || q.VRAMGB.Valid || q.Region != "CA, CZ, IS, NL, NO, RO, SE, US" ||
		!q.AsOf.Equal(day1) || q.Sharing != "dedicated" || q.BillingGranularity != "second" || q.PricesIncludeTax {
		t.Errorf("new quote %+v", q)
	}
	if len(q.Lines) != 12 {
		t.Fatalf("%d lines, want 12", len(q.Lines))
	}
	for _, l := range q.Lines {
		if l.Status != string(catalog.StatusUnconfirmed) || l.InWriting {
			t.Errorf("line %s: %s (in writing %v); a catalog confirms nothing", l.Item, l.Status, l.InWriting)
		}
	}

	// The same file on a later day: nothing changed, nothing made.
	var id int64
	series := published(p.New, &id)
	p2 := skycatalog.MakePlan(c, series, refs, settings(day2), day2)
	if len(p2.New)+len(p2.Changed)+len(p2.Pending) != 0 || len(p2.Unchanged) != 20 {
		t.Fatalf("same file again: %d new, %d changed, %d pending, %d unchanged", len(p2.New), len(p2.Changed), len(p2.Pending), len(p2.Unchanged))
	}

	// Three prices changed; an editor had confirmed a line of one of them.
	for i := range series {
		if series[i].Base.Label == "1x_H100-SXM_SECURE" {
			series[i].Base.Lines[1] = quote.Line{Item: series[i].Base.Lines[1].Item, Status: "included", InWriting: true, Note: "by mail"}
			series[i].Base.Notes = "kept"
		}
	}
	changed := changePrice(t, changePrice(t, changePrice(t, file, "1x_H100-SXM_SECURE", "2.79"), "2x_L40S_SECURE", "0.99"),
		"8x_A100-80GB_SECURE", "11.52")
	p3 := skycatalog.MakePlan(read(t, changed), series, refs, settings(day2), day2)
	if got := labels(p3.Changed); !slices.Equal(got, []string{"1x_H100-SXM_SECURE", "2x_L40S_SECURE", "8x_A100-80GB_SECURE"}) {
		t.Fatalf("changed %v", got)
	}
	if len(p3.New) != 0 || len(p3.Unchanged) != 17 {
		t.Errorf("%d new, %d unchanged; want 0 and 17", len(p3.New), len(p3.Unchanged))
	}
	h := p3.Changed[0]
	if h.Base.Hourly.Decimal.String() != "2.99" || h.Next.Hourly.Decimal.String() != "2.79" || h.Next.PredecessorID != h.Base.ID ||
		h.Next.SeriesID != h.Base.SeriesID || h.Next.State != quote.Draft || !h.Next.AsOf.Equal(day2) || h.Next.Notes != "kept" {
		t.Errorf("next version %+v after %+v", h.Next, h.Base)
	}
	if l := h.Next.Lines[1]; l.Status != "included" || !l.InWriting || l.Note != "by mail" {
		t.Errorf("the editor's confirmed line was not carried: %+v", l)
	}
	if &h.Next.Lines[0] == &h.Base.Lines[0] {
		t.Error("the next version shares its lines with the base")
	}
}

func TestPlanLeavesSeriesWithADraft(t *testing.T) {
	refs := planRefs()
	c := read(t, fixture(t, "runpod"))
	p := skycatalog.MakePlan(c, nil, refs, settings(day1), day2)
	var id int64
	series := published(p.New, &id)
	series[0].Draft = quote.Quote{ID: 999, SeriesID: series[0].Base.SeriesID, Label: series[0].Base.Label}
	p2 := skycatalog.MakePlan(read(t, changePrice(t, fixture(t, "runpod"), series[0].Base.Label, "9.99")), series, refs, settings(day2), day2)
	if len(p2.Pending) != 1 || p2.Pending[0].DraftID != 999 || len(p2.Changed) != 0 || len(p2.Unchanged) != 19 {
		t.Errorf("pending %+v, %d changed, %d unchanged", p2.Pending, len(p2.Changed), len(p2.Unchanged))
	}
	// A series of another currency is another offer.
	series = published(p.New, &id)
	series[0].Base.Currency = "EUR"
	p3 := skycatalog.MakePlan(c, series, refs, settings(day2), day2)
	if len(p3.New) != 1 || p3.New[0].Offer.InstanceType != series[0].Base.Label || len(p3.Unchanged) != 19 {
		t.Errorf("%d new, %d unchanged", len(p3.New), len(p3.Unchanged))
	}
}

// TestPlanMatchesByRegionsWhenAKeyIsShared: an instance type priced
// differently by region is several offers; each finds its own series by
// its regions.
func TestPlanMatchesByRegionsWhenAKeyIsShared(t *testing.T) {
	refs := planRefs()
	file := func(eu string) []byte {
		return []byte("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n" +
			"h,H100-SXM,1,20,80,2.99,us-east\nh,H100-SXM,1,20,80,2.99,us-west\nh,H100-SXM,1,20,80," + eu + ",eu-north\n")
	}
	p := skycatalog.MakePlan(read(t, file("3.29")), nil, refs, settings(day1), day2)
	if len(p.New) != 2 {
		t.Fatalf("%d new, want 2", len(p.New))
	}
	var id int64
	series := published(p.New, &id)
	p2 := skycatalog.MakePlan(read(t, file("3.19")), series, refs, settings(day2), day2)
	if len(p2.Changed) != 1 || len(p2.Unchanged) != 1 || len(p2.New) != 0 {
		t.Fatalf("%d changed, %d unchanged, %d new", len(p2.Changed), len(p2.Unchanged), len(p2.New))
	}
	if c := p2.Changed[0]; c.Base.Region != "eu-north" || c.Base.Hourly.Decimal.String() != "3.29" || c.Next.Hourly.Decimal.String() != "3.19" {
		t.Errorf("changed %+v", c)
	}
	if u := p2.Unchanged[0]; u.Base.Region != "us-east, us-west" {
		t.Errorf("unchanged %+v", u.Base)
	}
}

func TestPlanRefusesWhatTheEntryRulesRefuse(t *testing.T) {
	s := settings(day1)
	s.BillingGranularity = "" // an hourly price says how the hour is billed
	p := skycatalog.MakePlan(read(t, fixture(t, "runpod")), nil, planRefs(), s, day2)
	if len(p.New) != 0 || len(p.Refused) != 20 || p.Refused[0].Field != "billing_granularity" {
		t.Errorf("%d new, refused %+v", len(p.New), p.Refused)
	}
	// A date after the latest day is refused too.
	p = skycatalog.MakePlan(read(t, fixture(t, "runpod")), nil, planRefs(), settings(day2.AddDate(0, 0, 1)), day2)
	if len(p.Refused) != 20 || p.Refused[0].Field != "as_of" {
		t.Errorf("refused %+v", p.Refused)
	}
}

func TestChangedComparesWhatTheCatalogStates(t *testing.T) {
	base := quote.Quote{Currency: "USD", Hourly: decimal.NewNullDecimal(decimal.RequireFromString("1.50")), Region: "a"}
	next := base
	next.Hourly = decimal.NewNullDecimal(decimal.RequireFromString("1.5"))
	next.AsOf, next.Source = day2, "elsewhere"
	if skycatalog.Changed(base, next) {
		t.Error("1.50 and 1.5 are one price; a date and a source are no change")
	}
	for name, f := range map[string]func(*quote.Quote){
		"spot":   func(q *quote.Quote) { q.SpotHourly = decimal.NewNullDecimal(decimal.New(1, 0)) },
		"cpu":    func(q *quote.Quote) { n := 4; q.CPUCores = &n },
		"ram":    func(q *quote.Quote) { q.RAMGB = decimal.NewNullDecimal(decimal.New(16, 0)) },
		"vram":   func(q *quote.Quote) { q.VRAMGB = decimal.NewNullDecimal(decimal.New(24, 0)) },
		"region": func(q *quote.Quote) { q.Region = "a, b" },
		"price":  func(q *quote.Quote) { q.Hourly = decimal.NewNullDecimal(decimal.RequireFromString("1.51")) },
	} {
		n := next
		f(&n)
		if !skycatalog.Changed(base, n) {
			t.Errorf("%s changed but Changed says no", name)
		}
	}
}

func TestRegionText(t *testing.T) {
	if got := skycatalog.RegionText(nil); got != "" {
		t.Errorf("no regions: %q", got)
	}
	var long []string
	for i := range 30 {
		long = append(long, fmt.Sprintf("region-%02d", i))
	}
	// 8 names of 9 characters and their commas (86), then ", … +22" (7).
	want := strings.Join(long[:8], ", ") + ", … +22"
	if got := skycatalog.RegionText(long); got != want {
		t.Errorf("%q, want %q", got, want)
	}
	// One region more changes the text.
	if more := skycatalog.RegionText(append(slices.Clone(long), "zz")); more == want {
		t.Errorf("a region more writes the same %q", want)
	}
	if short := []string{"a", "b"}; skycatalog.RegionText(short) != "a, b" {
		t.Errorf("%q", skycatalog.RegionText(short))
	}
}

// TestPlanIsDeterministic: whatever the order of the file, the plan is
// the same.
func TestPlanIsDeterministic(t *testing.T) {
	b := fixture(t, "runpod")
	a := skycatalog.MakePlan(read(t, b), nil, planRefs(), settings(day1), day2)
	z := skycatalog.MakePlan(read(t, reorder(t, b)), nil, planRefs(), settings(day1), day2)
	if !slices.Equal(labels(a.New), labels(z.New)) || len(a.Unknown) != len(z.Unknown) {
		t.Errorf("%v\n%v", labels(a.New), labels(z.New))
	}
}
