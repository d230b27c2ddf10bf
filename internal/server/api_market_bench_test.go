package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/api"
	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// BenchmarkAPIQuotes measures GET /api/v1/quotes over 100,000 published
// quotes (seedVolume, as BenchmarkQuoteList) through the real handler and
// database: the first page, and a page whose cursor sits near the
// 100,000th quote. Keyset paging makes the deep page cost what the first
// does (docs/RULES.md §19.3).
func BenchmarkAPIQuotes(b *testing.B) {
	app := testutil.NewApp(b)
	seedVolume(b, app, 100_000)
	token, _ := apiToken(b, app, auth.RoleAnalyst, user.ScopeRead)
	// The cursor of the deep page: the position of the 99,950th quote in
	// the list's order, written as the API writes it (the fingerprint is
	// taken from a real cursor of the unfiltered list) and signed with the
	// server's key, as only the server can.
	first := apiCall(b, app, http.MethodGet, "/api/v1/quotes?limit=1", token, "")
	var page struct {
		NextCursor string `json:"next_cursor"`
	}
	if err := json.Unmarshal([]byte(first.Body), &page); err != nil || page.NextCursor == "" {
		b.Fatalf("first page: %v %.200s", err, first.Body)
	}
	payload, _, _ := strings.Cut(page.NextCursor, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		b.Fatal(err)
	}
	var pos map[string]any
	if err := json.Unmarshal(raw, &pos); err != nil {
		b.Fatal(err)
	}
	var asOf string
	var id int64
	if err := app.Store.Pool().QueryRow(context.Background(), `
		SELECT as_of::text, id FROM quotes WHERE state = 'published'
		ORDER BY as_of DESC, id DESC OFFSET 99949 LIMIT 1`).Scan(&asOf, &id); err != nil {
		b.Fatal(err)
	}
	pos["a"], pos["i"] = asOf, id
	deep, err := json.Marshal(pos)
	if err != nil {
		b.Fatal(err)
	}
	key, err := app.Store.ServerKey(context.Background(), "signing")
	if err != nil {
		b.Fatal(err)
	}
	deepPayload := base64.RawURLEncoding.EncodeToString(deep)
	deepCursor := deepPayload + "." + auth.NewSigner(key).Sign(api.CursorPurpose, deepPayload)
	if r := apiCall(b, app, http.MethodGet, "/api/v1/quotes?cursor="+url.QueryEscape(deepCursor), token, ""); r.StatusCode != http.StatusOK ||
		len(r.Body) < 100 {
		b.Fatalf("deep page: %d %.200s", r.StatusCode, r.Body)
	}
	for _, bc := range []struct{ name, path string }{
		{"first", "/api/v1/quotes?limit=50"},
		{"deep", "/api/v1/quotes?limit=50&cursor=" + url.QueryEscape(deepCursor)},
	} {
		// The loop's requests skip the client's validation against the
		// description (apiCall validated both pages above), so the
		// figures are the server's and HTTP's alone.
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req, err := http.NewRequest(http.MethodGet, app.URL+bc.path, nil)
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("status %d: %v", resp.StatusCode, err)
				}
			}
		})
	}
}
