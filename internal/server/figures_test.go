package server_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// resultRow is one quote's results (its table body, data-testid
// "row-<id>") on a compare or report page; empty when the page has none.
func resultRow(t testing.TB, body string, id int64) *goquery.Selection {
	t.Helper()
	return document(t, body).Find(`[data-testid="row-` + itoa(id) + `"]`)
}

// figure is the text of one figure (data-testid name: tco,
// tco-pessimistic, hidden-share, chosen, break-even, …) of a quote's
// results; "" when there is none.
func figure(t testing.TB, body string, id int64, name string) string {
	t.Helper()
	return strings.TrimSpace(resultRow(t, body, id).Find(`[data-testid="` + name + `"]`).First().Text())
}

// rowText is all the text of a quote's results.
func rowText(t testing.TB, body string, id int64) string {
	t.Helper()
	return resultRow(t, body, id).Text()
}

// document parses a page.
func document(t testing.TB, body string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
