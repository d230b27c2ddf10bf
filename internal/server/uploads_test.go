package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// The vendor's files of proposals (docs/RULES.md §18.1): the name a file
// is kept under, a file part the browser sent malformed, a file over the
// limit, how an upload is read, and each person's quota.

// proposalPNG is the start of a PNG file: what the server decides from.
var proposalPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")

// uploadBoundary separates the parts of the multipart bodies written here.
const uploadBoundary = "gpuquote-test-boundary-4b1d"

// multipartHead writes the parts of a proposal form before its file part:
// the client's CSRF token first, as the page's form sends it, then values.
func multipartHead(c *testutil.Client, values url.Values) *bytes.Buffer {
	var b bytes.Buffer
	part := func(name, value string) {
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=%q\r\n\r\n%s\r\n", uploadBoundary, name, value)
	}
	part("_csrf", c.CSRF)
	for k, vs := range values {
		for _, v := range vs {
			part(k, v)
		}
	}
	return &b
}

// rawProposalUpload posts the proposal form with values and one file part
// whose Content-Disposition is written as given, to path.
func rawProposalUpload(t *testing.T, app *testutil.App, c *testutil.Client, path string, values url.Values, disposition string, file []byte) *testutil.Response {
	t.Helper()
	if c.CSRF == "" {
		c.Get("/quotes/new")
	}
	b := multipartHead(c, values)
	fmt.Fprintf(b, "--%s\r\nContent-Disposition: %s\r\nContent-Type: application/octet-stream\r\n\r\n", uploadBoundary, disposition)
	b.Write(file)
	fmt.Fprintf(b, "\r\n--%s--\r\n", uploadBoundary)
	req, err := http.NewRequest(http.MethodPost, app.URL+path, b)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+uploadBoundary)
	return c.Do(req)
}

// attachmentOf is the name the quote page shows for proposal id's one file
// and the Content-Disposition its download is served with.
func attachmentOf(t *testing.T, c *testutil.Client, id int64) (shown, disposition string) {
	t.Helper()
	link := doc(t, c.Get("/quotes/"+itoa(id)).Body).Find(`[data-testid="attachment-link"]`)
	href, ok := link.Attr("href")
	if link.Length() != 1 || !ok {
		t.Fatalf("proposal %d: %d file links", id, link.Length())
	}
	res := c.Get(href)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("download %s: %d", href, res.StatusCode)
	}
	return link.Text(), res.Header.Get("Content-Disposition")
}

// TestProposalFileNameFollowsItsContent: a vendor's file is kept, shown
// and served under a name that ends as its bytes say, without format or
// bidi characters (docs/RULES.md §18.1, ASVS 5.0 V5.2.2) — "quote.bat"
// holding a PDF is "quote.pdf", "invoice" U+202E "fdp.exe" no longer reads as
// "invoiceexe.pdf"; and a file kept before this rule is shown and served
// by it.
func TestProposalFileNameFollowsItsContent(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	analyst, uid := app.AsUser(auth.RoleAnalyst)
	for _, c := range []struct {
		sent string
		file []byte
		want string
	}{
		{sent: "quote.bat", file: proposalPDF, want: "quote.pdf"},
		{sent: "evil.html", file: proposalPNG, want: "evil.png"},
		{sent: "x.svg", file: proposalPNG, want: "x.png"},
		{sent: "setup.exe", file: proposalPDF, want: "setup.pdf"},
		{sent: "invoice\u202efdp.exe", file: proposalPDF, want: "invoicefdp.pdf"},
		{sent: "zero\u200bwidth.pdf", file: proposalPDF, want: "zerowidth.pdf"},
		{sent: "HOSTKEY 报价单.pdf", file: proposalPDF, want: "HOSTKEY 报价单.pdf"},
	} {
		id := quoteIDFrom(t, proposalUpload(t, app, analyst, "/quotes/proposals", proposalForm(app), c.sent, c.file))
		shown, disposition := attachmentOf(t, analyst, id)
		if shown != c.want || disposition != "attachment; filename*=UTF-8''"+url.PathEscape(c.want) {
			t.Errorf("%q: shown as %q, served as %q; want %q", c.sent, shown, disposition, c.want)
		}
	}

	// A file kept under its name as sent, before this rule.
	pid, gid := marketRefs(app)
	old := testfactory.Proposal(t, app.Store, uid, quote.Quote{PlatformID: pid, GPUModelID: gid, Hourly: testfactory.ND("1")}, "old",
		&store.NewAttachment{Filename: "old\u202efdp.exe", ContentType: proposal.PDF, Data: proposalPDF})
	shown, disposition := attachmentOf(t, analyst, old.ID)
	if shown != "oldfdp.pdf" || disposition != "attachment; filename*=UTF-8''oldfdp.pdf" {
		t.Errorf("a file kept before the rule: shown as %q, served as %q", shown, disposition)
	}
}

// TestProposalMalformedFilePartComesBack: a file part whose name the
// server cannot read (a quote left open, no filename at all, the name
// twice) is not dropped in silence with the proposal stored without it,
// nor is one named with filename* (which RFC 7578 forbids in a form, and
// which the standard library takes in place of filename) kept under that
// name: the form comes back with the file's error and every other value
// (docs/RULES.md §18.1).
func TestProposalMalformedFilePartComesBack(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	before, _, _ := app.Store.Quotes(context.Background(), store.QuoteFilter{States: []string{quote.Proposed}})
	for name, disposition := range map[string]string{
		"quote left open": `form-data; name="vendor_file"; filename="offer.pdf`,
		"no file name":    `form-data; name="vendor_file"`,
		"name twice":      `form-data; name="vendor_file"; filename="a.pdf"; filename="b.pdf"`,
		"filename*":       `form-data; name="vendor_file"; filename="offer.pdf"; filename*=UTF-8''evil.exe`,
	} {
		form := proposalForm(app)
		form.Set("label", "kept label 保留")
		r := rawProposalUpload(t, app, analyst, "/quotes/proposals", form, disposition, proposalPDF)
		d := doc(t, r.Body)
		if r.StatusCode != http.StatusUnprocessableEntity || d.Find(`[data-testid="error-vendor_file"]`).Length() != 1 {
			t.Errorf("%s: status %d, want 422 with the file's error", name, r.StatusCode)
			continue
		}
		if v, _ := d.Find(`#f-label`).Attr("value"); v != "kept label 保留" {
			t.Errorf("%s: label not kept: %q", name, v)
		}
		if !strings.Contains(d.Find(`#f-vendor_message`).Text(), "HOSTKEY sales") {
			t.Errorf("%s: message not kept", name)
		}
	}
	after, _, _ := app.Store.Quotes(context.Background(), store.QuoteFilter{States: []string{quote.Proposed}})
	if len(after) != len(before) {
		t.Errorf("a proposal with a malformed file part was stored")
	}
}

// TestProposalFileOverTheLimitComesBack: a 6 MiB vendor's file is answered
// as a file of the wrong type is, in both languages: the form again with
// the pasted message, the quote's fields and its lines, and under the file
// field an error naming the file and the 5 MiB limit — not a bare "413"
// page (docs/RULES.md §18.1).
func TestProposalFileOverTheLimitComesBack(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	big := append(append([]byte{}, proposalPDF...), bytes.Repeat([]byte("0"), 6<<20)...)
	for _, lang := range []struct{ code, words string }{{"zh-CN", "超过 5 MiB"}, {"en", "larger than 5 MiB"}} {
		analyst.PostForm("/lang", url.Values{"lang": {lang.code}})
		form := proposalForm(app)
		form.Set("egress.status", "charged")
		form.Set("egress.unit", "per_gb")
		form.Set("egress.unit_price", "0.8")
		r := proposalUpload(t, app, analyst, "/quotes/proposals", form, "大报价单 big.pdf", big)
		d := doc(t, r.Body)
		msg := d.Find(`[data-testid="error-vendor_file"]`).Text()
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, lang.words) || !strings.Contains(msg, "大报价单 big.pdf") {
			t.Errorf("%s: status %d, file error %q; want 422 naming the file and the limit", lang.code, r.StatusCode, msg)
			continue
		}
		if !strings.Contains(d.Find(`#f-vendor_message`).Text(), "HOSTKEY sales") {
			t.Errorf("%s: the message is not shown again", lang.code)
		}
		if v, _ := d.Find(`#f-label`).Attr("value"); v != "R9700 tier" {
			t.Errorf("%s: the label is not shown again: %q", lang.code, v)
		}
		if v, _ := d.Find(`[name="egress.unit_price"]`).Attr("value"); v != "0.8" {
			t.Errorf("%s: the egress line is not shown again: %q", lang.code, v)
		}
	}
}

// heldUpload is a proposal upload on a connection of its own whose body is
// sent in steps: send writes more of it, answer reads the response.
type heldUpload struct {
	conn   net.Conn
	read   *bufio.Reader
	writes chan []byte
}

// startHeldUpload sends the request line and headers of a proposal upload
// of declared body length, as c, and head, the body's first bytes.
func startHeldUpload(t *testing.T, app *testutil.App, c *testutil.Client, length int, head []byte) *heldUpload {
	t.Helper()
	u, _ := url.Parse(app.URL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var cookies []string
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	fmt.Fprintf(conn, "POST /quotes/proposals HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\nContent-Type: multipart/form-data; boundary=%s\r\nContent-Length: %d\r\n\r\n",
		u.Host, strings.Join(cookies, "; "), uploadBoundary, length)
	h := &heldUpload{conn: conn, read: bufio.NewReader(conn), writes: make(chan []byte, 4)}
	// One goroutine writes, in order: a server that does not read any
	// more leaves it blocked, not the test.
	go func() {
		for b := range h.writes {
			if _, err := conn.Write(b); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { close(h.writes) })
	h.send(head)
	return h
}

// send writes b after what was sent before.
func (h *heldUpload) send(b []byte) { h.writes <- b }

// answer reads the response; a server that waits for what was held back
// fails the test after a minute instead of hanging it.
func (h *heldUpload) answer(t *testing.T) (*http.Response, string) {
	t.Helper()
	_ = h.conn.SetReadDeadline(time.Now().Add(time.Minute))
	res, err := http.ReadResponse(h.read, nil)
	if err != nil {
		t.Fatalf("no answer while the rest of the body was held back (the server waits for the whole body?): %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// TestProposalUploadIsNotReadWhole: the server reads an upload as it
// arrives, not whole before looking at it. A proposal whose file runs past
// the 6 MiB the route reads is answered — the form with the file's error
// and every value — while the client still holds back the rest of a body
// it declared at 64 MiB: no more than the limit was read, and nothing
// waited for the rest (docs/RULES.md §18.1).
func TestProposalUploadIsNotReadWhole(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	analyst.Get("/quotes/new")
	head := multipartHead(analyst, proposalForm(app))
	fmt.Fprintf(head, "--%s\r\nContent-Disposition: form-data; name=\"vendor_file\"; filename=\"huge.pdf\"\r\n\r\n%s", uploadBoundary, proposalPDF)
	h := startHeldUpload(t, app, analyst, 64<<20, head.Bytes())
	h.send(make([]byte, 7<<20)) // past the limit; the other 57 MiB never come
	res, body := h.answer(t)
	d := doc(t, body)
	msg := d.Find(`[data-testid="error-vendor_file"]`).Text()
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, "huge.pdf") {
		t.Fatalf("status %d, file error %q: want the form with the file's error", res.StatusCode, msg)
	}
	if v, _ := d.Find(`#f-label`).Attr("value"); v != "R9700 tier" {
		t.Errorf("the form does not keep its values: label %q", v)
	}
}

// TestProposalUploadsAreBounded: a server process reads a bounded number
// of uploads at once (Config.Uploads), each in a slot holding at most one
// file's bytes; one more waits up to Config.UploadWait (none here) and is
// then answered 503 with Retry-After and a word on what to do; once a
// slot is free again uploads go through (docs/RULES.md §18.1).
func TestProposalUploadsAreBounded(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.Uploads, d.Config.UploadWait = 1, 0 })
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	analyst.Get("/quotes/new")
	head := multipartHead(analyst, proposalForm(app))
	tail := []byte(fmt.Sprintf("--%s--\r\n", uploadBoundary))
	// One upload holds the only slot: the server waits for its body.
	h := startHeldUpload(t, app, analyst, head.Len()+len(tail), head.Bytes())
	for i := 0; app.Server.UploadsInFlight() != 1; i++ {
		if i == 6000 {
			t.Fatalf("the held upload never took its slot")
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := proposalUpload(t, app, analyst, "/quotes/proposals", proposalForm(app), "offer.pdf", proposalPDF)
	if r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || !strings.Contains(r.Body, "上传的文件太多") {
		t.Errorf("an upload while every slot is taken: %d, Retry-After %q; want 503 saying so", r.StatusCode, r.Header.Get("Retry-After"))
	}
	h.send(tail)
	if res, body := h.answer(t); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the held upload, once sent: %d %.300s", res.StatusCode, body)
	}
	quoteIDFrom(t, proposalUpload(t, app, analyst, "/quotes/proposals", proposalForm(app), "offer.pdf", proposalPDF))
}

// TestProposalHourlyBound: one person makes at most
// GPUQUOTE_PROPOSALS_PER_HOUR proposals in any hour (each tells every
// editor), through the form or the API; one more is refused with the form
// kept and a word in the reader's language on when to try again, 429 with
// Retry-After; an hour later it goes through (docs/RULES.md §18.1).
func TestProposalHourlyBound(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	app := testutil.NewApp(t, func(d *server.Deps) { d.Now = clock.Now; d.Config.ProposalsPerHour = 2 })
	email, password, uid := app.CreateUser(auth.RoleAnalyst)
	analyst := app.Client()
	analyst.Login(email, password)
	token := testfactory.APIToken(t, app.Store, uid, email, "bound", user.ScopeQuotesWrite)
	for range 2 {
		quoteIDFrom(t, proposalUpload(t, app, analyst, "/quotes/proposals", proposalForm(app), "", nil))
		clock.Advance(10 * time.Minute)
	}
	for _, lang := range []struct{ code, words string }{{"zh-CN", "已提交 2 条建议"}, {"en", "made 2 proposals in the last hour"}} {
		analyst.PostForm("/lang", url.Values{"lang": {lang.code}})
		form := proposalForm(app)
		form.Set("label", "kept label")
		r := proposalUpload(t, app, analyst, "/quotes/proposals", form, "offer.pdf", proposalPDF)
		d := doc(t, r.Body)
		msg := d.Find(`[data-testid="error-rate"]`).Text()
		// The first proposal leaves the hour 40 minutes from now.
		if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "2401" || !strings.Contains(msg, lang.words) ||
			!strings.Contains(msg, "40") {
			t.Errorf("%s: a third proposal in the hour: %d, Retry-After %q, %q", lang.code, r.StatusCode, r.Header.Get("Retry-After"), msg)
		}
		if v, _ := d.Find(`#f-label`).Attr("value"); v != "kept label" {
			t.Errorf("%s: label not kept: %q", lang.code, v)
		}
	}
	body := proposalAPIBody(t, app)
	if r := apiCall(t, app, http.MethodPost, "/api/v1/proposals", token, body); r.StatusCode != http.StatusTooManyRequests ||
		r.Header.Get("Retry-After") == "" {
		t.Errorf("a third proposal in the hour through the API: %d %s", r.StatusCode, r.Body)
	}
	// As each leaves the hour, one more may be proposed.
	clock.Advance(41 * time.Minute)
	if r := apiCall(t, app, http.MethodPost, "/api/v1/proposals", token, body); r.StatusCode != http.StatusCreated {
		t.Errorf("the API once the first left the hour: %d %s", r.StatusCode, r.Body)
	}
	clock.Advance(10 * time.Minute)
	quoteIDFrom(t, proposalUpload(t, app, analyst, "/quotes/proposals", proposalForm(app), "", nil))
}

// proposalAPIBody is a valid proposal as the API takes it.
func proposalAPIBody(t *testing.T, app *testutil.App) string {
	t.Helper()
	_, gid := marketRefs(app)
	return fmt.Sprintf(`{"platform": "HOSTKEY", "gpu_model_id": %d, "gpu_count": 1, "sharing": "dedicated", "currency": "EUR",
		"hourly": "0.471", "billing_granularity": "second", "prices_include_tax": true, "as_of": "2026-11-20", "source": "mail",
		"vendor_message": "HOSTKEY sales"}`, gid)
}

// TestProposalStorageAndWithdrawingFiles: the files of one person's
// proposals not yet published hold at most GPUQUOTE_PROPOSAL_STORAGE bytes;
// a file that does not fit is the file's error on the form. An editor (not
// the author) withdraws a file from a proposal sent back, never from one
// waiting for review: its bytes are deleted, its record stays on the page
// with who withdrew it, the withdrawal is audited, and the author's quota
// is freed (docs/RULES.md §18.1).
func TestProposalStorageAndWithdrawingFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.ProposalStorage = int64(2*len(proposalPDF) - 1) })
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	editor, editorID := app.AsUser(auth.RoleEditor)
	id := quoteIDFrom(t, proposalUpload(t, app, analyst, "/quotes/proposals", proposalForm(app), "first.pdf", proposalPDF))

	r := proposalUpload(t, app, analyst, "/quotes/proposals", proposalForm(app), "second.pdf", proposalPDF)
	if msg := doc(t, r.Body).Find(`[data-testid="error-vendor_file"]`).Text(); r.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(msg, "second.pdf") || !strings.Contains(msg, "撤回") {
		t.Fatalf("a file past the storage quota: %d %q", r.StatusCode, msg)
	}

	page := doc(t, editor.Get("/quotes/"+itoa(id)).Body)
	if page.Find(`[data-testid="attachment-withdraw"]`).Length() != 0 {
		t.Errorf("a file of a proposal waiting for review offers to be withdrawn")
	}
	href, _ := page.Find(`[data-testid="attachment-link"]`).Attr("href")
	withdraw := href + "/withdraw"
	if r := editor.PostForm(withdraw, nil); r.StatusCode != http.StatusSeeOther || analyst.Get(href).StatusCode != http.StatusOK {
		t.Fatalf("withdrawing from a proposal waiting for review: %d, or the file is gone", r.StatusCode)
	}
	lock := func() string {
		q, err := app.Store.QuoteByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return strconv.Itoa(q.LockVersion)
	}
	if r := editor.PostForm("/quotes/"+itoa(id)+"/review/return", url.Values{"lock_version": {lock()}, "comment": {"wrong file"}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("return: %d", r.StatusCode)
	}
	if r := analyst.PostForm(withdraw, nil); r.StatusCode != http.StatusForbidden {
		t.Errorf("the author withdraws a file: %d", r.StatusCode)
	}
	if r := editor.PostRaw(withdraw, url.Values{}); r.StatusCode != http.StatusForbidden {
		t.Errorf("a withdrawal without the CSRF token: %d", r.StatusCode)
	}
	if page := doc(t, editor.Get("/quotes/"+itoa(id)).Body); page.Find(`[data-testid="attachment-withdraw-form"]`).Length() != 1 {
		t.Fatalf("the editor is not offered to withdraw the file of a returned proposal")
	}
	if r := editor.PostForm(withdraw, nil); r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/quotes/"+itoa(id) {
		t.Fatalf("withdraw: %d %s", r.StatusCode, r.Header.Get("Location"))
	}
	if r := analyst.Get(href); r.StatusCode != http.StatusNotFound {
		t.Errorf("the withdrawn file is still served: %d", r.StatusCode)
	}
	shown := doc(t, analyst.Get("/quotes/"+itoa(id)).Body).Find(`[data-testid="attachment-withdrawn"]`).Text()
	if !strings.Contains(shown, "first.pdf") || !strings.Contains(shown, "Test editor") {
		t.Errorf("the page does not keep the withdrawn file's record and who withdrew it: %q", shown)
	}
	var bytesLeft, withdrawals, audits int
	if err := app.Store.Pool().QueryRow(ctx, `SELECT
		(SELECT count(*) FROM quote_attachment_data d JOIN quote_attachments a ON a.id = d.attachment_id WHERE a.quote_id = $1),
		(SELECT count(*) FROM quote_attachment_withdrawals w JOIN quote_attachments a ON a.id = w.attachment_id WHERE a.quote_id = $1 AND w.withdrawn_by = $2),
		(SELECT count(*) FROM audit_log WHERE action = $3 AND entity_id = $4 AND actor_id = $2)`,
		id, editorID, store.ActionQuoteWithdrawFile, itoa(id)).Scan(&bytesLeft, &withdrawals, &audits); err != nil {
		t.Fatal(err)
	}
	if bytesLeft != 0 || withdrawals != 1 || audits != 1 {
		t.Errorf("after withdrawing: %d files' bytes left, %d withdrawals recorded, %d audited", bytesLeft, withdrawals, audits)
	}
	if r := editor.PostForm(withdraw, nil); r.StatusCode != http.StatusSeeOther {
		t.Errorf("withdrawing again: %d", r.StatusCode)
	}
	// The author's quota is free again.
	quoteIDFrom(t, proposalUpload(t, app, analyst, "/quotes/proposals", proposalForm(app), "second.pdf", proposalPDF))
}
