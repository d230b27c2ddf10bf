package store

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/quote"
	"gpuquote/internal/user"
)

// CreatePublishedQuote stores q as version 1 of a new series and publishes
// it, in one transaction (docs/RULES.md §19.4): what an editor does on the
// pages in two steps (create the draft, publish it), audited with the same
// two entries, so a failure anywhere leaves nothing behind.
func (s *Store) CreatePublishedQuote(ctx context.Context, a user.Actor, q quote.Quote) (quote.Quote, error) {
	var out quote.Quote
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var id int64
		if err := tx.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('quotes', 'id'))`).Scan(&id); err != nil {
			return err
		}
		if err := insertDraft(ctx, tx, a, id, id, 1, 0, &q); err != nil {
			return err
		}
		draft, err := quoteByID(ctx, tx, id, false)
		if err != nil {
			return err
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: ActionQuoteCreate, Entity: "quote", EntityID: strconv.FormatInt(id, 10), After: draft}); err != nil {
			return err
		}
		out, err = publishAudited(ctx, tx, a, id, id, draft.State)
		return err
	})
	return out, err
}

// PublishQuoteVersion publishes q as the next version of the series whose
// published version is publishedID, in one transaction (docs/RULES.md
// §19.4): the same rows an editor's "edit" of a published quote leaves (a
// new version linked to it, published, the old one archived), audited as
// a new version and its publication. ErrNotFound for an unknown id;
// ErrNotDraft when publishedID is not the series' published version;
// DraftExistsError when the series has a draft in progress (one at a
// time: it is published or deleted on its page first); ErrConflict when a
// concurrent writer made that version first.
func (s *Store) PublishQuoteVersion(ctx context.Context, a user.Actor, publishedID int64, q quote.Quote) (quote.Quote, error) {
	var out quote.Quote
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		src, err := nextVersionBase(ctx, tx, publishedID)
		if err != nil {
			return err
		}
		id, err := insertNextVersion(ctx, tx, a, src.SeriesID, src.ID, &q)
		if err != nil {
			return err
		}
		draft, err := quoteByID(ctx, tx, id, false)
		if err != nil {
			return err
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: ActionQuoteNewVersion, Entity: "quote", EntityID: strconv.FormatInt(id, 10),
			After: map[string]any{"from": src.ID, "version": draft.Version, "quote": draft}}); err != nil {
			return err
		}
		out, err = publishAudited(ctx, tx, a, src.SeriesID, id, draft.State)
		return err
	})
	return out, err
}
