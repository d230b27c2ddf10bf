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
	"gpuquote/internal/notify"
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

// TestMailChoices: each finance user is told of a submitted report as
// they chose (docs/RULES.md §18.4): one mail per notice, nothing, or one
// digest the next UTC day holding every notice of the days before — built
// once even when a second process builds the same day's digests at the
// same time, and sent like any other mail.
func TestMailChoices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := testutil.DB(t)
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	renderer := gqmail.Renderer{Catalog: cat, BaseURL: site}
	st2 := mailStore(t, url)
	st2.SetMail(&store.Mail{Render: renderer.Render, RenderDigest: renderer.RenderDigest})
	// st1 renders digests like serve, but the first time it does — inside
	// its transaction, before its digest is queued — the other process
	// builds the same day's digests to the end.
	st1 := testutil.Open(t, url)
	var other sync.Once
	var otherBuilt int
	var otherErr error
	st1.SetMail(&store.Mail{Render: renderer.Render, RenderDigest: func(items []notify.Item, more int, name string) (string, string) {
		other.Do(func() { otherBuilt, otherErr = st2.BuildDigests(ctx, day.Add(17*time.Hour)) })
		return renderer.RenderDigest(items, more, name)
	}})

	author := newUser(t, st1, "analyst", "李雷")
	each := newUser(t, st1, "finance", "每封")
	daily := newUser(t, st1, "finance", "摘要")
	none := newUser(t, st1, "finance", "不要")
	for u, choice := range map[user.Actor]string{daily: notify.MailDaily, none: notify.MailNone} {
		if err := st1.SetMailChoice(ctx, u, u.UserID, choice); err != nil {
			t.Fatal(err)
		}
	}
	r1 := submit(t, st1, author, "第一份")
	r2 := submit(t, st1, author, "第二份")

	var perNotice, waiting, noticesOfNone int
	if err := st1.Pool().QueryRow(ctx, `SELECT
		(SELECT count(*) FROM mail_queue WHERE recipient = $1),
		(SELECT count(*) FROM mail_queue),
		(SELECT count(*) FROM mail_digest_notices WHERE user_id = $2 AND mail_id IS NULL),
		(SELECT count(*) FROM notifications WHERE user_id = $3)`, each.Email, daily.UserID, none.UserID).
		Scan(&perNotice, new(int), &waiting, &noticesOfNone); err != nil {
		t.Fatal(err)
	}
	var all int
	_ = st1.Pool().QueryRow(ctx, `SELECT count(*) FROM mail_queue`).Scan(&all)
	if perNotice != 2 || all != 2 || waiting != 2 || noticesOfNone != 2 {
		t.Fatalf("after two submissions: %d mails to 'each' (%d in all), %d notices waiting for the digest, %d notices of 'none'; want 2, 2, 2, 2",
			perNotice, all, waiting, noticesOfNone)
	}

	// The same UTC day: nothing is due yet.
	if n, err := st1.BuildDigests(ctx, day.Add(15*time.Hour)); err != nil || n != 0 {
		t.Fatalf("digests on the notices' own day: %d, %v", n, err)
	}
	// The next day (00:30 UTC, 08:30 in China): one digest, built by the
	// other process while this one was rendering its own.
	n, err := st1.BuildDigests(ctx, day.Add(16*time.Hour+30*time.Minute))
	if err != nil || otherErr != nil || n+otherBuilt != 1 || otherBuilt != 1 {
		t.Fatalf("digests the next day: this process %d (%v), the other %d (%v); want exactly one, the other's", n, err, otherBuilt, otherErr)
	}
	var digestID int64
	var digests int
	if err := st1.Pool().QueryRow(ctx, `SELECT max(id), count(*) FROM mail_queue WHERE digest_user_id = $1`, daily.UserID).
		Scan(&digestID, &digests); err != nil || digests != 1 {
		t.Fatalf("%d digests for the user (%v), want 1", digests, err)
	}
	held, err := st1.DigestNotices(ctx, digestID)
	if err != nil || len(held) != 2 {
		t.Fatalf("the digest holds %v (%v), want both notices", held, err)
	}
	if n, err := st1.BuildDigests(ctx, day.Add(20*time.Hour)); err != nil || n != 0 {
		t.Fatalf("a second pass the same day built %d (%v)", n, err)
	}

	sink := testutil.NewSMTPSink(t)
	clock := testutil.NewClock(day.Add(17 * time.Hour))
	if p, err := sender(t, st1, sink, clock).SendDue(ctx); err != nil || p.Sent != 3 {
		t.Fatalf("send: %+v, %v; want 3 mails (two to 'each', one digest)", p, err)
	}
	var digest string
	for _, m := range sink.Messages() {
		if m.To[0] == none.Email {
			t.Errorf("a user who chose no mail got one")
		}
		if m.To[0] == daily.Email {
			digest = m.Data
		}
	}
	m, err := mail.ReadMessage(strings.NewReader(digest))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if subject != "【gpuquote】每日摘要：2 条新通知 / gpuquote · daily digest: 2 new notifications" {
		t.Errorf("digest subject %q", subject)
	}
	body, _ := io.ReadAll(quotedprintable.NewReader(m.Body))
	text := string(body)
	for _, r := range []report.Report{r1, r2} {
		if strings.Count(text, fmt.Sprintf("%s/reports/%d\r\n", site, r.ID)) != 2 || !strings.Contains(text, r.Number) {
			t.Errorf("the digest does not name %s with its link in both languages:\n%s", r.Number, text)
		}
	}
	if zh, en := strings.Index(text, "摘要，您好"), strings.Index(text, "Hello 摘要,"); zh < 0 || en < zh {
		t.Errorf("digest body: Chinese then English:\n%s", text)
	}

	// A third notice waits; leaving the digest drops it from the waiting
	// list (the notice stays), audited.
	submit(t, st1, author, "第三份")
	if err := st1.SetMailChoice(ctx, daily, daily.UserID, notify.MailEach); err != nil {
		t.Fatal(err)
	}
	var left, audited int
	if err := st1.Pool().QueryRow(ctx, `SELECT
		(SELECT count(*) FROM mail_digest_notices WHERE user_id = $1 AND mail_id IS NULL),
		(SELECT count(*) FROM audit_log WHERE action = 'user.mail_choice' AND entity_id = $1::text)`, daily.UserID).
		Scan(&left, &audited); err != nil {
		t.Fatal(err)
	}
	if left != 0 || audited != 2 {
		t.Errorf("after leaving the digest: %d notices wait, %d choices audited; want 0 and 2", left, audited)
	}
	if n, err := st1.BuildDigests(ctx, day.Add(48*time.Hour)); err != nil || n != 0 {
		t.Errorf("a digest for a user who left it: %d, %v", n, err)
	}
	if err := st1.SetMailChoice(ctx, daily, daily.UserID, "weekly"); err == nil {
		t.Errorf("an unknown choice was stored")
	}
}

// TestDigestListsThirty: a digest lists its first 30 notices and counts
// the rest, in both languages.
func TestDigestListsThirty(t *testing.T) {
	cat, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	items := make([]notify.Item, notify.DigestListed)
	for i := range items {
		items[i] = notify.Item{Notification: notify.Notification{ID: int64(i + 1), Kind: notify.ReportSubmitted, Entity: "report",
			EntityID: int64(100 + i), ActorName: "李雷"}, About: notify.About{ReportNumber: fmt.Sprintf("R-%03d", i), ReportTitle: "t"}}
	}
	sub, body := gqmail.Renderer{Catalog: cat, BaseURL: site}.RenderDigest(items, 5, "王")
	if !strings.Contains(sub, "35 条新通知") || !strings.Contains(sub, "35 new notifications") {
		t.Errorf("subject %q does not count all 35", sub)
	}
	if got := strings.Count(body, site+"/reports/"); got != 60 {
		t.Errorf("%d report links, want 30 per language", got)
	}
	if !strings.Contains(body, "另有 5 条未在此列出") || !strings.Contains(body, "5 more are not listed here") {
		t.Errorf("the 5 unlisted are not counted:\n%s", body)
	}
}
