package watch

import "testing"

// BenchmarkWatchEvaluate evaluates one published quote against 10,000
// watches spread over 100 platforms × 50 GPU models: the index finds the
// candidates, each reads the price and decides (docs/RULES.md §24.2).
func BenchmarkWatchEvaluate(b *testing.B) {
	ws := make([]Watch, 10000)
	for i := range ws {
		ws[i] = Watch{ID: int64(i + 1), PlatformID: int64(i%100 + 1), GPUModelID: int64(i%50 + 1), Kind: PriceBelow,
			Basis: Hourly, Currency: "CNY", Target: d("10"), CooldownHours: 24, State: State{Armed: true}}
		if i%10 == 0 {
			ws[i].PlatformID = 0
		}
	}
	ix := NewIndex(ws)
	o := Offer{PlatformID: 7, GPUModelID: 7, GPUCount: 8, Currency: "CNY"}
	price := PerGPU(d("72"), 8, false, d("0.06"), d("1"))
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for _, w := range ix.Candidates(o) {
			if m, _ := Decide(w, PriceReading(w, price), t0); m {
				n++
			}
		}
		if n == 0 {
			b.Fatal("no match")
		}
	}
}
