package server_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/auth"
	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
)

// autodlMessage is an AutoDL-style message as an analyst pastes it.
const autodlMessage = "AutoDL RTX 4090 单卡：按量 ¥1.98/小时，按秒计费；包月 ¥1,150。数据盘 50GB 免费，超出部分 ¥0.01/GB/天。公网IP ¥20/月。"

// formValue is the value the form shows for field name: an input's value
// or a select's chosen option.
func formValue(doc *goquery.Document, name string) string {
	if in := doc.Find(`input[name="` + name + `"]`); in.Length() > 0 {
		return in.AttrOr("value", "")
	}
	return doc.Find(`select[name="`+name+`"] option[selected]`).AttrOr("value", "")
}

func quotesAndAudits(t *testing.T, app *testutil.App) (quotes, audits int) {
	t.Helper()
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT (SELECT count(*) FROM quotes), (SELECT count(*) FROM audit_log)`).
		Scan(&quotes, &audits); err != nil {
		t.Fatal(err)
	}
	return quotes, audits
}

// TestReadVendorMessageIntoForms: the proposal form's and the editors'
// form's "read" button fills the fields the reader left alone from the
// message (and the text of an attached PDF), marks each with its phrase,
// lists them under the form, keeps what was typed, and stores nothing; an
// image-only PDF says it has no text (docs/RULES.md §22.11).
func TestReadVendorMessageIntoForms(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	if err := sample.LoadMarket(context.Background(), app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	var autodl, rtx4090 string
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT (SELECT id::text FROM platforms WHERE name_en = 'AutoDL'),
		(SELECT id::text FROM gpu_models WHERE name = 'GeForce RTX 4090')`).Scan(&autodl, &rtx4090); err != nil {
		t.Fatal(err)
	}
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	before, audits := quotesAndAudits(t, app)

	form := url.Values{"vendor_message": {autodlMessage}, "read": {"1"}, "gpu_count": {"1"}, "sharing": {"dedicated"},
		"prices_include_tax": {"true"}, "as_of": {"2026-12-01"}, "monthly": {"1100"}}
	r := proposalUpload(t, app, analyst, "/quotes/proposals", form, "", nil)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("read: %d, want 200 with the form: %.500s", r.StatusCode, r.Body)
	}
	doc := document(t, r.Body)
	for name, want := range map[string]string{"platform": autodl, "gpu_model": rtx4090, "hourly": "1.98", "currency": "CNY",
		"billing_granularity": "second", "data_disk.status": "charged", "data_disk.unit": "per_day", "data_disk.unit_price": "0.01",
		"data_disk.free_allowance": "50", "monthly": "1100", "vendor_message": ""} {
		if name == "vendor_message" {
			if got := doc.Find(`textarea[name="vendor_message"]`).Text(); got != autodlMessage {
				t.Errorf("the message came back as %q", got)
			}
			continue
		}
		if got := formValue(doc, name); got != want {
			t.Errorf("%s shows %q, want %q", name, got, want)
		}
	}
	if src := doc.Find(`[data-testid="source-hourly"]`).Text(); !strings.Contains(src, "¥1.98/小时") {
		t.Errorf("hourly's source: %q", src)
	}
	if doc.Find(`[data-testid="source-monthly"]`).Length() != 0 {
		t.Error("the typed monthly price is marked as read")
	}
	if kept := doc.Find(`[data-testid="reading-kept"]`).Text(); !strings.Contains(kept, "1100") || !strings.Contains(kept, "1150") {
		t.Errorf("the kept monthly price is not listed with both values: %q", kept)
	}
	if n := doc.Find(`[data-testid="reading-field"]`).Length(); n < 8 {
		t.Errorf("%d fields listed under the form", n)
	}
	if got := doc.Find(`[data-testid="reading-summary"]`).Text(); !strings.Contains(got, "请逐项核对") {
		t.Errorf("summary: %q", got)
	}
	if q, a := quotesAndAudits(t, app); q != before || a != audits {
		t.Fatalf("reading stored something: quotes %d → %d, audit %d → %d", before, q, audits, a)
	}

	// The same form posted by its own button proposes what it shows.
	proposed := url.Values{}
	doc.Find(`form[data-testid="proposal-form"] input[name], form[data-testid="proposal-form"] select[name]`).Each(func(_ int, s *goquery.Selection) {
		name := s.AttrOr("name", "")
		if name == "_csrf" || name == "read" || s.Is("input[type=file]") {
			return
		}
		if s.Is("input[type=checkbox]") && s.AttrOr("checked", "-") == "-" {
			return
		}
		proposed.Set(name, formValue(doc, name))
	})
	proposed.Set("vendor_message", autodlMessage)
	proposed.Set("source", "AutoDL 客服消息")
	if r := proposalUpload(t, app, analyst, "/quotes/proposals", proposed, "", nil); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("proposing the read form: %d: %s", r.StatusCode, document(t, r.Body).Find(`[data-testid="form-errors"]`).Text())
	}

	// A PDF's text is read when the message is empty; a scan says it has none.
	pdf, err := os.ReadFile("../pdftext/testdata/vendor-quote.pdf")
	if err != nil {
		t.Fatal(err)
	}
	r = proposalUpload(t, app, analyst, "/quotes/proposals", url.Values{"read": {"1"}}, "quote.pdf", pdf)
	doc = document(t, r.Body)
	if r.StatusCode != http.StatusOK || formValue(doc, "hourly") != "1.98" || formValue(doc, "monthly") != "1150" ||
		!strings.Contains(doc.Find(`[data-testid="reading-file"]`).Text(), "已读取附件") {
		t.Errorf("reading a PDF: %d, hourly %q, monthly %q, note %q", r.StatusCode, formValue(doc, "hourly"), formValue(doc, "monthly"),
			doc.Find(`[data-testid="reading-file"]`).Text())
	}
	scan, err := os.ReadFile("../pdftext/testdata/scanned-quote.pdf")
	if err != nil {
		t.Fatal(err)
	}
	r = proposalUpload(t, app, analyst, "/quotes/proposals", url.Values{"read": {"1"}, "vendor_message": {"见附件"}}, "scan.pdf", scan)
	if r.StatusCode != http.StatusOK || !strings.Contains(document(t, r.Body).Find(`[data-testid="reading-file"]`).Text(), "没有文字层") {
		t.Errorf("reading a scan: %d, note %q", r.StatusCode, document(t, r.Body).Find(`[data-testid="reading-file"]`).Text())
	}
	r = proposalUpload(t, app, analyst, "/quotes/proposals", url.Values{"read": {"1"}}, "scan.pdf", scan)
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-vendor_message"`) {
		t.Errorf("a scan and no message: %d, want 422 asking for the message", r.StatusCode)
	}

	// The editors' form reads pasted text the same way, and stores nothing.
	editor, _ := app.AsUser(auth.RoleEditor)
	before, audits = quotesAndAudits(t, app)
	r = editor.PostForm("/quotes", url.Values{"read": {"1"}, "vendor_text": {autodlMessage}, "gpu_count": {"1"},
		"sharing": {"dedicated"}, "prices_include_tax": {"true"}, "as_of": {"2026-12-01"}})
	doc = document(t, r.Body)
	if r.StatusCode != http.StatusOK || formValue(doc, "hourly") != "1.98" || formValue(doc, "platform") != autodl ||
		doc.Find(`textarea[name="vendor_text"]`).Text() != autodlMessage {
		t.Errorf("editor's reading: %d, hourly %q, platform %q", r.StatusCode, formValue(doc, "hourly"), formValue(doc, "platform"))
	}
	if r := editor.PostForm("/quotes", url.Values{"read": {"1"}, "vendor_text": {"  "}}); r.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body, `data-testid="error-vendor_text"`) {
		t.Errorf("an empty message to read: %d", r.StatusCode)
	}
	if q, a := quotesAndAudits(t, app); q != before || a != audits {
		t.Errorf("the editors' reading stored something: quotes %d → %d, audit %d → %d", before, q, audits, a)
	}
}
