package server_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

var proposalPDF = []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")

// proposalForm is a valid proposal: the quote form and the vendor's message.
func proposalForm(a *testutil.App) url.Values {
	v := quoteForm(a)
	v.Set("vendor_message", "Hi, R9700 at 0.471 EUR/h, 284 EUR/month. Regards, HOSTKEY sales")
	return v
}

// proposalUpload posts values and, when file is not nil, file as
// vendor_file (named name) as the multipart proposal form to path.
func proposalUpload(t testing.TB, a *testutil.App, c *testutil.Client, path string, values url.Values, name string, file []byte) *testutil.Response {
	t.Helper()
	if c.CSRF == "" {
		c.Get("/quotes/new")
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(mw.WriteField("_csrf", c.CSRF))
	for k, vs := range values {
		for _, v := range vs {
			must(mw.WriteField(k, v))
		}
	}
	if file != nil {
		fw, err := mw.CreateFormFile("vendor_file", name)
		must(err)
		_, err = fw.Write(file)
		must(err)
	}
	must(mw.Close())
	req, err := http.NewRequest(http.MethodPost, a.URL+path, &body)
	must(err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.Do(req)
}

// proposedQuote is a proposal of a new analyst, with a PDF attached; its
// author's id is returned too.
func proposedQuote(a *testutil.App) (quote.Quote, int64) {
	a.T.Helper()
	_, _, uid := a.CreateUser(auth.RoleAnalyst)
	pid, gid := marketRefs(a)
	p := testfactory.Proposal(a.T, a.Store, uid, quote.Quote{PlatformID: pid, GPUModelID: gid,
		Hourly: testfactory.ND("0.471"), Monthly: testfactory.ND("284")}, "vendor says 0.471",
		&store.NewAttachment{Filename: "offer.pdf", ContentType: "application/pdf", Data: proposalPDF})
	return p, uid
}

// quoteIDFrom is the id at the end of a /quotes/<id> redirect.
func quoteIDFrom(t *testing.T, r *testutil.Response) int64 {
	t.Helper()
	loc := r.Header.Get("Location")
	id, err := strconv.ParseInt(strings.TrimPrefix(loc, "/quotes/"), 10, 64)
	if r.StatusCode != http.StatusSeeOther || err != nil {
		t.Fatalf("want a redirect to a quote, got %d %q: %.400s", r.StatusCode, loc, r.Body)
	}
	return id
}

// TestAnalystProposesAndEditorPublishes walks the whole proposal through
// the pages (docs/RULES.md §18.1): an analyst gets the proposal form at
// /quotes/new, proposes with a PDF; the quote page says "not yet
// reviewed" to its author and is a 404 for another analyst, as is its
// file; the editor sends it back with a comment (required), the author
// edits it, the editor publishes it with a change: v2 published, v1
// reviewed, and the file is served to everyone signed in with the safe
// headers.
func TestAnalystProposesAndEditorPublishes(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	other, _ := app.AsUser(auth.RoleAnalyst)
	finance, _ := app.AsUser(auth.RoleFinance)
	editor, _ := app.AsUser(auth.RoleEditor)

	if r := analyst.Get("/quotes/new"); r.StatusCode != 200 || !strings.Contains(r.Body, `data-testid="proposal-form"`) ||
		!strings.Contains(r.Body, `enctype="multipart/form-data"`) {
		t.Fatalf("analyst's /quotes/new: %d", r.StatusCode)
	}
	if r := editor.Get("/quotes/new"); r.StatusCode != 200 || !strings.Contains(r.Body, `data-testid="quote-form"`) {
		t.Fatalf("editor's /quotes/new: %d", r.StatusCode)
	}
	id := quoteIDFrom(t, proposalUpload(t, app, analyst, "/quotes/proposals", proposalForm(app), "HOSTKEY offer.pdf", proposalPDF))
	page := analyst.Get("/quotes/" + itoa(id))
	d := doc(t, page.Body)
	if page.StatusCode != 200 || d.Find(`[data-testid="not-reviewed"]`).Length() != 1 || d.Find(`[data-testid="attachment-link"]`).Length() != 1 {
		t.Fatalf("author's quote page: %d", page.StatusCode)
	}
	attURL, _ := d.Find(`[data-testid="attachment-link"]`).Attr("href")
	for name, c := range map[string]*testutil.Client{"another analyst": other, "finance": finance} {
		if r := c.Get("/quotes/" + itoa(id)); r.StatusCode != 404 {
			t.Errorf("%s reads the proposal: %d", name, r.StatusCode)
		}
		if r := c.Get(attURL); r.StatusCode != 404 {
			t.Errorf("%s reads the proposal's file: %d", name, r.StatusCode)
		}
	}
	if r := app.Client().Get(attURL); r.StatusCode != http.StatusSeeOther {
		t.Errorf("anonymous reads the file: %d", r.StatusCode)
	}
	if r := analyst.Get(attURL); r.StatusCode != 200 || r.Body != string(proposalPDF) {
		t.Errorf("author reads the file: %d", r.StatusCode)
	}

	queue := editor.Get("/quotes/review")
	if queue.StatusCode != 200 || doc(t, queue.Body).Find(`[data-testid="proposal-`+itoa(id)+`"]`).Length() != 1 {
		t.Fatalf("queue: %d", queue.StatusCode)
	}
	if r := editor.Get("/quotes/" + itoa(id) + "/review"); r.StatusCode != 200 || !strings.Contains(r.Body, "HOSTKEY sales") {
		t.Fatalf("review page: %d", r.StatusCode)
	}
	lock := func() string {
		q, err := app.Store.QuoteByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return strconv.Itoa(q.LockVersion)
	}
	// Sending back needs a comment.
	r := editor.PostForm("/quotes/"+itoa(id)+"/review/return", url.Values{"lock_version": {lock()}, "comment": {"  "}})
	if r.StatusCode != http.StatusUnprocessableEntity || doc(t, r.Body).Find(`[data-testid="error-comment"]`).Length() != 1 {
		t.Fatalf("return without comment: %d", r.StatusCode)
	}
	r = editor.PostForm("/quotes/"+itoa(id)+"/review/return", url.Values{"lock_version": {lock()}, "comment": {"Attach the written SLA"}})
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("return: %d %.300s", r.StatusCode, r.Body)
	}
	mine := analyst.Get("/quotes/proposals")
	if !strings.Contains(mine.Body, "Attach the written SLA") || doc(t, mine.Body).Find(`[data-testid="proposal-edit-link"]`).Length() != 1 {
		t.Fatalf("my proposals does not show the comment and the edit link")
	}
	if r := other.Get("/quotes/" + itoa(id) + "/proposal/edit"); r.StatusCode != 404 {
		t.Errorf("another analyst's edit form: %d", r.StatusCode)
	}
	form := proposalForm(app)
	form.Set("lock_version", lock())
	form.Set("vendor_message", "SLA attached")
	if r := proposalUpload(t, app, analyst, "/quotes/"+itoa(id)+"/proposal", form, "", nil); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("repropose: %d %.300s", r.StatusCode, r.Body)
	}

	pub := quoteForm(app)
	pub.Set("lock_version", lock())
	pub.Set("hourly", "0.45")
	v2 := quoteIDFrom(t, editor.PostForm("/quotes/"+itoa(id)+"/review/publish", pub))
	q2, _ := app.Store.QuoteByID(context.Background(), v2)
	q1, _ := app.Store.QuoteByID(context.Background(), id)
	if q2.State != quote.Published || q2.Version != 2 || q2.PredecessorID != id || q2.Hourly.Decimal.String() != "0.45" ||
		q1.State != quote.Reviewed || q1.Hourly.Decimal.String() != "0.471" {
		t.Fatalf("after publishing: v2 %s v%d pred %d hourly %s; v1 %s %s", q2.State, q2.Version, q2.PredecessorID, q2.Hourly.Decimal, q1.State, q1.Hourly.Decimal)
	}
	// Everyone signed in now reads the vendor's file through the published version.
	pubAtt := strings.Replace(attURL, "/quotes/"+itoa(id)+"/", "/quotes/"+itoa(v2)+"/", 1)
	resp := finance.Get(pubAtt)
	if resp.StatusCode != 200 || resp.Body != string(proposalPDF) {
		t.Fatalf("finance reads the published file: %d", resp.StatusCode)
	}
	for k, want := range map[string]string{"Content-Type": "application/pdf", "X-Content-Type-Options": "nosniff",
		"Content-Disposition":     "attachment; filename*=UTF-8''HOSTKEY%20offer.pdf",
		"Content-Security-Policy": "sandbox; default-src 'none'", "Cache-Control": "private, no-store"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	if r := other.Get("/quotes/" + itoa(id)); r.StatusCode != 404 {
		t.Errorf("another analyst reads the reviewed proposal: %d", r.StatusCode)
	}
}

// TestProposalBadFileKeepsValues: a file that is not a PDF, PNG, JPEG or
// WebP by its bytes (an executable named .pdf), one over 5 MiB, or a
// missing message re-show the form with every value and a field error;
// nothing is stored (docs/RULES.md §18.1).
func TestProposalBadFileKeepsValues(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	before, _, _ := app.Store.Quotes(context.Background(), store.QuoteFilter{States: []string{quote.Proposed}})
	big := append(append([]byte{}, proposalPDF...), bytes.Repeat([]byte("0"), 5<<20)...)
	for name, c := range map[string]struct {
		file  []byte
		field string
		blank bool
	}{
		"exe named pdf": {file: []byte("MZ\x90\x00\x03\x00\x00\x00 this program cannot be run"), field: "vendor_file"},
		"over 5 MiB":    {file: big, field: "vendor_file"},
		"no message":    {file: proposalPDF, field: "vendor_message", blank: true},
	} {
		form := proposalForm(app)
		form.Set("label", "kept label 保留")
		if c.blank {
			form.Set("vendor_message", " ")
		}
		r := proposalUpload(t, app, analyst, "/quotes/proposals", form, "offer.pdf", c.file)
		d := doc(t, r.Body)
		if r.StatusCode != http.StatusUnprocessableEntity || d.Find(`[data-testid="error-`+c.field+`"]`).Length() != 1 {
			t.Errorf("%s: status %d, want 422 with an error on %s", name, r.StatusCode, c.field)
			continue
		}
		if v, _ := d.Find(`#f-label`).Attr("value"); v != "kept label 保留" {
			t.Errorf("%s: label not kept: %q", name, v)
		}
		if !c.blank && !strings.Contains(d.Find(`#f-vendor_message`).Text(), "HOSTKEY sales") {
			t.Errorf("%s: message not kept", name)
		}
	}
	after, _, _ := app.Store.Quotes(context.Background(), store.QuoteFilter{States: []string{quote.Proposed}})
	if len(after) != len(before) {
		t.Errorf("a refused proposal was stored")
	}
}

// TestCompareWithProposal: a proposal is compared for its author (marked
// not yet reviewed) and dropped like a draft for another analyst
// (docs/RULES.md §18.1).
func TestCompareWithProposal(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	author, _ := app.AsUser(auth.RoleAnalyst)
	other, _ := app.AsUser(auth.RoleAnalyst)
	id := quoteIDFrom(t, proposalUpload(t, app, author, "/quotes/proposals", proposalForm(app), "", nil))
	path := "/compare?hours_per_month=200&months=1&instances=1&q=" + itoa(id)
	mineDoc := doc(t, author.Get(path).Body)
	if mineDoc.Find(`[data-testid="row-not-reviewed"]`).Length() != 1 {
		t.Errorf("the author's comparison does not show the proposal marked not yet reviewed")
	}
	// Among the candidates to tick: the author's, marked, not another's.
	if mineDoc.Find(`[data-testid="cand-`+itoa(id)+`"] [data-testid="cand-not-reviewed"]`).Length() != 1 {
		t.Errorf("the author's candidate list does not offer the proposal, marked not yet reviewed")
	}
	otherDoc := doc(t, other.Get(path).Body)
	if otherDoc.Find(`[data-testid="row-not-reviewed"]`).Length() != 0 || strings.Contains(otherDoc.Text(), "R9700 tier") {
		t.Errorf("another analyst's comparison shows the proposal")
	}
	if otherDoc.Find(`[data-testid="cand-`+itoa(id)+`"]`).Length() != 0 {
		t.Errorf("another analyst's candidate list offers the proposal")
	}
	// A filter on another GPU model leaves it out of the author's list.
	if d := doc(t, author.Get(path+"&gpu=999999").Body); d.Find(`[data-testid="cand-`+itoa(id)+`"]`).Length() != 0 {
		t.Errorf("the GPU filter keeps a proposal of another model")
	}
}

// proposalAttachmentPath is the file of a fresh proposal, under it.
func proposalAttachmentPath(a *testutil.App) string {
	a.T.Helper()
	p, _ := proposedQuote(a)
	atts, err := a.Store.QuoteAttachments(context.Background(), p.SeriesID)
	if err != nil || len(atts) != 1 {
		a.T.Fatalf("attachments: %v %v", atts, err)
	}
	return "/quotes/" + itoa(p.ID) + "/attachments/" + itoa(atts[0].ID)
}

// proposalPath is path under a fresh proposal: "/quotes/<id>" + suffix.
func proposalPath(suffix string) func(a *testutil.App) string {
	return func(a *testutil.App) string { p, _ := proposedQuote(a); return "/quotes/" + itoa(p.ID) + suffix }
}

// TestReportHoldingProposalSaysNotReviewed: the author saves a report
// comparing their proposal; its page marks the row and its CSV export
// names it as not yet reviewed (docs/RULES.md §18.1).
func TestReportHoldingProposalSaysNotReviewed(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	author, _ := app.AsUser(auth.RoleAnalyst)
	author.Get("/lang") // any page: the CSRF token
	author.PostForm("/lang", url.Values{"lang": {"en"}})
	id := quoteIDFrom(t, proposalUpload(t, app, author, "/quotes/proposals", proposalForm(app), "", nil))
	rid := saveReport(t, author, reportForm("proposal report", "200", id))
	page := author.Get("/reports/" + itoa(rid))
	if page.StatusCode != 200 || doc(t, page.Body).Find(`[data-testid="row-not-reviewed"]`).Length() != 1 {
		t.Errorf("report page: %d, no not-yet-reviewed mark", page.StatusCode)
	}
	// The report says so at its head, printed too.
	if banner := doc(t, page.Body).Find(`[data-testid="report-not-reviewed"]`).Text(); !strings.Contains(banner, "no editor had reviewed") ||
		!strings.Contains(banner, "R9700 tier") {
		t.Errorf("report head does not name the proposal not yet reviewed: %q", banner)
	}
	csv := author.Get("/reports/" + itoa(rid) + "/export.csv")
	if csv.StatusCode != 200 || !strings.Contains(csv.Body, "Not yet reviewed (proposed quotes)") {
		t.Errorf("CSV export does not say not yet reviewed: %d", csv.StatusCode)
	}
}

// TestPublishedProposalShowsCorrections: an editor who publishes a
// proposal with changes leaves them shown, the vendor's value beside the
// published one, on the published version (to anyone signed in) and on
// the proposal's page (to its author), in both languages; what the
// editor left alone is not listed (docs/RULES.md §18.1).
func TestPublishedProposalShowsCorrections(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	author, authorID := app.AsUser(auth.RoleAnalyst)
	pid, gid := marketRefs(app)
	p := testfactory.Proposal(t, app.Store, authorID, quote.Quote{PlatformID: pid, GPUModelID: gid,
		Hourly: testfactory.ND("0.471"), Monthly: testfactory.ND("284")}, "vendor says 0.471", nil)
	editor, _ := app.AsUser(auth.RoleEditor)
	finance, _ := app.AsUser(auth.RoleFinance)
	editor.Get("/quotes/" + itoa(p.ID) + "/review")
	pub := quote.Values(p)
	pub.Set("lock_version", strconv.Itoa(p.LockVersion))
	pub.Set("hourly", "0.45")
	pub.Set("egress.note", "Egress confirmed by mail")
	v2 := quoteIDFrom(t, editor.PostForm("/quotes/"+itoa(p.ID)+"/review/publish", pub))

	read := func(c *testutil.Client, id int64, lang string) (map[string][2]string, *goquery.Document) {
		t.Helper()
		c.Header.Set("Accept-Language", lang)
		r := c.Get("/quotes/" + itoa(id))
		if r.StatusCode != 200 {
			t.Fatalf("quote %d in %s: %d", id, lang, r.StatusCode)
		}
		d := doc(t, r.Body)
		rows := map[string][2]string{}
		d.Find(`[data-testid="proposal-corrections"] [data-testid="correction"]`).Each(func(_ int, s *goquery.Selection) {
			rows[strings.Join(strings.Fields(s.Find("th").Text()), " ")] = [2]string{
				strings.TrimSpace(s.Find(`[data-testid="correction-vendor"]`).Text()),
				strings.TrimSpace(s.Find(`[data-testid="correction-published"]`).Text())}
		})
		return rows, d
	}
	want := map[string]map[string][2]string{
		"en":    {"Hourly price": {"€0.471", "€0.45"}, "Egress traffic · Note": {"—", "Egress confirmed by mail"}},
		"zh-CN": {"按小时单价": {"€0.471", "€0.45"}, "出网流量 · 备注": {"—", "Egress confirmed by mail"}},
	}
	for lang, rows := range want {
		for name, c := range map[string]struct {
			client   *testutil.Client
			id       int64
			linkBack bool
		}{"published, finance": {finance, v2, false}, "published, author": {author, v2, true}, "proposal, author": {author, p.ID, true}} {
			got, d := read(c.client, c.id, lang)
			if len(got) != len(rows) {
				t.Errorf("%s %s: corrections %q, want %q", lang, name, got, rows)
				continue
			}
			for k, w := range rows {
				if got[k] != w {
					t.Errorf("%s %s: %q is %q, want %q", lang, name, k, got[k], w)
				}
			}
			if n := d.Find(`[data-testid="corrections-vendor-link"]`).Length(); (n == 1) != c.linkBack {
				t.Errorf("%s %s: %d links to the vendor's version, want one: %v", lang, name, n, c.linkBack)
			}
		}
	}
}

// TestOwnProposalCandidatesFilteredAndReturnedSaid: the reader's own open
// proposals among the compare page's candidates obey the list's filters
// (GPU model, currency, sharing, freshness) as published quotes do, and
// one sent back is marked as sent back, not as waiting for review, among
// the candidates and in the comparison (docs/RULES.md §18.1).
func TestOwnProposalCandidatesFilteredAndReturnedSaid(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	author, authorID := app.AsUser(auth.RoleAnalyst)
	editor, _ := app.AsUser(auth.RoleEditor)
	pid, gid := marketRefs(app)
	p := testfactory.Proposal(t, app.Store, authorID, quote.Quote{PlatformID: pid, GPUModelID: gid, Currency: "EUR", Sharing: "dedicated",
		AsOf: time.Now().UTC().AddDate(0, 0, -60), Hourly: testfactory.ND("0.471"), Monthly: testfactory.ND("284")}, "vendor says 0.471", nil)
	cand := `[data-testid="cand-` + itoa(p.ID) + `"]`
	base := "/compare?hours_per_month=200&months=1&instances=1"
	for filter, listed := range map[string]bool{"": true, "&currency=eur": true, "&currency=USD": false, "&sharing=dedicated": true,
		"&sharing=shared": false, "&fresh=90": true, "&fresh=30": false, "&gpu=" + itoa(gid): true, "&gpu=999999": false} {
		if n := doc(t, author.Get(base+filter).Body).Find(cand).Length(); (n == 1) != listed {
			t.Errorf("filter %q: the proposal listed %d times, want listed %v", filter, n, listed)
		}
	}
	if r := editor.PostForm("/quotes/"+itoa(p.ID)+"/review/return", url.Values{"lock_version": {strconv.Itoa(p.LockVersion)},
		"comment": {"Attach the written SLA"}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("return: %d", r.StatusCode)
	}
	d := doc(t, author.Get(base+"&q="+itoa(p.ID)).Body)
	for _, badge := range []string{cand + ` [data-testid="cand-not-reviewed"]`, `[data-testid="row-not-reviewed"]`} {
		if got := strings.TrimSpace(d.Find(badge).Text()); got != "已退回" {
			t.Errorf("%s of a proposal sent back says %q, want 已退回", badge, got)
		}
	}
}
