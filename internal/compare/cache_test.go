package compare

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/own"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
)

// cacheState is one comparison's inputs: what the reader holds, the page
// state and the day.
type cacheState struct {
	m      memory
	values url.Values
	day    time.Time
	viewer Viewer
}

// cacheBase is a comparison of a EUR and a USD quote with an own-hardware
// option priced with a regional electricity sample, an editors' and a
// market reference price, and a measured ratio for the USD quote's pair.
func cacheBase() cacheState {
	m := ownMarket()
	m.quotes = market3().quotes
	for id, q := range m.quotes {
		for i := range q.Lines {
			if q.Lines[i].Item == "egress" {
				q.Lines[i].Status, q.Lines[i].InWriting = "unconfirmed", false
			}
		}
		m.quotes[id] = q
	}
	m.rates = append(m.rates, market.FXRate{ID: 2, Base: "CNY", Quote: "EUR", Rate: decimal.RequireFromString("0.13"), AsOf: loadDay})
	m.refs = []market.ReferencePrice{{ID: 1, Item: "egress", Currency: "EUR", Unit: "per_gb",
		UnitPrice: decimal.RequireFromString("0.05"), AsOf: loadDay}}
	m.market = []market.MarketPrice{{Item: "egress", Unit: "per_gb", Currency: "USD",
		UnitPrice: decimal.RequireFromString("0.09"), QuoteID: 2, AsOf: loadDay}}
	m.perf = map[market.PlatformGPU]decimal.Decimal{{PlatformID: 12, GPUModelID: 1}: decimal.RequireFromString("0.9")}
	values := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"12"}, "profile.instances": {"1"},
		"profile.egress_gb_per_month": {"100"}, "profile.task": {"inference"}, "profile.params_billions": {"7"},
		"report_currency": {"EUR"}, "q": {"1", "2"}, OwnParam: {"13"}}
	return cacheState{m: m, values: values, day: loadDay}
}

// clone copies what a change below may modify, so states never share it.
func (s cacheState) clone() cacheState {
	m := s.m
	m.gpus = append([]market.GPUModel(nil), m.gpus...)
	m.quotes = map[int64]quote.Quote{}
	for id, q := range s.m.quotes {
		m.quotes[id] = q
	}
	m.rates = append([]market.FXRate(nil), m.rates...)
	m.refs = append([]market.ReferencePrice(nil), m.refs...)
	m.market = append([]market.MarketPrice(nil), m.market...)
	m.perf = map[market.PlatformGPU]decimal.Decimal{}
	for k, v := range s.m.perf {
		m.perf[k] = v
	}
	m.ownVersions = map[int64]own.Version{}
	for id, v := range s.m.ownVersions {
		m.ownVersions[id] = v
	}
	m.power = map[string]own.ElectricityPrice{}
	for k, v := range s.m.power {
		m.power[k] = v
	}
	s.m = m
	values := url.Values{}
	for k, v := range s.values {
		values[k] = append([]string(nil), v...)
	}
	s.values = values
	return s
}

func (s cacheState) load(t *testing.T, c *Cache) *Comparison {
	t.Helper()
	cmp, err := c.LoadFor(context.Background(), s.m, s.values, s.day, s.viewer, "")
	if err != nil {
		t.Fatal(err)
	}
	return cmp
}

// priced is what pricing yields of a comparison, for comparing two.
func priced(cmp *Comparison) string {
	return fmt.Sprintf("%+v\n%+v\n%+v", cmp.Rows, cmp.B, cmp.Own)
}

// TestCacheKeepsTheSameFigures: the same state twice is priced once; the
// kept figures are exactly those priced without the cache, with this
// request's candidates.
func TestCacheKeepsTheSameFigures(t *testing.T) {
	t.Parallel()
	s := cacheBase()
	s.values.Set("b.profile.hours_per_month", "400")
	want := s.load(t, nil)
	if len(want.Rows) != 2 || !want.Rows[0].Priced || len(want.Own) != 1 || !want.Own[0].Priced || want.B == nil || len(want.B.Rows) != 2 {
		t.Fatalf("the base comparison prices two rows, B and one option: %s", priced(want))
	}
	c := NewCache(8)
	first := s.load(t, c)
	if st := c.Stats(); st.Misses != 1 || st.Hits != 0 || st.Entries != 1 {
		t.Fatalf("first: %+v", st)
	}
	second := s.load(t, c)
	if st := c.Stats(); st.Misses != 1 || st.Hits != 1 || st.Entries != 1 {
		t.Fatalf("second: %+v", st)
	}
	for _, got := range []*Comparison{first, second} {
		if !reflect.DeepEqual(got.Rows, want.Rows) || !reflect.DeepEqual(got.B, want.B) || !reflect.DeepEqual(got.Own, want.Own) {
			t.Fatalf("kept figures differ:\n%s\nwant\n%s", priced(got), priced(want))
		}
	}
	// The candidates are this request's: a platform renamed or a GPU
	// model's note edited shows at once, the figures being the same.
	s2 := s.clone()
	g := s2.m.gpus[0]
	g.Notes = "renamed"
	s2.m.gpus[0] = g
	third := s2.load(t, c)
	if st := c.Stats(); st.Hits != 2 {
		t.Fatalf("a GPU model's note is not priced, yet missed: %+v", st)
	}
	if third.Rows[0].GPU.Notes != "renamed" || third.B.Rows[third.Rows[0].Quote.ID].GPU.Notes != "renamed" {
		t.Error("a kept row carries an old candidate")
	}
}

// TestCacheMissesOnEveryInput: changing any input pricing reads gives a
// new entry and the figures pricing without the cache gives
// (docs/RULES.md §20.1).
func TestCacheMissesOnEveryInput(t *testing.T) {
	t.Parallel()
	changes := []struct {
		name   string
		change func(*cacheState, *Cache)
	}{
		{"a quote replaced by its new published version", func(s *cacheState, _ *Cache) {
			q := s.m.quotes[1]
			q.ID, q.Version, q.Hourly = 4, 2, nd("0.4")
			s.m.quotes[4] = q
			s.values["q"] = []string{"4", "2"}
		}},
		{"a GPU model edited", func(s *cacheState, _ *Cache) {
			s.m.gpus[0].VRAMGB, s.m.gpus[0].LockVersion = decimal.RequireFromString("8"), 2
		}},
		{"an own option's new version", func(s *cacheState, _ *Cache) {
			v := s.m.ownVersions[13]
			v.ID, v.Version, v.PurchasePrice = 14, 2, decimal.RequireFromString("2800")
			s.m.ownVersions[14] = v
			s.values[OwnParam] = []string{"14"}
		}},
		{"a new electricity sample", func(s *cacheState, _ *Cache) {
			p := s.m.power["NL"]
			p.ID, p.KWhPrice = 6, decimal.RequireFromString("0.31")
			s.m.power["NL"] = p
		}},
		{"a new exchange rate sample", func(s *cacheState, _ *Cache) {
			s.m.rates[0] = market.FXRate{ID: 3, Base: "USD", Quote: "EUR", Rate: decimal.RequireFromString("0.92"), AsOf: loadDay}
		}},
		{"a new editors' reference price", func(s *cacheState, _ *Cache) {
			s.m.refs[0] = market.ReferencePrice{ID: 2, Item: "egress", Currency: "EUR", Unit: "per_gb",
				UnitPrice: decimal.RequireFromString("0.06"), AsOf: loadDay}
		}},
		{"a new market reference", func(s *cacheState, _ *Cache) {
			s.m.market[0].UnitPrice, s.m.market[0].QuoteID = decimal.RequireFromString("0.12"), 5
		}},
		{"a measured performance ratio", func(s *cacheState, _ *Cache) {
			s.m.perf[market.PlatformGPU{PlatformID: 12, GPUModelID: 1}] = decimal.RequireFromString("0.7")
		}},
		{"a profile field", func(s *cacheState, _ *Cache) { s.values.Set("profile.hours_per_month", "300") }},
		{"a profile field written otherwise", func(s *cacheState, _ *Cache) { s.values.Set("profile.hours_per_month", "200.0") }},
		{"scenario B", func(s *cacheState, _ *Cache) { s.values.Set("b.profile.months", "24") }},
		{"the report currency", func(s *cacheState, _ *Cache) { s.values.Set("report_currency", "CNY") }},
		{"the sort order", func(s *cacheState, _ *Cache) { s.values.Set("dir", "desc") }},
		{"the rules version", func(_ *cacheState, c *Cache) { c.rules = "2099.1" }},
		{"the day", func(s *cacheState, _ *Cache) { s.day = s.day.AddDate(0, 3, 0) }},
	}
	for _, tc := range changes {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := NewCache(8)
			base := cacheBase()
			before := base.load(t, c)
			base.load(t, c)
			if st := c.Stats(); st.Misses != 1 || st.Hits != 1 {
				t.Fatalf("the same state twice: %+v", st)
			}
			next := base.clone()
			tc.change(&next, c)
			got := next.load(t, c)
			if st := c.Stats(); st.Misses != 2 || st.Hits != 1 || st.Entries != 2 {
				t.Fatalf("after the change: %+v", st)
			}
			want := next.load(t, nil)
			if priced(got) != priced(want) {
				t.Fatalf("figures after the change:\n%s\nwant\n%s", priced(got), priced(want))
			}
			// Neither a profile written otherwise nor a new rules edition
			// (in this test) changes a figure; both still miss.
			if tc.name != "a profile field written otherwise" && tc.name != "the rules version" && priced(got) == priced(before) {
				t.Errorf("the change changes no figure: the test does not test it")
			}
			next.load(t, c)
			if st := c.Stats(); st.Hits != 2 {
				t.Errorf("the changed state again: %+v", st)
			}
		})
	}
}

// TestCacheEvictsTheLeastRecentlyUsed: the bound holds; the entry used
// longest ago goes first.
func TestCacheEvictsTheLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := NewCache(2)
	state := func(hours string) cacheState {
		s := cacheBase().clone()
		s.values.Set("profile.hours_per_month", hours)
		return s
	}
	a, b, d := state("100"), state("200"), state("300")
	a.load(t, c)
	b.load(t, c)
	a.load(t, c) // a is now the most recently used
	d.load(t, c) // b goes
	if st := c.Stats(); st.Entries != 2 || st.Misses != 3 || st.Hits != 1 {
		t.Fatalf("after three states: %+v", st)
	}
	a.load(t, c)
	if st := c.Stats(); st.Hits != 2 {
		t.Fatalf("a was evicted: %+v", st)
	}
	b.load(t, c)
	if st := c.Stats(); st.Misses != 4 || st.Entries != 2 {
		t.Fatalf("b was kept: %+v", st)
	}
}

// TestCacheKeepsNoProposal: a comparison holding a proposal (which its
// author may edit in place once returned) is priced on every request.
func TestCacheKeepsNoProposal(t *testing.T) {
	t.Parallel()
	s := cacheBase()
	q := s.m.quotes[2]
	q.State, q.CreatedBy = quote.Proposed, 7
	s.m.quotes[2] = q
	s.viewer = Viewer{UserID: 7, Role: "analyst"}
	c := NewCache(8)
	for range 2 {
		if cmp := s.load(t, c); len(cmp.Rows) != 2 {
			t.Fatalf("the author compares their proposal: %d rows", len(cmp.Rows))
		}
	}
	if st := c.Stats(); st != (CacheStats{}) {
		t.Errorf("a proposal's comparison was kept: %+v", st)
	}
}

// TestCacheOff: no bound, no cache; it still prices.
func TestCacheOff(t *testing.T) {
	t.Parallel()
	c := NewCache(0)
	if c != nil {
		t.Fatal("NewCache(0) keeps")
	}
	if cmp := cacheBase().load(t, c); len(cmp.Rows) != 2 || c.Stats() != (CacheStats{}) {
		t.Fatalf("rows %d, stats %+v", len(cmp.Rows), c.Stats())
	}
}

// TestCacheConcurrentUse: many requests at once over a small bound give the
// figures pricing gives (run with -race).
func TestCacheConcurrentUse(t *testing.T) {
	t.Parallel()
	c := NewCache(3)
	hours := []string{"100", "200", "300", "400", "500"}
	want := map[string]string{}
	states := map[string]cacheState{}
	for _, h := range hours {
		s := cacheBase().clone()
		s.values.Set("profile.hours_per_month", h)
		states[h], want[h] = s, priced(s.load(t, nil))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*50)
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				h := hours[(g+i)%len(hours)]
				s := states[h]
				cmp, err := c.LoadFor(context.Background(), s.m, s.values, s.day, s.viewer, "")
				if err != nil {
					errs <- err.Error()
					continue
				}
				if got := priced(cmp); got != want[h] {
					errs <- "figures of " + h + " differ"
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if st := c.Stats(); st.Entries > 3 || st.Hits+st.Misses != 400 {
		t.Errorf("stats %+v", st)
	}
}

// TestCacheKeyCoversTheInput: the key is written from the fields of the
// engine's input listed here; a new field fails this test until keyOf
// writes it (or says why it need not).
func TestCacheKeyCoversTheInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ  reflect.Type
		want []string
	}{
		{reflect.TypeFor[Input](), []string{"Profile", "ReportCurrency", "Rates", "AllRates", "ReferencePrices", "Today", "Performance"}},
		{reflect.TypeFor[tco.ReferencePrice](), []string{"Item", "Unit", "UnitPrice", "Currency", "Source", "QuoteID"}},
		{reflect.TypeFor[tco.FX](), []string{"Rate", "Date"}},
		{reflect.TypeFor[OwnCandidate](), []string{"Version", "Electricity"}},
		{reflect.TypeFor[Candidate](), []string{"Quote", "GPU"}},
	} {
		var got []string
		for f := range tc.typ.Fields() {
			got = append(got, f.Name)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s has fields %v; keyOf knows %v", tc.typ, got, tc.want)
		}
	}
}

// BenchmarkLoad20 loads a comparison of 20 quotes and one own-hardware
// option from memory: Off prices every time, Warm finds it kept, Miss
// prices, keys and keeps a new one each time (docs/RULES.md §20.1).
func BenchmarkLoad20(b *testing.B) {
	s := cacheBase()
	s.values["q"] = nil
	for id := int64(1); id <= MaxSelected; id++ {
		q := s.m.quotes[1+id%2]
		q.ID, q.SeriesID = 100+id, 100+id
		s.m.quotes[q.ID] = q
		s.values.Add("q", strconv.FormatInt(q.ID, 10))
	}
	load := func(b *testing.B, c *Cache, values func(i int) url.Values) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			cmp, err := c.LoadFor(context.Background(), s.m, values(i), s.day, s.viewer, "")
			if err != nil || len(cmp.Rows) != MaxSelected {
				b.Fatalf("%v, %d rows", err, len(cmp.Rows))
			}
		}
	}
	same := func(int) url.Values { return s.values }
	b.Run("Off", func(b *testing.B) { load(b, nil, same) })
	b.Run("Warm", func(b *testing.B) { load(b, NewCache(256), same) })
	b.Run("Miss", func(b *testing.B) {
		states := make([]url.Values, 730)
		for i := range states {
			states[i] = s.clone().values
			states[i].Set("profile.hours_per_month", strconv.Itoa(i+1))
		}
		load(b, NewCache(256), func(i int) url.Values { return states[i%len(states)] })
	})
}
