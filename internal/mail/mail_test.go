package mail_test

import (
	"context"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"gpuquote/internal/config"
	"gpuquote/internal/i18n"
	gqmail "gpuquote/internal/mail"
	"gpuquote/internal/report"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

const site = "https://gpuquote.example.test"

var day = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

// mailStore is a store with mail on, rendering as serve does.
func mailStore(t *testing.T, url string) *store.Store {
	t.Helper()
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	st := testutil.Open(t, url)
	st.SetMail(&store.Mail{Render: gqmail.Renderer{Catalog: cat, BaseURL: site}.Render})
	return st
}

func newUser(t *testing.T, st *store.Store, role, name string) user.Actor {
	t.Helper()
	email := fmt.Sprintf("%s-%d@example.test", role, time.Now().UnixNano())
	u, err := st.CreateUser(context.Background(), user.SystemActor, user.NewAccount{Email: email, DisplayName: name, Role: role, PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	return user.Actor{UserID: u.ID, Email: email}
}

// submit saves and submits a report as author.
func submit(t *testing.T, st *store.Store, author user.Actor, title string) report.Report {
	t.Helper()
	ctx := context.Background()
	r, err := st.CreateReport(ctx, author, day, report.NewReport{Title: title, Snapshot: []byte(`{"version": 1}`), SnapshotVersion: 1,
		RulesVersion: "2026.1", FiguresDate: day, ReportCurrency: "EUR", QuoteCount: 1, PlatformIDs: []int64{7}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SubmitReport(ctx, author, day, r.ID); err != nil {
		t.Fatal(err)
	}
	return r
}

func sender(t *testing.T, st *store.Store, sink *testutil.SMTPSink, clock *testutil.Clock) *gqmail.Sender {
	t.Helper()
	cfg, err := config.ParseSMTP(sink.URL())
	if err != nil {
		t.Fatal(err)
	}
	s := gqmail.NewSender(st, *cfg, site, clock.Now, nil)
	s.Timeout = 10 * time.Second
	return s
}

// metric reads one of the sender's counters as /metrics would.
func metric(t *testing.T, s *gqmail.Sender, name string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(s.Collectors()...)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

type row struct {
	attempts        int
	next            time.Time
	sent, failed    bool
	lastError       string
	id, notice, all int64
}

func queueRow(t *testing.T, st *store.Store) row {
	t.Helper()
	var r row
	if err := st.Pool().QueryRow(context.Background(), `SELECT id, notification_id, attempts, next_attempt_at, sent_at IS NOT NULL,
		failed_at IS NOT NULL, last_error, (SELECT count(*) FROM mail_queue) FROM mail_queue ORDER BY id LIMIT 1`).
		Scan(&r.id, &r.notice, &r.attempts, &r.next, &r.sent, &r.failed, &r.lastError, &r.all); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMailArrivesOnceAfterTheSinkComesBack: the SMTP server is down when
// a report is submitted; the try fails and is planned 30 s later; the
// server comes back, the clock passes the wait, and the mail arrives
// exactly once (docs/RULES.md §18.4).
func TestMailArrivesOnceAfterTheSinkComesBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := testutil.DB(t)
	st := mailStore(t, url)
	author := newUser(t, st, "analyst", "李雷")
	fin := newUser(t, st, "finance", "韩梅梅")
	sink := testutil.NewSMTPSink(t)
	clock := testutil.NewClock(day)
	s := sender(t, st, sink, clock)

	sink.Stop()
	r := submit(t, st, author, "训练集群")
	q := queueRow(t, st)
	if q.all != 1 || q.attempts != 0 || !q.next.Equal(day) {
		t.Fatalf("queued: %+v, want one mail due at once", q)
	}
	p, err := s.SendDue(ctx)
	if err != nil || p != (gqmail.Pass{Retried: 1}) {
		t.Fatalf("send with the server down: %+v, %v", p, err)
	}
	q = queueRow(t, st)
	if q.attempts != 1 || q.sent || !q.next.Equal(day.Add(30*time.Second)) || q.lastError == "" {
		t.Fatalf("after a failed try: %+v", q)
	}

	sink.Restart()
	if p, err := s.SendDue(ctx); err != nil || p != (gqmail.Pass{}) {
		t.Fatalf("before the wait is over: %+v, %v", p, err)
	}
	clock.Advance(30 * time.Second)
	if p, err := s.SendDue(ctx); err != nil || p != (gqmail.Pass{Sent: 1}) {
		t.Fatalf("after the wait: %+v, %v", p, err)
	}
	if p, err := s.SendDue(ctx); err != nil || p != (gqmail.Pass{}) {
		t.Fatalf("again: %+v, %v", p, err)
	}
	msgs := sink.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages arrived, want 1", len(msgs))
	}
	if msgs[0].From != "gpuquote@example.test" || len(msgs[0].To) != 1 || msgs[0].To[0] != fin.Email {
		t.Errorf("envelope %s → %v", msgs[0].From, msgs[0].To)
	}
	m, err := mail.ReadMessage(strings.NewReader(msgs[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Header.Get("Message-ID"), fmt.Sprintf("<gpuquote-mail-%d@gpuquote.example.test>", q.id); got != want {
		t.Errorf("Message-ID %q, want %q", got, want)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil || !strings.HasPrefix(subject, "【gpuquote】李雷 提交了报告 "+r.Number+"「训练集群」") ||
		!strings.HasSuffix(subject, " / 李雷 submitted report "+r.Number+" “训练集群” for approval.") {
		t.Errorf("subject %q (%v)", subject, err)
	}
	body, _ := io.ReadAll(quotedprintable.NewReader(m.Body))
	text := string(body)
	link := site + "/reports/" + fmt.Sprint(r.ID)
	zh, en := strings.Index(text, "韩梅梅，您好"), strings.Index(text, "Hello 韩梅梅,")
	if zh < 0 || en < zh || strings.Count(text, link) != 2 {
		t.Errorf("body: Chinese then English, the link twice:\n%s", text)
	}
	if got := metric(t, s, "gpuquote_mail_sent_total"); got != 1 {
		t.Errorf("sent counter %v", got)
	}
	if got := metric(t, s, "gpuquote_mail_retried_total"); got != 1 {
		t.Errorf("retried counter %v", got)
	}
}

// TestMailGivesUp: a mail that keeps failing is tried after each wait and
// given up at the first failure whose next try would come more than 48 h
// after it was queued.
func TestMailGivesUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := testutil.DB(t)
	st := mailStore(t, url)
	author := newUser(t, st, "analyst", "A")
	newUser(t, st, "finance", "F")
	sink := testutil.NewSMTPSink(t)
	sink.Stop()
	clock := testutil.NewClock(day)
	s := sender(t, st, sink, clock)
	submit(t, st, author, "x")
	tries := 0
	for range 20 {
		p, err := s.SendDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tries += p.Retried + p.Failed
		if p.Failed == 1 {
			break
		}
		clock.Advance(6 * time.Hour)
	}
	q := queueRow(t, st)
	// Tries at 0 h, 6 h, … 48 h: the ninth would wait until 54 h.
	if !q.failed || q.attempts != 9 || tries != 9 {
		t.Errorf("given up: %+v after %d tries, want failed after 9", q, tries)
	}
	clock.Advance(7 * 24 * time.Hour)
	if p, _ := s.SendDue(ctx); p != (gqmail.Pass{}) {
		t.Errorf("a given-up mail was tried again: %+v", p)
	}
	if got := metric(t, s, "gpuquote_mail_failed_total"); got != 1 {
		t.Errorf("failed counter %v", got)
	}
}

// TestRetrySchedule is the waits between tries.
func TestRetrySchedule(t *testing.T) {
	m := store.QueuedMail{CreatedAt: day}
	for _, c := range []struct {
		attempts int
		wait     time.Duration
	}{{1, 30 * time.Second}, {2, 2 * time.Minute}, {3, 10 * time.Minute}, {4, time.Hour}, {5, 6 * time.Hour}, {12, 6 * time.Hour}} {
		next, giveUp := gqmail.Retry(m, c.attempts, day)
		if giveUp || next.Sub(day) != c.wait {
			t.Errorf("after %d failures: wait %v (give up %v), want %v", c.attempts, next.Sub(day), giveUp, c.wait)
		}
	}
	if _, giveUp := gqmail.Retry(m, 9, day.Add(43*time.Hour)); !giveUp {
		t.Errorf("a try at 43 h whose next would be at 49 h is not the last")
	}
}

// TestTwoSendersSendEachMailOnce: while one sender holds a mail, another
// skips it (FOR UPDATE SKIP LOCKED); two senders on their own pools,
// racing over one queue, deliver every mail exactly once.
func TestTwoSendersSendEachMailOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := testutil.DB(t)
	st1, st2 := mailStore(t, url), mailStore(t, url)
	author := newUser(t, st1, "analyst", "A")
	for i := range 3 {
		newUser(t, st1, "finance", fmt.Sprint("F", i))
	}
	for i := range 4 {
		submit(t, st1, author, fmt.Sprint("r", i))
	}
	const mails = 12

	// Held by one, skipped by the other.
	var outer, inner int64
	out, err := st1.SendNextMail(ctx, day, func(m store.QueuedMail) error {
		outer = m.ID
		_, err := st2.SendNextMail(ctx, day, func(m2 store.QueuedMail) error { inner = m2.ID; return nil }, gqmail.Retry)
		return err
	}, gqmail.Retry)
	if err != nil || out != store.MailSent || outer == 0 || inner == 0 || inner == outer {
		t.Fatalf("nested: outer %d, inner %d, %v, %v: the held mail must be skipped", outer, inner, out, err)
	}

	sink := testutil.NewSMTPSink(t)
	clock := testutil.NewClock(day)
	s1, s2 := sender(t, st1, sink, clock), sender(t, st2, sink, clock)
	var wg sync.WaitGroup
	var sent [2]int
	for i, s := range []*gqmail.Sender{s1, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := s.SendDue(ctx)
			if err != nil {
				t.Error(err)
			}
			sent[i] = p.Sent
		}()
	}
	wg.Wait()
	msgs := sink.Messages()
	ids := map[string]int{}
	for _, m := range msgs {
		mm, err := mail.ReadMessage(strings.NewReader(m.Data))
		if err != nil {
			t.Fatal(err)
		}
		ids[mm.Header.Get("Message-ID")]++
	}
	if len(msgs) != mails-2 || len(ids) != mails-2 || sent[0]+sent[1] != mails-2 {
		t.Errorf("%d messages, %d distinct, senders counted %v; want %d each once", len(msgs), len(ids), sent, mails-2)
	}
}
