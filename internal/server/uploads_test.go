package server_test

import (
	"net/http"
	"net/url"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// The vendor's files of proposals (docs/RULES.md §18.1): the name a file
// is kept under.

// proposalPNG is the start of a PNG file: what the server decides from.
var proposalPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")

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
