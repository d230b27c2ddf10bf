package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/user"
)

// ErrNotDraft means a change needs a draft but the quote is published or
// archived (published quotes never change; edit makes a new version).
var ErrNotDraft = errors.New("store: quote is not a draft")

// ErrDraftExists means the series already has a draft (one at a time); its
// id is in DraftExistsError.
var ErrDraftExists = errors.New("store: this quote already has a draft")

// DraftExistsError names the existing draft of a series.
type DraftExistsError struct{ DraftID int64 }

func (e DraftExistsError) Error() string { return ErrDraftExists.Error() }

// Is makes errors.Is(err, ErrDraftExists) true.
func (e DraftExistsError) Is(target error) bool { return target == ErrDraftExists }

// The columns of a quote come from its field list (quote.Fields): what a
// draft save writes is every field a person enters, in that order, so a
// field added to the list is read, written and imported with no change
// here. A nullable field is written as NULL when empty and read back as
// "" (billing_granularity's CHECK allows only the three values or NULL).

// quoteWritable lists the columns a draft save writes, in the order of
// writableArgs.
var quoteWritable = func() string {
	cols := make([]string, len(quote.Fields))
	for i, f := range quote.Fields {
		cols[i] = f.Column
	}
	return strings.Join(cols, ", ")
}()

// writableArgs are q's values for quoteWritable.
func writableArgs(q *quote.Quote) []any {
	args := make([]any, len(quote.Fields))
	for i, f := range quote.Fields {
		v := reflect.ValueOf(f.Value(q)).Elem().Interface()
		if f.Nullable && v == "" {
			v = nil
		}
		args[i] = v
	}
	return args
}

// placeholders returns "$from, $from+1, …" for n arguments.
func placeholders(from, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(from+i))
	}
	return b.String()
}

// quoteColumns are what scanQuote reads: the bookkeeping, every field,
// then the names joined from platforms and gpu_models.
var quoteColumns = func() string {
	cols := []string{"q.id", "q.series_id", "q.version", "coalesce(q.predecessor_id, 0)", "q.state", "q.lock_version",
		"coalesce(q.created_by, 0)", "q.created_at", "q.updated_at", "q.published_at", "q.archived_at"}
	for _, f := range quote.Fields {
		if f.Nullable {
			cols = append(cols, "coalesce(q."+f.Column+", '')")
		} else {
			cols = append(cols, "q."+f.Column)
		}
	}
	return strings.Join(append(cols, "p.name_zh", "p.name_en", "g.vendor", "g.name"), ", ")
}()

const quoteFrom = ` FROM quotes q JOIN platforms p ON p.id = q.platform_id JOIN gpu_models g ON g.id = q.gpu_model_id`

func scanQuote(row pgx.Row) (quote.Quote, error) {
	var q quote.Quote
	dest := []any{&q.ID, &q.SeriesID, &q.Version, &q.PredecessorID, &q.State, &q.LockVersion, &q.CreatedBy, &q.CreatedAt,
		&q.UpdatedAt, &q.PublishedAt, &q.ArchivedAt}
	for _, f := range quote.Fields {
		dest = append(dest, f.Value(&q))
	}
	err := row.Scan(append(dest, &q.PlatformNameZH, &q.PlatformNameEN, &q.GPUVendor, &q.GPUName)...)
	return q, err
}

// insertLines writes a draft's lines (the caller replaced or never had any).
func insertLines(ctx context.Context, tx pgx.Tx, quoteID int64, lines []quote.Line) error {
	for _, l := range lines {
		var unit *string
		if l.Unit != "" {
			unit = &l.Unit
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO quote_lines (quote_id, item, status, unit, unit_price, free_allowance, note, in_writing)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			quoteID, l.Item, l.Status, unit, l.UnitPrice, l.FreeAllowance, l.Note, l.InWriting)
		if err != nil {
			return fmt.Errorf("quote line %s: %w", l.Item, err)
		}
	}
	return nil
}

// quoteLines loads the lines of the given quotes, keyed by quote id.
func quoteLines(ctx context.Context, q Querier, ids []int64) (map[int64][]quote.Line, error) {
	rows, err := q.Query(ctx, `
		SELECT quote_id, item, status, coalesce(unit, ''), unit_price, free_allowance, note, in_writing
		FROM quote_lines WHERE quote_id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("quote lines: %w", err)
	}
	defer rows.Close()
	out := make(map[int64][]quote.Line, len(ids))
	for rows.Next() {
		var (
			id int64
			l  quote.Line
		)
		if err := rows.Scan(&id, &l.Item, &l.Status, &l.Unit, &l.UnitPrice, &l.FreeAllowance, &l.Note, &l.InWriting); err != nil {
			return nil, err
		}
		out[id] = append(out[id], l)
	}
	return out, rows.Err()
}

func quoteByID(ctx context.Context, q Querier, id int64, lock bool) (quote.Quote, error) {
	sql := `SELECT ` + quoteColumns + quoteFrom + ` WHERE q.id = $1`
	if lock {
		sql += ` FOR UPDATE OF q`
	}
	qt, err := scanQuote(q.QueryRow(ctx, sql, id))
	if err != nil {
		return quote.Quote{}, notFound(err)
	}
	lines, err := quoteLines(ctx, q, []int64{id})
	if err != nil {
		return quote.Quote{}, err
	}
	qt.Lines = lines[id]
	return qt, nil
}

// QuoteByID returns a quote with its lines and names.
func (s *Store) QuoteByID(ctx context.Context, id int64) (quote.Quote, error) {
	return quoteByID(ctx, s.pool, id, false)
}

// QuotesByIDs returns the quotes with these ids (with lines), in the order
// asked; missing ids are left out.
func (s *Store) QuotesByIDs(ctx context.Context, ids []int64) ([]quote.Quote, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	// The quotes and their lines are read at once on two pool connections
	// (both are keyed by the ids asked for): a comparison waits for one
	// round trip, not two.
	var (
		byID  = map[int64]quote.Quote{}
		lines map[int64][]quote.Line
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		rows, err := s.pool.Query(gctx, `SELECT `+quoteColumns+quoteFrom+` WHERE q.id = ANY($1)`, ids)
		if err != nil {
			return fmt.Errorf("quotes by id: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			q, err := scanQuote(rows)
			if err != nil {
				return err
			}
			byID[q.ID] = q
		}
		return rows.Err()
	})
	g.Go(func() (err error) { lines, err = quoteLines(gctx, s.pool, ids); return })
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make([]quote.Quote, 0, len(byID))
	for _, id := range ids {
		if q, ok := byID[id]; ok {
			q.Lines = lines[id]
			out = append(out, q)
		}
	}
	return out, nil
}

// CreateQuoteDraft starts a new offer: version 1 of a new series, a draft.
func (s *Store) CreateQuoteDraft(ctx context.Context, a user.Actor, q quote.Quote) (quote.Quote, error) {
	var out quote.Quote
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var id int64
		if err := tx.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('quotes', 'id'))`).Scan(&id); err != nil {
			return err
		}
		if err := insertDraft(ctx, tx, a, id, id, 1, 0, &q); err != nil {
			return err
		}
		var err error
		out, err = quoteByID(ctx, tx, id, false)
		if err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionQuoteCreate, Entity: "quote", EntityID: strconv.FormatInt(id, 10), After: out})
	})
	return out, err
}

func insertDraft(ctx context.Context, tx pgx.Tx, a user.Actor, id, series int64, version int, predecessor int64, q *quote.Quote) error {
	var pred *int64
	if predecessor != 0 {
		pred = &predecessor
	}
	args := append([]any{id, series, version, pred, nullID(a.UserID)}, writableArgs(q)...)
	_, err := tx.Exec(ctx, `
		INSERT INTO quotes (id, series_id, version, predecessor_id, created_by, updated_by, `+quoteWritable+`)
		VALUES ($1, $2, $3, $4, $5, $5, `+placeholders(6, len(args)-5)+`)`, args...)
	if err != nil {
		return fmt.Errorf("insert quote: %w", err)
	}
	return insertLines(ctx, tx, id, q.Lines)
}

// nullID is NULL for the system actor (0).
func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// UpdateQuoteDraft saves a draft. q.LockVersion must be the version the
// editor loaded: if someone saved in between, ErrConflict (and nothing is
// written), so the second editor keeps their input and decides.
func (s *Store) UpdateQuoteDraft(ctx context.Context, a user.Actor, q quote.Quote) (quote.Quote, error) {
	var out quote.Quote
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := quoteByID(ctx, tx, q.ID, true)
		if err != nil {
			return err
		}
		if before.State != quote.Draft {
			return ErrNotDraft
		}
		if before.LockVersion != q.LockVersion {
			return ErrConflict
		}
		args := append([]any{q.ID, nullID(a.UserID)}, writableArgs(&q)...)
		_, err = tx.Exec(ctx, `
			UPDATE quotes SET (`+quoteWritable+`) = (`+placeholders(3, len(args)-2)+`),
			       updated_by = $2, updated_at = now(), lock_version = lock_version + 1
			WHERE id = $1`, args...)
		if err != nil {
			return fmt.Errorf("update quote: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM quote_lines WHERE quote_id = $1`, q.ID); err != nil {
			return fmt.Errorf("replace quote lines: %w", err)
		}
		if err := insertLines(ctx, tx, q.ID, q.Lines); err != nil {
			return err
		}
		if out, err = quoteByID(ctx, tx, q.ID, false); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionQuoteUpdate, Entity: "quote", EntityID: strconv.FormatInt(q.ID, 10), Before: before, After: out})
	})
	return out, err
}

// lockedQuote reads quote id for update in tx and checks it is in state
// (else wrongState) at the lock version the writer saw (else ErrConflict).
func lockedQuote(ctx context.Context, tx pgx.Tx, id int64, state string, lockVersion int, wrongState error) (quote.Quote, error) {
	q, err := quoteByID(ctx, tx, id, true)
	if err != nil {
		return quote.Quote{}, err
	}
	if q.State != state {
		return quote.Quote{}, wrongState
	}
	if q.LockVersion != lockVersion {
		return quote.Quote{}, ErrConflict
	}
	return q, nil
}

// insertNextVersion writes q as a draft: the series' next version, with
// predecessor before it. ErrConflict when a concurrent writer made that
// version (or the series' one draft) first.
func insertNextVersion(ctx context.Context, tx pgx.Tx, a user.Actor, seriesID, predecessor int64, q *quote.Quote) (int64, error) {
	var id int64
	var next int
	if err := tx.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('quotes', 'id')),
		(SELECT max(version) + 1 FROM quotes WHERE series_id = $1)`, seriesID).Scan(&id, &next); err != nil {
		return 0, err
	}
	if err := insertDraft(ctx, tx, a, id, seriesID, next, predecessor, q); err != nil {
		if isUniqueViolation(err, "") {
			return 0, ErrConflict
		}
		return 0, err
	}
	return id, nil
}

// publishVersion makes quote id the published version of its series, by
// a, archiving the version published before it, in tx: readers always see
// exactly one current version.
func publishVersion(ctx context.Context, tx pgx.Tx, a user.Actor, seriesID, id int64) error {
	if _, err := tx.Exec(ctx, `
		UPDATE quotes SET state = $2, archived_at = now()
		WHERE series_id = $1 AND state = $3`, seriesID, quote.Supersede.To, quote.Supersede.From); err != nil {
		return fmt.Errorf("archive previous version: %w", err)
	}
	tag, err := tx.Exec(ctx, `
		UPDATE quotes SET state = $3, published_at = now(), published_by = $2, lock_version = lock_version + 1
		WHERE id = $1 AND state = $4`, id, nullID(a.UserID), quote.Publish.To, quote.Publish.From)
	if err != nil {
		return fmt.Errorf("publish quote: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return ErrNotDraft
	}
	// The watches of the version are evaluated in its publication's
	// transaction (docs/RULES.md §24.2), and endpoints subscribed are told
	// in it too (docs/RULES.md §24.7).
	if err := watchPublished(ctx, tx, time.Now(), id); err != nil {
		return err
	}
	return enqueueQuotesPublished(ctx, tx, []int64{id})
}

// PublishQuote publishes a draft (at the lock version the editor saw); the
// series' previously published version is archived in the same
// transaction, so readers always see exactly one current version.
func (s *Store) PublishQuote(ctx context.Context, a user.Actor, id int64, lockVersion int) (quote.Quote, error) {
	var out quote.Quote
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := lockedQuote(ctx, tx, id, quote.Publish.From, lockVersion, ErrNotDraft)
		if err != nil {
			return err
		}
		out, err = publishAudited(ctx, tx, a, before.SeriesID, id, before.State)
		return err
	})
	return out, err
}

// publishAudited publishes version id of series (publishVersion) and
// audits it as published from state before; it returns the version as it
// now is.
func publishAudited(ctx context.Context, tx pgx.Tx, a user.Actor, seriesID, id int64, before string) (quote.Quote, error) {
	if err := publishVersion(ctx, tx, a, seriesID, id); err != nil {
		return quote.Quote{}, err
	}
	out, err := quoteByID(ctx, tx, id, false)
	if err != nil {
		return quote.Quote{}, err
	}
	return out, audit(ctx, tx, a, AuditEntry{Action: ActionQuotePublish, Entity: "quote", EntityID: strconv.FormatInt(id, 10),
		Before: map[string]any{"state": before}, After: map[string]any{"state": out.State, "version": out.Version}})
}

// nextVersionBase locks the published version publishedID that a next
// version is made from: ErrNotFound for an unknown id, ErrNotDraft when it
// is not its series' published version, DraftExistsError when the series
// already has a draft (one at a time).
func nextVersionBase(ctx context.Context, tx pgx.Tx, publishedID int64) (quote.Quote, error) {
	src, err := quoteByID(ctx, tx, publishedID, true)
	if err != nil {
		return quote.Quote{}, err
	}
	if src.State != quote.Published {
		return quote.Quote{}, ErrNotDraft // only the current published version is the base of the next
	}
	var draftID int64
	err = tx.QueryRow(ctx, `SELECT id FROM quotes WHERE series_id = $1 AND state = 'draft'`, src.SeriesID).Scan(&draftID)
	if err == nil {
		return quote.Quote{}, DraftExistsError{DraftID: draftID}
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return quote.Quote{}, err
	}
	return src, nil
}

// NewQuoteVersion starts editing a published quote: a draft copy (version
// n+1, linked to it) that the editor changes and publishes; the published
// one stays as it is. When the series already has a draft, it returns
// DraftExistsError naming it.
func (s *Store) NewQuoteVersion(ctx context.Context, a user.Actor, publishedID int64) (quote.Quote, error) {
	var out quote.Quote
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		src, err := nextVersionBase(ctx, tx, publishedID)
		if err != nil {
			return err
		}
		id, err := insertNextVersion(ctx, tx, a, src.SeriesID, src.ID, &src)
		if err != nil {
			return err
		}
		if out, err = quoteByID(ctx, tx, id, false); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionQuoteNewVersion, Entity: "quote", EntityID: strconv.FormatInt(id, 10),
			After: map[string]any{"from": src.ID, "version": out.Version}})
	})
	return out, err
}

// ArchiveQuote withdraws a published quote from comparisons; it stays in
// history and in the reports that used it.
func (s *Store) ArchiveQuote(ctx context.Context, a user.Actor, id int64) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE quotes SET state = $2, archived_at = now() WHERE id = $1 AND state = $3`,
			id, quote.Archive.To, quote.Archive.From)
		if err != nil {
			return fmt.Errorf("archive quote: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionQuoteArchive, Entity: "quote", EntityID: strconv.FormatInt(id, 10),
			Before: map[string]any{"state": quote.Archive.From}, After: map[string]any{"state": quote.Archive.To}})
	})
}

// DeleteQuoteDraft discards a draft (never a published or archived quote).
func (s *Store) DeleteQuoteDraft(ctx context.Context, a user.Actor, id int64, lockVersion int) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := lockedQuote(ctx, tx, id, quote.Draft, lockVersion, ErrNotDraft)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM quotes WHERE id = $1`, id); err != nil {
			return fmt.Errorf("delete draft: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionQuoteDeleteDraft, Entity: "quote", EntityID: strconv.FormatInt(id, 10), Before: before})
	})
}

// QuoteVersions lists every version of a series, newest first.
func (s *Store) QuoteVersions(ctx context.Context, seriesID int64) ([]quote.Version, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id, version, state, as_of, hourly, monthly, currency, updated_at, published_at
		FROM quotes WHERE series_id = $1 ORDER BY version DESC`, seriesID)
	if err != nil {
		return nil, fmt.Errorf("quote versions: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (quote.Version, error) {
		var v quote.Version
		err := row.Scan(&v.ID, &v.Version, &v.State, &v.AsOf, &v.Hourly, &v.Monthly, &v.Currency, &v.UpdatedAt, &v.PublishedAt)
		return v, err
	})
}

// QuoteFilter narrows the quote list; zero fields do not filter.
type QuoteFilter struct {
	States     []string // default: published only
	PlatformID int64
	GPUModelID int64
	Currency   string
	Sharing    string
	MinVRAMGB  decimal.NullDecimal // per GPU
	Query      string              // label, region, platform or GPU name
	AsOfBefore time.Time           // as_of < this (stale lists)
	AsOfFrom   time.Time           // as_of ≥ this (freshness)
	// Qualifications keeps quotes of platforms holding every one of these
	// (names from PlatformQualifications) as a confirmed yes.
	Qualifications []string
	// Env keeps quotes of platforms whose facts of these kinds are yes on
	// EnvDay (docs/RULES.md §18.3; envWhere).
	Env    []string
	EnvDay time.Time
	// Availability, when set, keeps quotes whose platform × GPU model
	// obtained GPUs often enough (docs/RULES.md §18.2; availWhere).
	Availability *AvailabilityFilter
	Offset       int
	Limit        int
	// NoCount skips counting every match: the total returned is then the
	// rows returned, or Limit+1 when more match (a list that only says
	// "more match, narrow the filters" needs no count).
	NoCount bool

	// names holds the platforms and GPU models whose names match Query,
	// looked up by withNames before the list is read; nil means not looked
	// up, and where then names them by subqueries.
	names *nameMatches
}

// nameMatches are the ids of the platforms and GPU models whose names
// contain a search text.
type nameMatches struct {
	platforms, gpus []int64
}

// The name conditions of the quote search (docs/RULES.md §20.2), over
// platforms and gpu_models, with ? for the escaped search text.
const (
	platformNameMatch = `name_zh ILIKE '%' || ? || '%' OR name_en ILIKE '%' || ? || '%'`
	gpuNameMatch      = `name ILIKE '%' || ? || '%' OR (vendor || ' ' || name) ILIKE '%' || ? || '%'`
)

// withNames looks up the platforms and GPU models whose names match f's
// search text, so that where can name them as id lists: the planner then
// knows how many quotes they hold and can combine the quotes' platform and
// GPU indexes with the label and region trigram index (docs/RULES.md
// §20.2) instead of testing every quote against the names.
func withNames(ctx context.Context, q Querier, f QuoteFilter) (QuoteFilter, error) {
	text := strings.TrimSpace(f.Query)
	if text == "" {
		return f, nil
	}
	var m nameMatches
	err := q.QueryRow(ctx, `SELECT ARRAY(SELECT id FROM platforms WHERE `+strings.ReplaceAll(platformNameMatch, "?", "$1")+` ORDER BY id),
		ARRAY(SELECT id FROM gpu_models WHERE `+strings.ReplaceAll(gpuNameMatch, "?", "$1")+` ORDER BY id)`,
		escapeLike(text)).Scan(&m.platforms, &m.gpus)
	if err != nil {
		return f, fmt.Errorf("quote search names: %w", err)
	}
	f.names = &m
	return f, nil
}

// where is the filter's condition over quotes q (names are searched through
// id lists of the small platform and GPU tables, so no join is needed),
// with its arguments numbered from $1.
func (f QuoteFilter) where() (string, []any) {
	if len(f.States) == 0 {
		f.States = []string{quote.Published}
	}
	var (
		where []string
		args  []any
	)
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(args))))
	}
	if len(f.States) == 1 {
		add("q.state = ?", f.States[0])
	} else {
		add("q.state = ANY(?)", f.States)
	}
	if f.PlatformID != 0 {
		add("q.platform_id = ?", f.PlatformID)
	}
	if f.GPUModelID != 0 {
		add("q.gpu_model_id = ?", f.GPUModelID)
	}
	if f.Currency != "" {
		add("q.currency = ?", f.Currency)
	}
	if f.Sharing != "" {
		add("q.sharing = ?", f.Sharing)
	}
	if f.MinVRAMGB.Valid {
		add("coalesce(q.vram_gb, (SELECT g.vram_gb FROM gpu_models g WHERE g.id = q.gpu_model_id)) >= ?", f.MinVRAMGB.Decimal)
	}
	if q := strings.TrimSpace(f.Query); q != "" {
		// docs/RULES.md §20.2: label or region contains the text (the
		// trigram index answers these), or the platform's or GPU model's
		// name does: as id lists when withNames looked them up, else as
		// subqueries with the same conditions.
		args = append(args, escapeLike(q))
		text := "$" + strconv.Itoa(len(args))
		arms := []string{`q.label ILIKE '%' || ` + text + ` || '%'`, `q.region ILIKE '%' || ` + text + ` || '%'`}
		if f.names == nil {
			arms = append(arms,
				"q.platform_id IN (SELECT id FROM platforms WHERE "+strings.ReplaceAll(platformNameMatch, "?", text)+")",
				"q.gpu_model_id IN (SELECT id FROM gpu_models WHERE "+strings.ReplaceAll(gpuNameMatch, "?", text)+")")
		} else {
			// An empty list matches nothing: leave its arm out.
			if len(f.names.platforms) > 0 {
				args = append(args, f.names.platforms)
				arms = append(arms, "q.platform_id = ANY($"+strconv.Itoa(len(args))+"::bigint[])")
			}
			if len(f.names.gpus) > 0 {
				args = append(args, f.names.gpus)
				arms = append(arms, "q.gpu_model_id = ANY($"+strconv.Itoa(len(args))+"::bigint[])")
			}
		}
		where = append(where, "("+strings.Join(arms, " OR ")+")")
	}
	if !f.AsOfBefore.IsZero() {
		add("q.as_of < ?", f.AsOfBefore)
	}
	if !f.AsOfFrom.IsZero() {
		add("q.as_of >= ?", f.AsOfFrom)
	}
	// Column names come from the fixed list, never from input.
	for _, qual := range f.Qualifications {
		for _, known := range market.PlatformQualifications {
			if qual == known {
				where = append(where, "q.platform_id IN (SELECT id FROM platforms WHERE "+known+" IS TRUE)")
			}
		}
	}
	where, args = envWhere(where, args, f.Env, f.EnvDay)
	where, args = availWhere(where, args, f.Availability)
	return strings.Join(where, " AND "), args
}

// QuoteCountCap bounds the count of a quote list: past it the list says
// "more than" instead of counting every row (an exact count of 100,000 rows
// costs more than the page itself).
const QuoteCountCap = 10000

// quoteListColumns are the fields a list of quotes shows or screens by;
// Quotes fills only these (numeric columns cost most to decode, and a
// list never needs the terms).
const quoteListColumns = `q.id, q.series_id, q.version, q.state, q.platform_id, q.gpu_model_id, q.label, q.gpu_count,
	q.vram_gb, q.sharing, q.region, q.currency, q.hourly, q.monthly, q.yearly, q.spot_hourly, q.as_of,
	p.name_zh, p.name_en, g.vendor, g.name`

func scanQuoteListRow(row pgx.Row) (quote.Quote, error) {
	var q quote.Quote
	err := row.Scan(&q.ID, &q.SeriesID, &q.Version, &q.State, &q.PlatformID, &q.GPUModelID, &q.Label, &q.GPUCount,
		&q.VRAMGB, &q.Sharing, &q.Region, &q.Currency, &q.Hourly, &q.Monthly, &q.Yearly, &q.SpotHourly, &q.AsOf,
		&q.PlatformNameZH, &q.PlatformNameEN, &q.GPUVendor, &q.GPUName)
	return q, err
}

// Quotes lists quotes newest sample first, with the number matching the
// filter (at most QuoteCountCap + 1, meaning "more"). Only the list fields
// are filled (quoteListColumns): no lines, terms or bookkeeping; load a
// quote with QuoteByID or QuotesByIDs for the rest.
//
// Why it is shaped like this (docs/RULES.md §20.2): the page of ids is
// chosen from quotes alone, walking the (state, as_of, id) index when one
// state is asked for — reading only the index when no other column is
// filtered on, so a deep page skips index entries, not table rows — and
// only those ids are joined to their quotes and names; name searches
// become id lists from the small platform and GPU tables first
// (withNames), and label and region searches read the trigram index.
func (s *Store) Quotes(ctx context.Context, f QuoteFilter) ([]quote.Quote, int, error) {
	return quotesIn(ctx, s.pool, f)
}

// quotesIn is Quotes read through q (the pool, or one snapshot's
// transaction).
func quotesIn(ctx context.Context, q Querier, f QuoteFilter) ([]quote.Quote, int, error) {
	if f.Limit <= 0 || f.Limit > 200 {
		f.Limit = 50
	}
	f, err := withNames(ctx, q, f)
	if err != nil {
		return nil, 0, err
	}
	cond, args := f.where()
	var total int
	if !f.NoCount {
		if err := q.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM quotes q WHERE `+cond+
			` LIMIT `+strconv.Itoa(QuoteCountCap+1)+`) c`, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("count quotes: %w", err)
		}
	}
	limit := f.Limit
	if f.NoCount {
		limit++ // one more tells whether more match
	}
	args = append(args, f.Offset, limit)
	rows, err := q.Query(ctx, `SELECT `+quoteListColumns+`
		FROM (SELECT q.id FROM quotes q WHERE `+cond+` ORDER BY q.as_of DESC, q.id DESC
		      OFFSET $`+strconv.Itoa(len(args)-1)+` LIMIT $`+strconv.Itoa(len(args))+`) k
		JOIN quotes q ON q.id = k.id
		JOIN platforms p ON p.id = q.platform_id JOIN gpu_models g ON g.id = q.gpu_model_id
		ORDER BY q.as_of DESC, q.id DESC`, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("quotes: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (quote.Quote, error) { return scanQuoteListRow(row) })
	if err != nil {
		return nil, 0, err
	}
	if f.NoCount {
		total = len(out)
		if len(out) > f.Limit {
			out = out[:f.Limit]
		}
	}
	return out, total, nil
}
