package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestUnreadableQuoteLooksUnknown: a quote version the caller may not read
// — someone else's proposal, a draft (editors' only) — is answered exactly
// as an id that names no quote, wherever a quote is named by id: the trial
// form and its list, the availability form and the availability API. Only
// whoever may read it learns that it is not published (docs/RULES.md §9.1,
// §18.1, §18.2).
func TestUnreadableQuoteLooksUnknown(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	pid, gid := marketRefs(app)
	_, _, author := app.CreateUser(auth.RoleAnalyst)
	proposal := testfactory.Proposal(t, app.Store, author, quote.Quote{PlatformID: pid, GPUModelID: gid,
		Hourly: testfactory.ND("1.88"), Label: "Someone's secret offer"}, "from the vendor", nil)
	draft := draftQuote(app)
	const unknown = "987654321"
	c, _ := app.AsUser(auth.RoleAnalyst)
	c.Header.Set("Accept-Language", "en")
	today := time.Now().UTC().Format(time.DateOnly)
	quoteError := func(r *testutil.Response) string { return between(r.Body, `data-testid="error-quote"`, "</p>") }

	// The trial form, as opened from a link and as posted.
	wantForm := quoteError(c.Get("/trials/new?quote=" + unknown))
	wantPost := c.PostForm("/trials", url.Values{"quote": {unknown}, "started_on": {today}})
	if wantForm == "" || wantPost.StatusCode != http.StatusUnprocessableEntity || quoteError(wantPost) != wantForm {
		t.Fatalf("unknown quote: form %q, post %d %q", wantForm, wantPost.StatusCode, quoteError(wantPost))
	}
	for name, id := range map[string]string{"proposal": itoa(proposal.ID), "draft": itoa(draft.ID)} {
		if got := quoteError(c.Get("/trials/new?quote=" + id)); got != wantForm {
			t.Errorf("trial form of someone's %s: %q, want %q", name, got, wantForm)
		}
		r := c.PostForm("/trials", url.Values{"quote": {id}, "started_on": {today}})
		if r.StatusCode != wantPost.StatusCode || quoteError(r) != wantForm {
			t.Errorf("trial of someone's %s: %d %q, want %d %q", name, r.StatusCode, quoteError(r), wantPost.StatusCode, wantForm)
		}
		if r := c.Get("/trials?quote=" + id); r.StatusCode != http.StatusOK || strings.Contains(r.Body, `data-testid="trials-for-quote"`) ||
			strings.Contains(r.Body, "secret offer") {
			t.Errorf("the trial list filtered by someone's %s names it: %d", name, r.StatusCode)
		}
	}
	// Whoever may read the proposal learns why it cannot be trialled.
	owner := app.Client()
	owner.Header.Set("Accept-Language", "en")
	var email string
	if err := app.Store.Pool().QueryRow(t.Context(), `SELECT email FROM users WHERE id = $1`, author).Scan(&email); err != nil {
		t.Fatal(err)
	}
	owner.Login(email, testutil.Password(auth.RoleAnalyst))
	if got := quoteError(owner.Get("/trials/new?quote=" + itoa(proposal.ID))); got == "" || got == wantForm {
		t.Errorf("the proposal's author is told %q", got)
	}

	// The availability API.
	token, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeTrialsWrite)
	record := func(id string) (int, string) {
		r := apiCall(t, app, http.MethodPost, "/api/v1/availability", token, `{"quote_id": `+id+`, "attempted_at": "2026-03-01T10:00:00Z",
			"gpu_count": 1, "obtained": true, "wait_minutes": 5}`, "Accept-Language", "en")
		var body struct {
			Errors []struct{ Field, Code, Message string } `json:"errors"`
		}
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
			t.Fatalf("%s: %v", r.Body, err)
		}
		out, _ := json.Marshal(body.Errors)
		return r.StatusCode, string(out)
	}
	wantStatus, wantErrs := record(unknown)
	if wantStatus != http.StatusUnprocessableEntity || !strings.Contains(wantErrs, `"quote_id"`) {
		t.Fatalf("unknown quote: %d %s", wantStatus, wantErrs)
	}
	for name, id := range map[string]string{"proposal": itoa(proposal.ID), "draft": itoa(draft.ID)} {
		if st, errs := record(id); st != wantStatus || errs != wantErrs {
			t.Errorf("availability API naming someone's %s: %d %s, want %d %s", name, st, errs, wantStatus, wantErrs)
		}
	}
	// An editor, who reads drafts, is told it is a draft.
	editorToken, _ := apiToken(t, app, auth.RoleEditor, user.ScopeTrialsWrite)
	r := apiCall(t, app, http.MethodPost, "/api/v1/availability", editorToken, `{"quote_id": `+itoa(draft.ID)+`, "attempted_at": "2026-03-01T10:00:00Z",
		"gpu_count": 1, "obtained": true, "wait_minutes": 5}`)
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "availability.error.draft_quote") {
		t.Errorf("an editor naming a draft: %d %s", r.StatusCode, r.Body)
	}

	// The availability form.
	post := func(id string) *testutil.Response {
		return c.PostForm("/availability", url.Values{"quote_id": {id}, "attempted_at": {"2026-03-01T10:00"}, "gpu_count": {"1"},
			"obtained": {"true"}, "wait_minutes": {"5"}})
	}
	// main is the page's content, its request id left out.
	main := func(r *testutil.Response) string {
		return strings.ReplaceAll(between(r.Body, "<main", "</main>"), r.Header.Get("X-Request-Id"), "")
	}
	want := post(unknown)
	for name, id := range map[string]string{"proposal": itoa(proposal.ID), "draft": itoa(draft.ID)} {
		r := post(id)
		if r.StatusCode != want.StatusCode || main(r) != main(want) {
			t.Errorf("availability form naming someone's %s: %d, want %d as for an unknown quote", name, r.StatusCode, want.StatusCode)
		}
	}
	if n := countRows(t, app, "availability_records"); n != 0 {
		t.Errorf("%d records stored", n)
	}
}
