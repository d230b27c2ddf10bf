package web

// FortuneRow is one row of the load test's Fortunes-style ceiling page.
type FortuneRow struct {
	ID   int64
	Text string
}
