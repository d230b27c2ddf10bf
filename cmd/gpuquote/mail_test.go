package main

import (
	"context"
	"net/http"
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
// submittedReport stores, with mail on, a report submitted to a new
// finance user, whose mail then waits in the queue; it returns the store
// and finance's address.
func submittedReport(t *testing.T, appURL string) (*store.Store, string) {
	t.Helper()
	ctx := context.Background()
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

	return st, fin.Email
}

func TestServeSendsQueuedMail(t *testing.T) {
	ctx := context.Background()
	_, appURL := testutil.DB(t)
	st, finEmail := submittedReport(t, appURL)
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
	if len(msgs) != 1 || len(msgs[0].To) != 1 || msgs[0].To[0] != finEmail {
		t.Fatalf("messages %+v, want one to %s\n%s", msgs, finEmail, serve.stderr.String())
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

// TestServeWorkersOff: a serve process with GPUQUOTE_WORKERS=0 serves but
// sends nothing — the waiting mail is still unsent after its first pass
// would long have run — and a worker process beside it on the same
// database sends it, once (docs/RULES.md §20.3).
func TestServeWorkersOff(t *testing.T) {
	_, appURL := testutil.DB(t)
	st, finEmail := submittedReport(t, appURL)
	sink := testutil.NewSMTPSink(t)
	web := startServe(t, appURL, "GPUQUOTE_SMTP_URL="+sink.URL(), "GPUQUOTE_WORKERS=0")
	if r, err := http.Get(web.url + "/healthz"); err != nil || r.StatusCode != http.StatusOK {
		t.Fatalf("the web process does not serve: %v", err)
	}
	// The sender's first pass runs as serve starts: 3 s is ample for one
	// that would run.
	time.Sleep(3 * time.Second)
	if n := len(sink.Messages()); n != 0 {
		t.Fatalf("the web-only process sent %d messages\n%s", n, web.stderr.String())
	}
	worker := startServe(t, appURL, "GPUQUOTE_SMTP_URL="+sink.URL())
	var msgs []testutil.SMTPMessage
	for i := 0; i < 300 && len(msgs) == 0; i++ {
		msgs = sink.Messages()
		time.Sleep(100 * time.Millisecond)
	}
	if len(msgs) != 1 || msgs[0].To[0] != finEmail {
		t.Fatalf("messages %+v, want one to %s from the worker\n%s", msgs, finEmail, worker.stderr.String())
	}
	_ = st
}
