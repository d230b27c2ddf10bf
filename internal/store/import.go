package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"gpuquote/internal/quote"
	"gpuquote/internal/user"
)

// importQuoteColumns are the quotes columns a bulk import writes: the ids
// and authors, then the same writable columns as a draft save, in the
// order of writableArgs.
var importQuoteColumns = func() []string {
	cols := []string{"id", "series_id", "version", "created_by", "updated_by"}
	for _, f := range quote.Fields {
		cols = append(cols, f.Column)
	}
	return cols
}()

var importLineColumns = []string{"quote_id", "item", "status", "unit", "unit_price", "free_allowance", "note", "in_writing"}

// ImportQuotes stores every quote as version 1 of a new series and
// publishes it, all or nothing: one transaction, so a failure on any quote
// leaves quotes, lines and the audit log as they were. It returns the new
// ids in the order of quotes.
//
// It is built for thousands of rows: the ids come from the sequence in one
// query, quotes and lines go in with COPY (as drafts, since lines may only
// be added to a draft), and one UPDATE publishes them all. One audit entry
// records the import.
func (s *Store) ImportQuotes(ctx context.Context, a user.Actor, quotes []quote.Quote) ([]int64, error) {
	if len(quotes) == 0 {
		return nil, nil
	}
	ids := make([]int64, 0, len(quotes))
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT nextval(pg_get_serial_sequence('quotes', 'id')) FROM generate_series(1, $1)`, len(quotes))
		if err != nil {
			return fmt.Errorf("import: quote ids: %w", err)
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return fmt.Errorf("import: quote ids: %w", err)
		}
		author := nullID(a.UserID)
		nLines := 0
		for i := range quotes {
			nLines += len(quotes[i].Lines)
		}
		quoteRows := make([][]any, len(quotes))
		lineRows := make([][]any, 0, nLines)
		for i := range quotes {
			q := &quotes[i]
			quoteRows[i] = copyQuoteRow(q, ids[i], ids[i], 1, author, author)
			lineRows = appendCopyLines(lineRows, ids[i], q.Lines)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"quotes"}, importQuoteColumns, pgx.CopyFromRows(quoteRows)); err != nil {
			return fmt.Errorf("import: quotes: %w", err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"quote_lines"}, importLineColumns, pgx.CopyFromRows(lineRows)); err != nil {
			return fmt.Errorf("import: quote lines: %w", err)
		}
		tag, err := tx.Exec(ctx, `
			UPDATE quotes SET state = $3, published_at = now(), published_by = $2, lock_version = lock_version + 1
			WHERE id = ANY($1) AND state = $4`, ids, author, quote.Publish.To, quote.Publish.From)
		if err != nil {
			return fmt.Errorf("import: publish: %w", err)
		}
		if int(tag.RowsAffected()) != len(ids) {
			return fmt.Errorf("import: published %d of %d quotes", tag.RowsAffected(), len(ids))
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionQuoteImport, Entity: "quote",
			After: map[string]any{"count": len(ids), "ids": ids}})
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// numeric is d as pgx's own numeric type: the same exact coefficient and
// exponent, which COPY's binary format encodes directly. (A decimal passed
// as is goes through driver.Valuer and a text round trip per value,
// which costs more than the rest of a bulk import together.)
func numeric(d decimal.Decimal, valid bool) pgtype.Numeric {
	if !valid {
		return pgtype.Numeric{}
	}
	return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
}

// copyValue converts the decimals among a row's values for COPY.
func copyValue(v any) any {
	switch d := v.(type) {
	case decimal.Decimal:
		return numeric(d, true)
	case decimal.NullDecimal:
		return numeric(d.Decimal, d.Valid)
	}
	return v
}

// copyQuoteRow is quote q's row for COPY: the head values, then its
// writable columns, each as COPY takes it.
func copyQuoteRow(q *quote.Quote, head ...any) []any {
	row := append(head, writableArgs(q)...)
	for j, v := range row {
		row[j] = copyValue(v)
	}
	return row
}

// appendCopyLines appends the rows of quote id's lines for COPY.
func appendCopyLines(rows [][]any, id int64, lines []quote.Line) [][]any {
	for _, l := range lines {
		var unit *string
		if l.Unit != "" {
			unit = &l.Unit
		}
		rows = append(rows, []any{id, l.Item, l.Status, unit, numeric(l.UnitPrice.Decimal, l.UnitPrice.Valid),
			numeric(l.FreeAllowance, true), l.Note, l.InWriting})
	}
	return rows
}
