package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gpuquote/internal/notify"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

var testPDF = []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")

// notices lists (user, kind, entity id) of every notification.
func notices(t *testing.T, st *store.Store) map[[2]int64]string {
	t.Helper()
	rows, err := st.Pool().Query(context.Background(), `SELECT user_id, entity_id, kind FROM notifications`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[[2]int64]string{}
	for rows.Next() {
		var u, e int64
		var k string
		if err := rows.Scan(&u, &e, &k); err != nil {
			t.Fatal(err)
		}
		out[[2]int64{u, e}] = k
	}
	return out
}

// TestProposalLifecycle: an analyst proposes (v1, proposed, the vendor's
// words stored, editors told); an editor sends it back (returned, comment
// kept, author told); the author edits it, which proposes it again; an
// editor publishes it with a change: v2 published by the editor with v1
// as predecessor, v1 reviewed and unchanged, the author told; every step
// audited (docs/RULES.md §18.1).
func TestProposalLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid := marketFixture(t, st)
	author := reportUser(t, st, "analyst")
	editor := reportUser(t, st, "editor")
	admin := reportUser(t, st, "admin")
	audits := count(t, st, "audit_log")

	p, err := st.CreateProposal(ctx, author, sampleQuote(pid, gid), "  供应商：4090 每小时 1.98 元  ",
		&store.NewAttachment{Filename: "quote.pdf", ContentType: "application/pdf", Data: testPDF}, proposal.Quota{}, storeDay)
	if err != nil {
		t.Fatal(err)
	}
	if p.State != quote.Proposed || p.Version != 1 || p.SeriesID != p.ID || p.PublishedAt != nil || p.CreatedBy != author.UserID || len(p.Lines) != 3 {
		t.Fatalf("proposal: %+v", p)
	}
	if n := count(t, st, "audit_log") - audits; n != 2 { // the file and the proposal
		t.Errorf("audit rows after proposing: %d, want 2", n)
	}
	msgs, err := st.QuoteMessages(ctx, p.SeriesID)
	if err != nil || len(msgs) != 1 || msgs[0].Body != "供应商：4090 每小时 1.98 元" {
		t.Fatalf("messages: %+v %v", msgs, err)
	}
	atts, err := st.QuoteAttachments(ctx, p.SeriesID)
	if err != nil || len(atts) != 1 || atts[0].Size != len(testPDF) || len(atts[0].SHA256) != 64 {
		t.Fatalf("attachments: %+v %v", atts, err)
	}
	n := notices(t, st)
	if n[[2]int64{editor.UserID, p.ID}] != string(notify.QuoteProposed) || n[[2]int64{admin.UserID, p.ID}] != "" ||
		n[[2]int64{author.UserID, p.ID}] != "" {
		t.Errorf("notices after proposing: %v", n)
	}

	// Sending back needs the lock version the editor saw.
	if err := st.ReturnProposal(ctx, editor, p.ID, p.LockVersion+1, "价格不对", storeDay); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale return: %v", err)
	}
	if err := st.ReturnProposal(ctx, editor, p.ID, p.LockVersion, "月价请附书面确认", storeDay); err != nil {
		t.Fatal(err)
	}
	ret, _ := st.QuoteByID(ctx, p.ID)
	if ret.State != quote.Returned {
		t.Fatalf("after return: %s", ret.State)
	}
	if notices(t, st)[[2]int64{author.UserID, p.ID}] != string(notify.QuoteReturned) {
		t.Errorf("author not told of the return")
	}
	if _, err := st.PublishProposal(ctx, editor, p.ID, ret.LockVersion, sampleQuote(pid, gid), storeDay); !errors.Is(err, store.ErrNotProposed) {
		t.Fatalf("publishing a returned proposal: %v", err)
	}

	// Only the author edits a returned proposal; editing proposes it again.
	other := reportUser(t, st, "analyst")
	edit := sampleQuote(pid, gid)
	edit.ID, edit.LockVersion = p.ID, ret.LockVersion
	if _, err := st.UpdateProposal(ctx, other, edit, "x", nil, proposal.Quota{}, storeDay); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another analyst's edit: %v", err)
	}
	edit.Monthly = nd("1000")
	again, err := st.UpdateProposal(ctx, author, edit, "附：书面确认", nil, proposal.Quota{}, storeDay)
	if err != nil || again.State != quote.Proposed || !again.Monthly.Decimal.Equal(dec("1000")) {
		t.Fatalf("repropose: %+v %v", again, err)
	}

	pub := sampleQuote(pid, gid)
	pub.Hourly = nd("1.88")
	v2, err := st.PublishProposal(ctx, editor, p.ID, again.LockVersion, pub, storeDay)
	if err != nil {
		t.Fatal(err)
	}
	if v2.State != quote.Published || v2.Version != 2 || v2.SeriesID != p.SeriesID || v2.PredecessorID != p.ID ||
		!v2.Hourly.Decimal.Equal(dec("1.88")) || v2.PublishedAt == nil {
		t.Fatalf("published: %+v", v2)
	}
	v1, _ := st.QuoteByID(ctx, p.ID)
	if v1.State != quote.Reviewed || !v1.Hourly.Decimal.Equal(dec("1.98")) || !v1.Monthly.Decimal.Equal(dec("1000")) {
		t.Fatalf("v1 after publishing: %+v", v1)
	}
	var publishedBy int64
	if err := st.Pool().QueryRow(ctx, `SELECT published_by FROM quotes WHERE id = $1`, v2.ID).Scan(&publishedBy); err != nil || publishedBy != editor.UserID {
		t.Errorf("published_by %d, want the editor %d (%v)", publishedBy, editor.UserID, err)
	}
	if notices(t, st)[[2]int64{author.UserID, v2.ID}] != string(notify.QuotePublished) {
		t.Errorf("author not told of the publication")
	}
	reviews, err := st.QuoteReviews(ctx, p.SeriesID)
	if err != nil || len(reviews) != 2 || reviews[0].Decision != "published" || reviews[0].PublishedID != v2.ID ||
		reviews[1].Decision != "returned" || reviews[1].Comment != "月价请附书面确认" {
		t.Fatalf("reviews: %+v %v", reviews, err)
	}
	vers, _ := st.QuoteVersions(ctx, p.SeriesID)
	if len(vers) != 2 || vers[0].State != quote.Published || vers[1].State != quote.Reviewed {
		t.Errorf("history: %+v", vers)
	}
	// The market (quote list) holds the published version only.
	list, _, err := st.Quotes(ctx, store.QuoteFilter{States: quote.MarketStates})
	if err != nil || len(list) != 1 || list[0].ID != v2.ID {
		t.Errorf("market list: %+v %v", list, err)
	}
	// The report's recompute picks the published version of the series.
	cur, err := st.CurrentQuoteVersions(ctx, []int64{p.SeriesID})
	if err != nil || cur[p.SeriesID] != v2.ID {
		t.Errorf("current versions: %v %v", cur, err)
	}
}

// TestProposedQuotesAreImmutable: the database itself refuses to change a
// proposed or reviewed row's prices or lines, or to delete a proposal, on
// every path the serving role has (docs/RULES.md §18.1).
func TestProposedQuotesAreImmutable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid := marketFixture(t, st)
	author := reportUser(t, st, "analyst")
	p, err := st.CreateProposal(ctx, author, sampleQuote(pid, gid), "msg", nil, proposal.Quota{}, storeDay)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what, sql string) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, sql, p.ID); err == nil {
			t.Errorf("%s was allowed", what)
		}
	}
	refused("price change of a proposed quote", `UPDATE quotes SET hourly = 0.01 WHERE id = $1`)
	refused("line change of a proposed quote", `UPDATE quote_lines SET note = 'x' WHERE quote_id = $1`)
	refused("line added to a proposed quote", `INSERT INTO quote_lines (quote_id, item, status) VALUES ($1, 'image', 'unconfirmed')`)
	refused("deleting a proposal", `DELETE FROM quotes WHERE id = $1`)
	refused("changing the vendor's message", `UPDATE quote_messages SET body = 'x' WHERE quote_id = $1`)
	if _, err := st.PublishProposal(ctx, user.Actor{UserID: reportUser(t, st, "editor").UserID}, p.ID, p.LockVersion, sampleQuote(pid, gid), storeDay); err != nil {
		t.Fatal(err)
	}
	refused("price change of a reviewed quote", `UPDATE quotes SET monthly = 1 WHERE id = $1`)
	refused("reviewed back to proposed", `UPDATE quotes SET state = 'proposed' WHERE id = $1`)
	refused("line change of a reviewed quote", `DELETE FROM quote_lines WHERE quote_id = $1`)
	refused("rewriting a decision", `UPDATE quote_reviews SET comment = 'x' WHERE quote_id = $1`)
}

// TestQuoteAttachmentAccessByRole: the vendor's file of a proposal is read
// by its author, editors and admins only, and by everyone signed in once
// published (through the published version and the proposal alike for
// those who may read it); everyone else, and nobody signed in, gets
// ErrNotFound (docs/RULES.md §18.1).
func TestQuoteAttachmentAccessByRole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid := marketFixture(t, st)
	author := reportUser(t, st, "analyst")
	users := map[string]user.Actor{"author": author, "analyst": reportUser(t, st, "analyst"),
		"finance": reportUser(t, st, "finance"), "editor": reportUser(t, st, "editor"), "admin": reportUser(t, st, "admin")}
	roles := map[string]string{"author": "analyst", "analyst": "analyst", "finance": "finance", "editor": "editor", "admin": "admin"}
	p, err := st.CreateProposal(ctx, author, sampleQuote(pid, gid), "msg",
		&store.NewAttachment{Filename: "q.pdf", ContentType: "application/pdf", Data: testPDF}, proposal.Quota{}, storeDay)
	if err != nil {
		t.Fatal(err)
	}
	atts, _ := st.QuoteAttachments(ctx, p.SeriesID)
	att := atts[0].ID
	check := func(stage string, quoteID int64, want map[string]bool) {
		t.Helper()
		for who, ok := range want {
			got, err := st.QuoteAttachment(ctx, quoteID, att, users[who].UserID, roles[who])
			switch {
			case ok && (err != nil || string(got.Data) != string(testPDF) || got.ContentType != "application/pdf"):
				t.Errorf("%s: %s should read it: %v", stage, who, err)
			case !ok && !errors.Is(err, store.ErrNotFound):
				t.Errorf("%s: %s should get ErrNotFound, got %v", stage, who, err)
			}
		}
		if _, err := st.QuoteAttachment(ctx, quoteID, att, 0, ""); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: nobody signed in: %v", stage, err)
		}
	}
	check("proposed", p.ID, map[string]bool{"author": true, "analyst": false, "finance": false, "editor": true, "admin": true})
	v2, err := st.PublishProposal(ctx, users["editor"], p.ID, p.LockVersion, sampleQuote(pid, gid), storeDay)
	if err != nil {
		t.Fatal(err)
	}
	check("published", v2.ID, map[string]bool{"author": true, "analyst": true, "finance": true, "editor": true, "admin": true})
	check("the reviewed proposal", p.ID, map[string]bool{"author": true, "analyst": false, "finance": false, "editor": true, "admin": true})
	// An attachment of another series is not reached through this quote.
	other, _ := st.CreateProposal(ctx, author, sampleQuote(pid, gid), "msg", nil, proposal.Quota{}, storeDay)
	if _, err := st.QuoteAttachment(ctx, other.ID, att, author.UserID, "analyst"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("attachment through another series: %v", err)
	}
}

// TestWithdrawnFileKeepsItsRecord: a vendor's file is withdrawn only from
// a returned proposal, once; its bytes go, its record and who withdrew it
// stay; and the database itself refuses, to the serving role, to change a
// file's bytes, to delete them without a withdrawal recorded, and to change
// or delete a withdrawal (docs/RULES.md §18.1).
func TestWithdrawnFileKeepsItsRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid := marketFixture(t, st)
	author := reportUser(t, st, "analyst")
	editor := reportUser(t, st, "editor")
	p, err := st.CreateProposal(ctx, author, sampleQuote(pid, gid), "msg",
		&store.NewAttachment{Filename: "q.pdf", ContentType: "application/pdf", Data: testPDF}, proposal.Quota{}, storeDay)
	if err != nil {
		t.Fatal(err)
	}
	atts, _ := st.QuoteAttachments(ctx, p.SeriesID)
	att := atts[0].ID
	refused := func(what, sql string) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, sql, att); err == nil {
			t.Errorf("%s was allowed", what)
		}
	}
	refused("changing a file's bytes", `UPDATE quote_attachment_data SET data = 'x' WHERE attachment_id = $1`)
	refused("deleting a file's bytes with no withdrawal", `DELETE FROM quote_attachment_data WHERE attachment_id = $1`)
	if err := st.WithdrawAttachment(ctx, editor, p.ID, att, storeDay); !errors.Is(err, store.ErrNotWithdrawable) {
		t.Errorf("withdrawing from a proposal waiting for review: %v", err)
	}
	other, _ := st.CreateProposal(ctx, author, sampleQuote(pid, gid), "msg", nil, proposal.Quota{}, storeDay)
	if err := st.WithdrawAttachment(ctx, editor, other.ID, att, storeDay); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("withdrawing through another offer: %v", err)
	}
	if err := st.ReturnProposal(ctx, editor, p.ID, p.LockVersion, "wrong file", storeDay); err != nil {
		t.Fatal(err)
	}
	if err := st.WithdrawAttachment(ctx, editor, p.ID, att, storeDay.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := st.WithdrawAttachment(ctx, editor, p.ID, att, storeDay); !errors.Is(err, store.ErrNotWithdrawable) {
		t.Errorf("withdrawing twice: %v", err)
	}
	atts, _ = st.QuoteAttachments(ctx, p.SeriesID)
	if len(atts) != 1 || atts[0].WithdrawnAt == nil || !atts[0].WithdrawnAt.Equal(storeDay.Add(time.Hour)) || atts[0].WithdrawnBy != "用户 editor" ||
		atts[0].Filename != "q.pdf" || atts[0].Size != len(testPDF) {
		t.Errorf("the withdrawn file's record: %+v", atts)
	}
	if _, err := st.QuoteAttachment(ctx, p.ID, att, author.UserID, "analyst"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("reading a withdrawn file: %v", err)
	}
	refused("adding bytes to a withdrawn file", `INSERT INTO quote_attachment_data (attachment_id, data) VALUES ($1, '%PDF-')`)
	refused("changing a withdrawal", `UPDATE quote_attachment_withdrawals SET withdrawn_at = now() WHERE attachment_id = $1`)
	refused("deleting a withdrawal", `DELETE FROM quote_attachment_withdrawals WHERE attachment_id = $1`)
}

// TestProposalQuotaCountsOneAtATime: two proposals of one person at once,
// with one left in their hour, store exactly one (the author's row is
// locked while counting); the other is a RateError and stores nothing
// (docs/RULES.md §18.1).
func TestProposalQuotaCountsOneAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid := marketFixture(t, st)
	author := reportUser(t, st, "analyst")
	quota := proposal.Quota{PerHour: 1}
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := st.CreateProposal(ctx, author, sampleQuote(pid, gid), "msg", nil, quota, storeDay)
			errs <- err
		}()
	}
	var ok, rate int
	for range 2 {
		var re *proposal.RateError
		switch err := <-errs; {
		case err == nil:
			ok++
		case errors.As(err, &re):
			rate++
		default:
			t.Fatal(err)
		}
	}
	if ok != 1 || rate != 1 || count(t, st, "quote_messages") != 1 {
		t.Errorf("%d stored, %d refused, %d messages; want one of each", ok, rate, count(t, st, "quote_messages"))
	}
}
