package store

import (
	"context"
	"errors"
	"fmt"
	"time"

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
// caller's transaction, due at once (docs/RULES.md §18.4). A notice whose
// recipient has been disabled since is not mailed.
func queueMail(ctx context.Context, q Querier, m *Mail, at time.Time, ids []int64) error {
	if m == nil || len(ids) == 0 {
		return nil
	}
	rows, err := q.Query(ctx, `SELECT `+notificationColumns+`, u.email, u.display_name`+notificationFrom+`
		JOIN users u ON u.id = n.user_id
		WHERE n.id = ANY($1) AND NOT u.disabled ORDER BY n.id`, ids)
	if err != nil {
		return fmt.Errorf("queue mail: %w", err)
	}
	type mailRow struct {
		id            int64
		to, sub, body string
	}
	mails, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (mailRow, error) {
		var to, name string
		it, err := scanNotification(r, &to, &name)
		if err != nil {
			return mailRow{}, err
		}
		sub, body := m.Render(it, name)
		return mailRow{id: it.ID, to: to, sub: sub, body: body}, nil
	})
	if err != nil {
		return fmt.Errorf("queue mail: %w", err)
	}
	for _, ml := range mails {
		if _, err := q.Exec(ctx, `INSERT INTO mail_queue (notification_id, recipient, subject, body, next_attempt_at, created_at)
			VALUES ($1, $2, $3, $4, $5, $5)`, ml.id, ml.to, ml.sub, ml.body, at); err != nil {
			return fmt.Errorf("queue mail: %w", err)
		}
	}
	return nil
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
