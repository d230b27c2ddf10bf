package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/notify"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/user"
)

// Audit actions of proposals (docs/RULES.md §18.1).
const (
	ActionQuotePropose       = "quote.propose"
	ActionQuoteRepropose     = "quote.repropose"
	ActionQuoteReviewPublish = "quote.review_publish"
	ActionQuoteReviewReturn  = "quote.review_return"
	ActionQuoteAttach        = "quote.attach"
	ActionQuoteWithdrawFile  = "quote.withdraw_file"
)

// ErrNotProposed means a review needs a proposal waiting for review, or an
// edit a returned one, and the quote is in another state.
var ErrNotProposed = errors.New("store: quote is not a proposal in that state")

// ErrNotWithdrawable means a vendor's file is withdrawn only from a
// returned proposal, once, and this one is not (docs/RULES.md §18.1).
var ErrNotWithdrawable = errors.New("store: the file is not on a returned proposal, or was withdrawn already")

// NewAttachment is a vendor's file as the server accepted it: its kept
// name, the content type decided from its bytes, and the bytes.
type NewAttachment struct {
	Filename    string
	ContentType string
	Data        []byte
}

// Attachment is a stored vendor's file (proposal.Attachment).
type Attachment = proposal.Attachment

// QuoteMessage is the vendor's message pasted with a proposal
// (proposal.Message).
type QuoteMessage = proposal.Message

// QuoteReview is an editor's decision on a proposal (proposal.Review).
type QuoteReview = proposal.Review

// ProposalRow is a proposal in the review queue or its author's list
// (proposal.Row).
type ProposalRow = proposal.Row

// addProposalWords stores the vendor's message and file of proposal id in
// the caller's transaction (docs/RULES.md §18.1), audited.
func addProposalWords(ctx context.Context, tx pgx.Tx, a user.Actor, id int64, message string, file *NewAttachment, now time.Time) error {
	if _, err := tx.Exec(ctx, `INSERT INTO quote_messages (quote_id, body, created_by, created_at) VALUES ($1, $2, $3, $4)`,
		id, strings.TrimSpace(message), nullID(a.UserID), now); err != nil {
		return fmt.Errorf("quote message: %w", err)
	}
	if file == nil {
		return nil
	}
	sum := sha256.Sum256(file.Data)
	var attID int64
	if err := tx.QueryRow(ctx, `
		INSERT INTO quote_attachments (quote_id, series_id, filename, content_type, size_bytes, sha256, created_by, created_at)
		SELECT id, series_id, $2, $3, $4, $5, $6, $7 FROM quotes WHERE id = $1
		RETURNING id`, id, file.Filename, file.ContentType, len(file.Data), hex.EncodeToString(sum[:]),
		nullID(a.UserID), now).Scan(&attID); err != nil {
		return fmt.Errorf("quote attachment: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO quote_attachment_data (attachment_id, data) VALUES ($1, $2)`, attID, file.Data); err != nil {
		return fmt.Errorf("quote attachment's bytes: %w", err)
	}
	return audit(ctx, tx, a, AuditEntry{Action: ActionQuoteAttach, Entity: "quote", EntityID: strconv.FormatInt(id, 10),
		After: map[string]any{"attachment": attID, "filename": file.Filename, "content_type": file.ContentType,
			"size": len(file.Data), "sha256": hex.EncodeToString(sum[:])}})
}

// checkQuota applies quota to a's proposal at now with file (nil: none),
// in the caller's transaction (docs/RULES.md §18.1): a *proposal.RateError
// or *proposal.StorageError when it is over. The author's row is locked
// first, so two proposals of one person at once are counted one after the
// other. Nobody signed in (the system) has no quota.
func checkQuota(ctx context.Context, tx pgx.Tx, a user.Actor, quota proposal.Quota, file *NewAttachment, now time.Time) error {
	if a.UserID == 0 || quota == (proposal.Quota{}) {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, a.UserID); err != nil {
		return fmt.Errorf("lock the proposal's author: %w", err)
	}
	var recent []time.Time
	if quota.PerHour > 0 {
		rows, err := tx.Query(ctx, `SELECT created_at FROM quote_messages WHERE created_by = $1 AND created_at > $2 AND created_at <= $3
			ORDER BY created_at`, a.UserID, now.Add(-time.Hour), now)
		if err != nil {
			return fmt.Errorf("recent proposals: %w", err)
		}
		if recent, err = pgx.CollectRows(rows, pgx.RowTo[time.Time]); err != nil {
			return fmt.Errorf("recent proposals: %w", err)
		}
	}
	var stored, adding int64
	if file != nil {
		adding = int64(len(file.Data))
	}
	if quota.Storage > 0 && adding > 0 {
		if err := tx.QueryRow(ctx, `
			SELECT coalesce(sum(a.size_bytes), 0)
			FROM quote_attachments a JOIN quotes q ON q.id = a.quote_id
			JOIN quote_attachment_data d ON d.attachment_id = a.id
			WHERE a.created_by = $1 AND q.state IN ('proposed', 'returned')`, a.UserID).Scan(&stored); err != nil {
			return fmt.Errorf("stored files: %w", err)
		}
	}
	return quota.Check(now, recent, stored, adding)
}

// CreateProposal stores q as a proposal of a new offer (version 1 of a new
// series, state proposed) by a, with the vendor's message and file, within
// a's quota (a *proposal.RateError or *proposal.StorageError otherwise,
// nothing stored); the editors are told in the same transaction
// (docs/RULES.md §18.1). The row is written as a draft and moved to
// proposed before commit, so its lines go in under the draft rule.
func (s *Store) CreateProposal(ctx context.Context, a user.Actor, q quote.Quote, message string, file *NewAttachment,
	quota proposal.Quota, now time.Time) (quote.Quote, error) {
	var out quote.Quote
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if err := checkQuota(ctx, tx, a, quota, file, now); err != nil {
			return err
		}
		var id int64
		if err := tx.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('quotes', 'id'))`).Scan(&id); err != nil {
			return err
		}
		if err := insertDraft(ctx, tx, a, id, id, 1, 0, &q); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE quotes SET state = $2 WHERE id = $1 AND state = $3`, id, quote.Propose.To, quote.Propose.From); err != nil {
			return fmt.Errorf("propose quote: %w", err)
		}
		if err := addProposalWords(ctx, tx, a, id, message, file, now); err != nil {
			return err
		}
		var err error
		if out, err = quoteByID(ctx, tx, id, false); err != nil {
			return err
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: ActionQuotePropose, Entity: "quote", EntityID: strconv.FormatInt(id, 10), After: out}); err != nil {
			return err
		}
		return notifyRoles(ctx, tx, notify.Notice{Kind: notify.QuoteProposed, EntityID: id, ActorID: a.UserID, At: now}, "editor")
	})
	return out, err
}

// UpdateProposal is the author's edit of a returned proposal, which
// proposes it again (docs/RULES.md §18.1): q.ID names it and q.LockVersion
// is the version the author loaded (ErrConflict otherwise). Another user's
// proposal answers ErrNotFound; one not returned, ErrNotProposed. A new
// message and file are added to the vendor's words, within a's quota as
// for CreateProposal.
func (s *Store) UpdateProposal(ctx context.Context, a user.Actor, q quote.Quote, message string, file *NewAttachment,
	quota proposal.Quota, now time.Time) (quote.Quote, error) {
	var out quote.Quote
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := quoteByID(ctx, tx, q.ID, true)
		if err != nil {
			return err
		}
		if !quote.IsProposal(before.State) || before.CreatedBy != a.UserID || a.UserID == 0 {
			return ErrNotFound
		}
		if before.State != quote.Repropose.From {
			return ErrNotProposed
		}
		if before.LockVersion != q.LockVersion {
			return ErrConflict
		}
		if err := checkQuota(ctx, tx, a, quota, file, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM quote_lines WHERE quote_id = $1`, q.ID); err != nil {
			return fmt.Errorf("replace proposal lines: %w", err)
		}
		if err := insertLines(ctx, tx, q.ID, q.Lines); err != nil {
			return err
		}
		args := append([]any{q.ID, nullID(a.UserID), quote.Repropose.To, quote.Repropose.From}, writableArgs(&q)...)
		if _, err := tx.Exec(ctx, `
			UPDATE quotes SET (`+quoteWritable+`) = (`+placeholders(5, len(args)-4)+`),
			       state = $3, updated_by = $2, updated_at = now(), lock_version = lock_version + 1
			WHERE id = $1 AND state = $4`, args...); err != nil {
			return fmt.Errorf("repropose quote: %w", err)
		}
		if err := addProposalWords(ctx, tx, a, q.ID, message, file, now); err != nil {
			return err
		}
		if out, err = quoteByID(ctx, tx, q.ID, false); err != nil {
			return err
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: ActionQuoteRepropose, Entity: "quote", EntityID: strconv.FormatInt(q.ID, 10),
			Before: before, After: out}); err != nil {
			return err
		}
		return notifyRoles(ctx, tx, notify.Notice{Kind: notify.QuoteProposed, EntityID: q.ID, ActorID: a.UserID, At: now}, "editor")
	})
	return out, err
}

// PublishProposal is an editor's publication of proposal id, seen at
// lockVersion, as q (the editor may have changed any field): q is written
// as the series' next version, published by a, with the proposal as its
// predecessor, and the proposal becomes reviewed (docs/RULES.md §18.1).
// The author is told in the same transaction.
func (s *Store) PublishProposal(ctx context.Context, a user.Actor, id int64, lockVersion int, q quote.Quote, now time.Time) (quote.Quote, error) {
	var out quote.Quote
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		prop, err := lockedQuote(ctx, tx, id, quote.Review.From, lockVersion, ErrNotProposed)
		if err != nil {
			return err
		}
		newID, err := insertNextVersion(ctx, tx, a, prop.SeriesID, prop.ID, &q)
		if err != nil {
			return err
		}
		if err := publishVersion(ctx, tx, a, prop.SeriesID, newID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			UPDATE quotes SET state = $3, lock_version = lock_version + 1, updated_at = now(), updated_by = $2
			WHERE id = $1 AND state = $4`, id, nullID(a.UserID), quote.Review.To, quote.Review.From); err != nil {
			return fmt.Errorf("mark proposal reviewed: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO quote_reviews (quote_id, decision, published_id, decided_by, decided_at)
			VALUES ($1, 'published', $2, $3, $4)`, id, newID, nullID(a.UserID), now); err != nil {
			return fmt.Errorf("quote review: %w", err)
		}
		if out, err = quoteByID(ctx, tx, newID, false); err != nil {
			return err
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: ActionQuoteReviewPublish, Entity: "quote", EntityID: strconv.FormatInt(id, 10),
			Before: map[string]any{"state": prop.State}, After: map[string]any{"state": quote.Reviewed, "published": out}}); err != nil {
			return err
		}
		if err := readNoticesAboutQuote(ctx, tx, a.UserID, id, now); err != nil {
			return err
		}
		return notifyUsers(ctx, tx, notify.Notice{Kind: notify.QuotePublished, EntityID: newID, ActorID: a.UserID, At: now}, prop.CreatedBy)
	})
	return out, err
}

// ReturnProposal sends proposal id (seen at lockVersion) back to its
// author with comment (docs/RULES.md §18.1); the author is told.
func (s *Store) ReturnProposal(ctx context.Context, a user.Actor, id int64, lockVersion int, comment string, now time.Time) error {
	comment = strings.TrimSpace(comment)
	return s.InTx(ctx, func(tx pgx.Tx) error {
		prop, err := lockedQuote(ctx, tx, id, quote.ReturnProposal.From, lockVersion, ErrNotProposed)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			UPDATE quotes SET state = $3, lock_version = lock_version + 1, updated_at = now(), updated_by = $2
			WHERE id = $1 AND state = $4`, id, nullID(a.UserID), quote.ReturnProposal.To, quote.ReturnProposal.From); err != nil {
			return fmt.Errorf("return proposal: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO quote_reviews (quote_id, decision, comment, decided_by, decided_at)
			VALUES ($1, 'returned', $2, $3, $4)`, id, comment, nullID(a.UserID), now); err != nil {
			return fmt.Errorf("quote review: %w", err)
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: ActionQuoteReviewReturn, Entity: "quote", EntityID: strconv.FormatInt(id, 10),
			Before: map[string]any{"state": prop.State}, After: map[string]any{"state": quote.Returned, "comment": comment}}); err != nil {
			return err
		}
		if err := readNoticesAboutQuote(ctx, tx, a.UserID, id, now); err != nil {
			return err
		}
		return notifyUsers(ctx, tx, notify.Notice{Kind: notify.QuoteReturned, EntityID: id, ActorID: a.UserID, Comment: comment, At: now},
			prop.CreatedBy)
	})
}

// QuoteFor returns quote id when the viewer (user id, role; 0 for nobody
// signed in) may read it by quote.MayRead, else ErrNotFound, so that ids
// of what one may not read do not leak (docs/RULES.md §18.1).
func (s *Store) QuoteFor(ctx context.Context, id, userID int64, role string) (quote.Quote, error) {
	q, err := s.QuoteByID(ctx, id)
	if err != nil {
		return quote.Quote{}, err
	}
	if !quote.MayRead(q, userID, role) {
		return quote.Quote{}, ErrNotFound
	}
	return q, nil
}

// QuoteAttachment returns attachment attID of the offer quote quoteID
// belongs to, with its bytes, when the viewer may read that quote version
// (quote.MayRead: published or archived, everyone signed in; a proposal,
// its author, editors and admins); anything else, including nobody signed
// in, and a file withdrawn, answers ErrNotFound (docs/RULES.md §18.1).
func (s *Store) QuoteAttachment(ctx context.Context, quoteID, attID, userID int64, role string) (Attachment, error) {
	var (
		q   quote.Quote
		att Attachment
	)
	err := s.pool.QueryRow(ctx, `
		SELECT q.state, coalesce(q.created_by, 0),
		       a.id, a.quote_id, a.series_id, a.filename, a.content_type, a.size_bytes, a.sha256, a.created_at, d.data
		FROM quotes q JOIN quote_attachments a ON a.series_id = q.series_id
		JOIN quote_attachment_data d ON d.attachment_id = a.id
		WHERE q.id = $1 AND a.id = $2`, quoteID, attID).Scan(&q.State, &q.CreatedBy,
		&att.ID, &att.QuoteID, &att.SeriesID, &att.Filename, &att.ContentType, &att.Size, &att.SHA256, &att.CreatedAt, &att.Data)
	if err != nil {
		return Attachment{}, notFound(err)
	}
	if !quote.MayRead(q, userID, role) {
		return Attachment{}, ErrNotFound
	}
	return att, nil
}

// QuoteAttachments lists the vendor's files of a series (without their
// bytes), oldest first, those withdrawn with who withdrew them and when.
func (s *Store) QuoteAttachments(ctx context.Context, seriesID int64) ([]Attachment, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT a.id, a.quote_id, a.series_id, a.filename, a.content_type, a.size_bytes, a.sha256, a.created_at,
		       w.withdrawn_at, coalesce(u.display_name, '')
		FROM quote_attachments a LEFT JOIN quote_attachment_withdrawals w ON w.attachment_id = a.id
		LEFT JOIN users u ON u.id = w.withdrawn_by
		WHERE a.series_id = $1 ORDER BY a.id`, seriesID)
	if err != nil {
		return nil, fmt.Errorf("quote attachments: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Attachment, error) {
		var a Attachment
		err := row.Scan(&a.ID, &a.QuoteID, &a.SeriesID, &a.Filename, &a.ContentType, &a.Size, &a.SHA256, &a.CreatedAt,
			&a.WithdrawnAt, &a.WithdrawnBy)
		return a, err
	})
}

// WithdrawAttachment is an editor's or admin's withdrawal of file attID of
// the offer quote quoteID belongs to (docs/RULES.md §18.1): allowed while
// the proposal the file came with is returned, once (ErrNotWithdrawable
// otherwise; a file not of that offer, ErrNotFound). Its bytes are deleted;
// its record stays, with who withdrew it and when, audited in the same
// transaction.
func (s *Store) WithdrawAttachment(ctx context.Context, a user.Actor, quoteID, attID int64, now time.Time) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var (
			att       Attachment
			state     string
			withdrawn bool
		)
		err := tx.QueryRow(ctx, `
			SELECT a.id, a.quote_id, a.filename, a.content_type, a.size_bytes, a.sha256, p.state,
			       EXISTS (SELECT 1 FROM quote_attachment_withdrawals w WHERE w.attachment_id = a.id)
			FROM quotes q JOIN quote_attachments a ON a.series_id = q.series_id JOIN quotes p ON p.id = a.quote_id
			WHERE q.id = $1 AND a.id = $2
			FOR UPDATE OF p`, quoteID, attID).Scan(&att.ID, &att.QuoteID, &att.Filename, &att.ContentType, &att.Size, &att.SHA256,
			&state, &withdrawn)
		if err != nil {
			return notFound(err)
		}
		if state != quote.Returned || withdrawn {
			return ErrNotWithdrawable
		}
		if _, err := tx.Exec(ctx, `INSERT INTO quote_attachment_withdrawals (attachment_id, withdrawn_by, withdrawn_at) VALUES ($1, $2, $3)`,
			attID, nullID(a.UserID), now); err != nil {
			return fmt.Errorf("withdraw file: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM quote_attachment_data WHERE attachment_id = $1`, attID); err != nil {
			return fmt.Errorf("delete the withdrawn file's bytes: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionQuoteWithdrawFile, Entity: "quote", EntityID: strconv.FormatInt(att.QuoteID, 10),
			Before: map[string]any{"attachment": att.ID, "filename": att.Filename, "content_type": att.ContentType,
				"size": att.Size, "sha256": att.SHA256},
			After: map[string]any{"attachment": att.ID, "withdrawn": true}})
	})
}

// QuoteMessages lists the vendor's messages of a series, newest first.
func (s *Store) QuoteMessages(ctx context.Context, seriesID int64) ([]QuoteMessage, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT m.id, m.quote_id, m.body, m.created_at
		FROM quote_messages m JOIN quotes q ON q.id = m.quote_id
		WHERE q.series_id = $1 ORDER BY m.id DESC`, seriesID)
	if err != nil {
		return nil, fmt.Errorf("quote messages: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (QuoteMessage, error) {
		var m QuoteMessage
		err := row.Scan(&m.ID, &m.QuoteID, &m.Body, &m.CreatedAt)
		return m, err
	})
}

// QuoteReviews lists the editors' decisions on a series' proposals, newest
// first, with the decider's name.
func (s *Store) QuoteReviews(ctx context.Context, seriesID int64) ([]QuoteReview, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT r.id, r.quote_id, r.decision, r.comment, coalesce(r.published_id, 0), coalesce(u.display_name, ''), r.decided_at
		FROM quote_reviews r JOIN quotes q ON q.id = r.quote_id LEFT JOIN users u ON u.id = r.decided_by
		WHERE q.series_id = $1 ORDER BY r.id DESC`, seriesID)
	if err != nil {
		return nil, fmt.Errorf("quote reviews: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (QuoteReview, error) {
		var r QuoteReview
		err := row.Scan(&r.ID, &r.QuoteID, &r.Decision, &r.Comment, &r.PublishedID, &r.DeciderName, &r.DecidedAt)
		return r, err
	})
}

// proposalRows lists proposals matching cond ($1… are args) in order,
// with the author's name, the newest returned comment and the version a
// reviewed one became, and how many match.
func (s *Store) proposalRows(ctx context.Context, cond, order string, args []any, offset, limit int) ([]ProposalRow, int, error) {
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM quotes q WHERE `+cond, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count proposals: %w", err)
	}
	n := len(args)
	args = append(args, offset, limit)
	rows, err := s.pool.Query(ctx, `SELECT `+quoteListColumns+`, coalesce(u.display_name, ''), q.created_at,
		       coalesce((SELECT r.comment FROM quote_reviews r WHERE r.quote_id = q.id AND r.decision = 'returned' ORDER BY r.id DESC LIMIT 1), ''),
		       coalesce((SELECT r.published_id FROM quote_reviews r WHERE r.quote_id = q.id AND r.decision = 'published' ORDER BY r.id DESC LIMIT 1), 0)
		FROM quotes q JOIN platforms p ON p.id = q.platform_id JOIN gpu_models g ON g.id = q.gpu_model_id
		LEFT JOIN users u ON u.id = q.created_by
		WHERE `+cond+` ORDER BY `+order+` OFFSET $`+strconv.Itoa(n+1)+` LIMIT $`+strconv.Itoa(n+2), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("proposals: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ProposalRow, error) {
		var (
			r ProposalRow
			q = &r.Quote
		)
		err := row.Scan(&q.ID, &q.SeriesID, &q.Version, &q.State, &q.PlatformID, &q.GPUModelID, &q.Label, &q.GPUCount,
			&q.VRAMGB, &q.Sharing, &q.Region, &q.Currency, &q.Hourly, &q.Monthly, &q.Yearly, &q.SpotHourly, &q.AsOf,
			&q.PlatformNameZH, &q.PlatformNameEN, &q.GPUVendor, &q.GPUName, &r.AuthorName, &r.CreatedAt, &r.LastComment, &r.PublishedID)
		return r, err
	})
	return out, total, err
}

// ProposalQueue lists the proposals waiting for review, oldest first.
func (s *Store) ProposalQueue(ctx context.Context, offset, limit int) ([]ProposalRow, int, error) {
	return s.proposalRows(ctx, `q.state = 'proposed'`, `q.created_at, q.id`, nil, offset, limit)
}

// ProposalsBy lists userID's proposals in every proposal state, newest
// first.
func (s *Store) ProposalsBy(ctx context.Context, userID int64, offset, limit int) ([]ProposalRow, int, error) {
	return s.proposalRows(ctx, `q.created_by = $1 AND q.state IN ('proposed', 'returned', 'reviewed')`, `q.created_at DESC, q.id DESC`,
		[]any{userID}, offset, limit)
}

// OpenProposalsBy lists userID's proposals still open (proposed or
// returned), newest first, at most limit: the compare page offers them as
// candidates to their author (docs/RULES.md §18.1).
func (s *Store) OpenProposalsBy(ctx context.Context, userID int64, limit int) ([]quote.Quote, error) {
	rows, _, err := s.proposalRows(ctx, `q.created_by = $1 AND q.state IN ('proposed', 'returned')`, `q.created_at DESC, q.id DESC`,
		[]any{userID}, 0, limit)
	out := make([]quote.Quote, len(rows))
	for i, r := range rows {
		out[i] = r.Quote
	}
	return out, err
}
