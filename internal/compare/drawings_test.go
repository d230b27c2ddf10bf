package compare

import (
	"sync"
	"sync/atomic"
	"testing"

	"gpuquote/internal/quote"
)

// TestDrawingsGoWithTheKeptEntry: a comparison found kept carries the
// drawings of its entry, the same for every request of the same inputs and
// other for other inputs; a comparison not kept (no cache, a proposal)
// carries none, so it draws its own (docs/RULES.md §20.4).
func TestDrawingsGoWithTheKeptEntry(t *testing.T) {
	t.Parallel()
	c := NewCache(8)
	s := cacheBase()
	first, second := s.load(t, c), s.load(t, c)
	if first.Drawings == nil || first.Drawings != second.Drawings {
		t.Fatalf("the same inputs twice: drawings %p and %p", first.Drawings, second.Drawings)
	}
	other := s.clone()
	other.values.Set("profile.hours_per_month", "300")
	if d := other.load(t, c).Drawings; d == nil || d == first.Drawings {
		t.Fatal("other inputs share the drawings")
	}
	if d := s.load(t, nil).Drawings; d != nil {
		t.Fatal("a comparison priced without a cache keeps drawings")
	}
	p := s.clone()
	q := p.m.quotes[2]
	q.State, q.CreatedBy = quote.Proposed, 7
	p.m.quotes[2] = q
	p.viewer = Viewer{UserID: 7, Role: "analyst"}
	if d := p.load(t, c).Drawings; d != nil {
		t.Fatal("a comparison holding a proposal keeps drawings")
	}
}

// TestDrawingsOncePerLanguage: the charts of a language are drawn once;
// another language draws its own; other names draw anew and take the
// language's place, so an entry never holds more drawings than languages.
// Without drawings every call draws.
func TestDrawingsOncePerLanguage(t *testing.T) {
	t.Parallel()
	draws := 0
	drawer := func(lang, names string) func() (string, string) {
		return func() (string, string) {
			draws++
			return "curves " + lang + " " + names, "bars " + lang + " " + names
		}
	}
	d := &Drawings{}
	for _, step := range []struct {
		lang, names string
		drawn       int
	}{
		{"zh-CN", "a", 1}, {"zh-CN", "a", 1}, {"en", "a", 2}, {"en", "a", 2}, {"zh-CN", "a", 2},
		{"zh-CN", "renamed", 3}, {"zh-CN", "renamed", 3}, {"en", "a", 3}, {"zh-CN", "a", 4},
	} {
		before := draws
		curves, bars, drew := d.Charts(step.lang, step.names, drawer(step.lang, step.names))
		if curves != "curves "+step.lang+" "+step.names || bars != "bars "+step.lang+" "+step.names {
			t.Fatalf("%s %s: %q %q", step.lang, step.names, curves, bars)
		}
		if draws != step.drawn || drew != (draws > before) {
			t.Fatalf("%s %s: drawn %d times (drew %v), want %d", step.lang, step.names, draws, drew, step.drawn)
		}
	}
	if n := len(d.byLang); n != 2 {
		t.Errorf("%d drawings kept for two languages", n)
	}
	var none *Drawings
	for i := range 3 {
		if _, _, drew := none.Charts("en", "a", drawer("en", "a")); !drew || draws != 5+i {
			t.Fatalf("without drawings: call %d drew %v (%d draws)", i, drew, draws)
		}
	}
}

// TestDrawingsConcurrentUse: many requests at once for two languages draw
// each language once and all get its charts (run with -race).
func TestDrawingsConcurrentUse(t *testing.T) {
	t.Parallel()
	d := &Drawings{}
	var draws atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan string, 16*50)
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				lang := []string{"zh-CN", "en"}[(g+i)%2]
				curves, _, _ := d.Charts(lang, "names", func() (string, string) {
					draws.Add(1)
					return "curves " + lang, "bars " + lang
				})
				if curves != "curves "+lang {
					errs <- lang + " got " + curves
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if n := draws.Load(); n != 2 {
		t.Errorf("two languages drawn %d times", n)
	}
}
