package main

import (
	"context"
	"testing"
	"time"

	"gpuquote/internal/i18n"
	"gpuquote/internal/mail"
	"gpuquote/internal/report"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestServeSendsQueuedMail runs `serve` with GPUQUOTE_SMTP_URL naming a
// local SMTP sink: the mail of a report submitted while it was starting is
// sent by its sender, once, and marked sent (docs/RULES.md §18.4). Mail is
// queued by a store with mail on, as serve's own requests queue it.
func TestServeSendsQueuedMail(t *testing.T) {
	ctx := context.Background()
	_, appURL := testutil.DB(t)
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	st := testutil.Open(t, appURL)
	st.SetMail(&store.Mail{Render: mail.Renderer{Catalog: cat, BaseURL: "http://gpuquote.example.test"}.Render})
	now := time.Now().UTC()
	newUser := func(role string) user.Actor {
		email := role + "-" + now.Format("150405.000000") + "@example.test"
		u, err := st.CreateUser(ctx, user.SystemActor, user.NewAccount{Email: email, DisplayName: role, Role: role, PasswordHash: "x"})
		if err != nil {
			t.Fatal(err)
		}
		return user.Actor{UserID: u.ID, Email: email}
	}
	author, fin := newUser("analyst"), newUser("finance")
	r, err := st.CreateReport(ctx, author, now, report.NewReport{Title: "推理服务", Snapshot: []byte(`{"version": 1}`), SnapshotVersion: 1,
		RulesVersion: "2026.1", FiguresDate: now, ReportCurrency: "CNY", QuoteCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SubmitReport(ctx, author, now, r.ID); err != nil {
		t.Fatal(err)
	}

	sink := testutil.NewSMTPSink(t)
	serve := startServe(t, appURL, "GPUQUOTE_SMTP_URL="+sink.URL())

	// The sender's first pass runs as serve starts; wait for it, at most
	// 30 s, checking every 100 ms.
	var msgs []testutil.SMTPMessage
	for i := 0; i < 300; i++ {
		if msgs = sink.Messages(); len(msgs) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(msgs) != 1 || len(msgs[0].To) != 1 || msgs[0].To[0] != fin.Email {
		t.Fatalf("messages %+v, want one to %s\n%s", msgs, fin.Email, serve.stderr.String())
	}
	var sent bool
	for i := 0; i < 100 && !sent; i++ {
		if err := st.Pool().QueryRow(ctx, `SELECT bool_and(sent_at IS NOT NULL) FROM mail_queue`).Scan(&sent); err != nil {
			t.Fatal(err)
		}
		if !sent {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !sent {
		t.Errorf("the mail arrived but its row is not marked sent")
	}
	if got := len(sink.Messages()); got != 1 {
		t.Errorf("%d messages, want 1", got)
	}
}
