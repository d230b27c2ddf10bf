package store

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/notify"
)

// Mail turns mail on for a store (docs/RULES.md §18.4): serve sets it when
// GPUQUOTE_SMTP_URL is set, before it serves. With it, every notice added
// in a write's transaction (notifyUsers, notifyRoles) also puts its mail
// in mail_queue in that transaction; without it (the default, and every
// test that does not set it) nothing is queued.
type Mail struct {
	// Render writes a notice's mail to the user named: subject and body,
	// rendered once, when it is queued.
	Render func(it notify.Item, recipientName string) (subject, body string)
	// RenderDigest writes a daily digest to the user named: the notices
	// listed, oldest first, and how many more it holds unlisted.
	RenderDigest func(items []notify.Item, more int, recipientName string) (subject, body string)
}

// SetMail turns mail on (m non-nil) or off (nil). Call it before the store
// serves requests: it is read without a lock.
func (s *Store) SetMail(m *Mail) { s.mail = m }

// mailTx is a transaction of a store that has mail on: the notices added
// in it know to queue their mail.
type mailTx struct {
	pgx.Tx
	mail *Mail
}

// txFor hands InTx's callers their transaction, marked when mail is on.
func (s *Store) txFor(tx pgx.Tx) pgx.Tx {
	if s.mail == nil {
		return tx
	}
	return mailTx{Tx: tx, mail: s.mail}
}

// mailOf is the mail setting a notice's transaction carries (nil: off).
func mailOf(q Querier) *Mail {
	if m, ok := q.(mailTx); ok {
		return m.mail
	}
	return nil
}

// queueMail puts the mail of the notices ids in mail_queue, in the
// caller's transaction, due at once (docs/RULES.md §18.4), as each
// recipient chose: a mail of its own, a place in the recipient's next daily
// digest, or nothing. A notice whose recipient has been disabled since is
// not mailed.
func queueMail(ctx context.Context, q Querier, m *Mail, at time.Time, ids []int64) error {
	if m == nil || len(ids) == 0 {
		return nil
	}
	rows, err := q.Query(ctx, `SELECT `+notificationColumns+`, u.email, u.display_name, u.mail_choice`+notificationFrom+`
		JOIN users u ON u.id = n.user_id
		WHERE n.id = ANY($1) AND NOT u.disabled AND u.mail_choice <> $2 ORDER BY n.id`, ids, notify.MailNone)
	if err != nil {
		return fmt.Errorf("queue mail: %w", err)
	}
	type mailRow struct {
		id, userID    int64
		daily         bool
		to, sub, body string
	}
	mails, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (mailRow, error) {
		var to, name, choice string
		it, err := scanNotification(r, &to, &name, &choice)
		if err != nil {
			return mailRow{}, err
		}
		if choice == notify.MailDaily {
			return mailRow{id: it.ID, userID: it.UserID, daily: true}, nil
		}
		sub, body := m.Render(it, name)
		return mailRow{id: it.ID, to: to, sub: sub, body: body}, nil
	})
	if err != nil {
		return fmt.Errorf("queue mail: %w", err)
	}
	for _, ml := range mails {
		if ml.daily {
			if _, err := q.Exec(ctx, `INSERT INTO mail_digest_notices (notification_id, user_id, created_at) VALUES ($1, $2, $3)`,
				ml.id, ml.userID, at); err != nil {
				return fmt.Errorf("queue mail: %w", err)
			}
			continue
		}
		if _, err := q.Exec(ctx, `INSERT INTO mail_queue (notification_id, recipient, subject, body, next_attempt_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $5)`, ml.id, ml.to, ml.sub, ml.body, at); err != nil {
			return fmt.Errorf("queue mail: %w", err)
		}
	}
	return nil
}

// mailBodyMax is the longest body mail_queue holds (characters).
const mailBodyMax = 20000

// BuildDigests queues today's digest of every user who chose the daily
// digest and has notices waiting from before today (docs/RULES.md §18.4):
// one mail per user and day, holding every such notice, the first
// notify.DigestListed of them listed. Each user's digest is built in a
// transaction of its own; the unique (user, day) index makes a second
// process's digest of the same user and day wait for the first and then
// add nothing, so a digest is never built twice. It says how many digests
// it queued. With mail off it does nothing.
func (s *Store) BuildDigests(ctx context.Context, now time.Time) (int, error) {
	m := s.mail
	if m == nil || m.RenderDigest == nil {
		return 0, nil
	}
	day := notify.DigestDay(now)
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT d.user_id FROM mail_digest_notices d
		JOIN users u ON u.id = d.user_id
		WHERE d.mail_id IS NULL AND d.created_at < $1 AND NOT u.disabled AND u.mail_choice = $2
		  AND NOT EXISTS (SELECT 1 FROM mail_queue mq WHERE mq.digest_user_id = d.user_id AND mq.digest_day = $1::date)
		ORDER BY d.user_id`, day, notify.MailDaily)
	if err != nil {
		return 0, fmt.Errorf("build digests: %w", err)
	}
	users, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, fmt.Errorf("build digests: %w", err)
	}
	built := 0
	for _, uid := range users {
		if ctx.Err() != nil {
			return built, ctx.Err()
		}
		ok, err := s.buildDigest(ctx, m, uid, day, now)
		if err != nil {
			return built, err
		}
		if ok {
			built++
		}
	}
	return built, nil
}

// buildDigest queues user uid's digest of day, unless one exists.
func (s *Store) buildDigest(ctx context.Context, m *Mail, uid int64, day, now time.Time) (bool, error) {
	built := false
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var to, name string
		err := tx.QueryRow(ctx, `SELECT email, display_name FROM users WHERE id = $1 AND NOT disabled AND mail_choice = $2`,
			uid, notify.MailDaily).Scan(&to, &name)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("build digest: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT `+notificationColumns+notificationFrom+`
			JOIN mail_digest_notices d ON d.notification_id = n.id
			WHERE d.user_id = $1 AND d.mail_id IS NULL AND d.created_at < $2
			ORDER BY n.created_at, n.id`, uid, day)
		if err != nil {
			return fmt.Errorf("build digest: %w", err)
		}
		items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (notify.Item, error) { return scanNotification(r) })
		if err != nil {
			return fmt.Errorf("build digest: %w", err)
		}
		if len(items) == 0 {
			return nil
		}
		listed := items[:min(len(items), notify.DigestListed)]
		sub, body := m.RenderDigest(listed, len(items)-len(listed), name)
		// The queue holds bodies of at most mailBodyMax characters: long
		// titles list fewer notices, the rest counted.
		for utf8.RuneCountInString(body) > mailBodyMax && len(listed) > 0 {
			listed = listed[:len(listed)/2]
			sub, body = m.RenderDigest(listed, len(items)-len(listed), name)
		}
		var mailID int64
		err = tx.QueryRow(ctx, `INSERT INTO mail_queue (recipient, subject, body, next_attempt_at, created_at, digest_user_id, digest_day)
			VALUES ($1, $2, $3, $4, $4, $5, $6::date)
			ON CONFLICT (digest_user_id, digest_day) WHERE digest_user_id IS NOT NULL DO NOTHING RETURNING id`,
			to, sub, body, now, uid, day).Scan(&mailID)
		if errors.Is(err, pgx.ErrNoRows) {
			// Another process built this day's digest first; the notices
			// it did not take wait for tomorrow's.
			return nil
		}
		if err != nil {
			return fmt.Errorf("build digest: %w", err)
		}
		ids := make([]int64, len(items))
		for i, it := range items {
			ids[i] = it.ID
		}
		if _, err := tx.Exec(ctx, `UPDATE mail_digest_notices SET mail_id = $2 WHERE notification_id = ANY($1) AND mail_id IS NULL`,
			ids, mailID); err != nil {
			return fmt.Errorf("build digest: %w", err)
		}
		built = true
		return nil
	})
	return built, err
}

// DigestNotices returns the ids of the notices digest mail mailID holds,
// oldest first.
func (s *Store) DigestNotices(ctx context.Context, mailID int64) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT notification_id FROM mail_digest_notices WHERE mail_id = $1 ORDER BY notification_id`, mailID)
	if err != nil {
		return nil, fmt.Errorf("digest notices: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("digest notices: %w", err)
	}
	return ids, nil
}

// QueuedMail is one row of mail_queue (notify.QueuedMail).
type QueuedMail = notify.QueuedMail

// MailOutcome is what one try at the next due mail did.
type MailOutcome int

// The outcomes of SendNextMail.
const (
	// MailNone: no mail was due (or every due one is being sent by
	// another process).
	MailNone MailOutcome = iota
	MailSent
	// MailRetry: the try failed and another is planned.
	MailRetry
	// MailFailed: the try failed and it was the last one.
	MailFailed
)

// MailBackoff says, for a mail that failed its attempts-th try, when to try
// again, or giveUp.
type MailBackoff func(m QueuedMail, attempts int, now time.Time) (next time.Time, giveUp bool)

// SendNextMail takes the oldest due mail that no other process holds
// (FOR UPDATE SKIP LOCKED, docs/RULES.md §18.4), calls send with it while
// holding its row, and records the outcome in the same transaction: sent
// at now, or the try counted with its error and the next try's time from
// retry (or given up). A failure to record rolls back, and the mail stays
// due.
func (s *Store) SendNextMail(ctx context.Context, now time.Time, send func(QueuedMail) error, retry MailBackoff) (MailOutcome, error) {
	out := MailNone
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var m QueuedMail
		err := tx.QueryRow(ctx, `SELECT id, recipient, subject, body, attempts, next_attempt_at, created_at FROM mail_queue
			WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $1
			ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`, now).
			Scan(&m.ID, &m.Recipient, &m.Subject, &m.Body, &m.Attempts, &m.NextAttemptAt, &m.CreatedAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("next mail: %w", err)
		}
		sendErr := send(m)
		if sendErr == nil {
			out = MailSent
			_, err = tx.Exec(ctx, `UPDATE mail_queue SET sent_at = $2, attempts = attempts + 1, last_error = '' WHERE id = $1`, m.ID, now)
			return err
		}
		msg := []rune(sendErr.Error())
		if len(msg) > 1000 {
			msg = msg[:1000]
		}
		next, giveUp := retry(m, m.Attempts+1, now)
		if giveUp {
			out = MailFailed
			_, err = tx.Exec(ctx, `UPDATE mail_queue SET failed_at = $2, attempts = attempts + 1, last_error = $3 WHERE id = $1`,
				m.ID, now, string(msg))
			return err
		}
		out = MailRetry
		_, err = tx.Exec(ctx, `UPDATE mail_queue SET next_attempt_at = $2, attempts = attempts + 1, last_error = $3 WHERE id = $1`,
			m.ID, next, string(msg))
		return err
	})
	if err != nil {
		return MailNone, err
	}
	return out, nil
}

// MailWaiting counts the mail neither sent nor given up.
func (s *Store) MailWaiting(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM mail_queue WHERE sent_at IS NULL AND failed_at IS NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("mail waiting: %w", err)
	}
	return n, nil
}

// MailQueue returns the newest mails, at most limit (1–200), all or only
// those not sent (waiting or given up), for the admin's page.
func (s *Store) MailQueue(ctx context.Context, unsentOnly bool, limit int) ([]QueuedMail, error) {
	_, limit = pageWindow(0, limit)
	rows, err := s.pool.Query(ctx, `SELECT id, recipient, subject, body, attempts, next_attempt_at, sent_at, failed_at, last_error, created_at
		FROM mail_queue WHERE NOT $1 OR sent_at IS NULL ORDER BY id DESC LIMIT $2`, unsentOnly, limit)
	if err != nil {
		return nil, fmt.Errorf("mail queue: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (QueuedMail, error) {
		var m QueuedMail
		err := r.Scan(&m.ID, &m.Recipient, &m.Subject, &m.Body, &m.Attempts, &m.NextAttemptAt, &m.SentAt, &m.FailedAt, &m.LastError, &m.CreatedAt)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("mail queue: %w", err)
	}
	return out, nil
}
