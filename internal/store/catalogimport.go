package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"gpuquote/internal/quote"
	"gpuquote/internal/skycatalog"
	"gpuquote/internal/user"
)

// The audit actions of a catalog import (docs/RULES.md §7.7): the import
// that made drafts, and the step that published them.
const (
	ActionCatalogImport  = "catalog.import"
	ActionCatalogPublish = "catalog.publish"
)

// FormatSkyPilotV7 is the format of a SkyPilot catalog's vms.csv.
const FormatSkyPilotV7 = "skypilot_v7"

// CatalogImport is the record of one import.
type CatalogImport struct {
	ID             int64
	PlatformID     int64
	PlatformNameZH string
	PlatformNameEN string
	Format         string
	AsOf           time.Time
	Source         string
	FileName       string
	Summary        skycatalog.Summary
	CreatedByName  string
	CreatedAt      time.Time
	// Waiting counts its drafts not yet published (in a list only).
	Waiting int
}

// CatalogImportInput is what an import is made of: the editor's settings,
// the file's name and what was read from it; Refs resolve GPU names and
// check each draft by the entry rules, Today the latest day an as_of may
// name.
type CatalogImportInput struct {
	Settings skycatalog.Settings
	FileName string
	Catalog  skycatalog.Catalog
	Refs     quote.Refs
	Today    time.Time
}

// ImportCatalog imports a catalog on a platform (docs/RULES.md §7.7), all
// in one transaction: under a lock on the platform it reads the platform's
// series, plans what each offer makes (skycatalog.MakePlan), writes the
// new and changed offers as drafts, records the import and its drafts and
// audits it. Any failure leaves the database as it was. ErrNotFound for an
// unknown platform; ErrConflict when a series gained a draft meanwhile.
func (s *Store) ImportCatalog(ctx context.Context, a user.Actor, in CatalogImportInput) (int64, skycatalog.Plan, error) {
	var (
		id   int64
		plan skycatalog.Plan
	)
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		// Two imports on one platform wait for each other, so each plans
		// from the series as the other left them.
		var pid int64
		err := tx.QueryRow(ctx, `SELECT id FROM platforms WHERE id = $1 FOR UPDATE`, in.Settings.PlatformID).Scan(&pid)
		if err != nil {
			return notFound(err)
		}
		series, err := platformSeries(ctx, tx, pid)
		if err != nil {
			return err
		}
		plan = skycatalog.MakePlan(in.Catalog, series, in.Refs, in.Settings, in.Today)
		ids, err := insertCatalogDrafts(ctx, tx, a, plan)
		if err != nil {
			return err
		}
		summary, err := json.Marshal(skycatalog.NewSummary(in.Catalog, plan))
		if err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `
			INSERT INTO catalog_imports (platform_id, format, as_of, source, file_name, summary, created_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
			pid, FormatSkyPilotV7, in.Settings.AsOf, in.Settings.Source, in.FileName, summary, nullID(a.UserID)).Scan(&id); err != nil {
			return fmt.Errorf("catalog import: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO catalog_import_quotes (import_id, quote_id) SELECT $1, unnest($2::bigint[])`,
			id, ids); err != nil {
			return fmt.Errorf("catalog import quotes: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionCatalogImport, Entity: "catalog_import", EntityID: strconv.FormatInt(id, 10),
			After: map[string]any{"platform_id": pid, "format": FormatSkyPilotV7, "as_of": in.Settings.AsOf.Format(time.DateOnly),
				"source": in.Settings.Source, "file_name": in.FileName, "new": len(plan.New), "changed": len(plan.Changed),
				"unchanged": len(plan.Unchanged), "drafts": ids}})
	})
	if err != nil {
		return 0, skycatalog.Plan{}, err
	}
	return id, plan, nil
}

// platformSeries reads every quote series of a platform as an import
// compares with it: its newest published or archived version with its
// lines, and its draft. Proposals are no series of the market yet.
func platformSeries(ctx context.Context, tx pgx.Tx, platformID int64) ([]skycatalog.Series, error) {
	rows, err := tx.Query(ctx, `SELECT DISTINCT ON (q.series_id) `+quoteColumns+quoteFrom+`
		WHERE q.platform_id = $1 AND q.state IN ('published', 'archived')
		ORDER BY q.series_id, q.version DESC`, platformID)
	if err != nil {
		return nil, fmt.Errorf("platform series: %w", err)
	}
	bases, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (quote.Quote, error) { return scanQuote(row) })
	if err != nil {
		return nil, fmt.Errorf("platform series: %w", err)
	}
	ids := make([]int64, len(bases))
	for i, b := range bases {
		ids[i] = b.ID
	}
	lines, err := quoteLines(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	bySeries := map[int64]int{}
	out := make([]skycatalog.Series, 0, len(bases))
	for _, b := range bases {
		b.Lines = lines[b.ID]
		bySeries[b.SeriesID] = len(out)
		out = append(out, skycatalog.Series{Base: b})
	}
	rows, err = tx.Query(ctx, `
		SELECT id, series_id, label, gpu_model_id, gpu_count, region, currency
		FROM quotes WHERE platform_id = $1 AND state = $2`, platformID, quote.Draft)
	if err != nil {
		return nil, fmt.Errorf("platform drafts: %w", err)
	}
	drafts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (quote.Quote, error) {
		var d quote.Quote
		err := row.Scan(&d.ID, &d.SeriesID, &d.Label, &d.GPUModelID, &d.GPUCount, &d.Region, &d.Currency)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("platform drafts: %w", err)
	}
	for _, d := range drafts {
		if i, ok := bySeries[d.SeriesID]; ok {
			out[i].Draft = d
		} else {
			out = append(out, skycatalog.Series{Draft: d})
		}
	}
	return out, nil
}

// insertCatalogDrafts writes the plan's drafts, new series first, with
// COPY (an import may make hundreds), and returns their ids in that order.
// A series that gained a draft since it was read is ErrConflict.
func insertCatalogDrafts(ctx context.Context, tx pgx.Tx, a user.Actor, plan skycatalog.Plan) ([]int64, error) {
	items := append(append([]skycatalog.Item(nil), plan.New...), plan.Changed...)
	ids := []int64{}
	if len(items) == 0 {
		return ids, nil
	}
	rows, err := tx.Query(ctx, `SELECT nextval(pg_get_serial_sequence('quotes', 'id')) FROM generate_series(1, $1)`, len(items))
	if err != nil {
		return nil, fmt.Errorf("catalog drafts: ids: %w", err)
	}
	if ids, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
		return nil, fmt.Errorf("catalog drafts: ids: %w", err)
	}
	// The next version of each changed series follows its highest.
	var seriesIDs []int64
	for _, it := range plan.Changed {
		seriesIDs = append(seriesIDs, it.Base.SeriesID)
	}
	next := map[int64]int{}
	rows, err = tx.Query(ctx, `SELECT series_id, max(version) + 1 FROM quotes WHERE series_id = ANY($1) GROUP BY series_id`, seriesIDs)
	if err != nil {
		return nil, fmt.Errorf("catalog drafts: versions: %w", err)
	}
	for rows.Next() {
		var sid int64
		var v int
		if err := rows.Scan(&sid, &v); err != nil {
			rows.Close()
			return nil, err
		}
		next[sid] = v
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	author := nullID(a.UserID)
	quoteRows := make([][]any, len(items))
	var lineRows [][]any
	for i := range items {
		q := &items[i].Next
		series, version := ids[i], 1
		var predecessor *int64
		if items[i].Base.ID != 0 {
			series, version = items[i].Base.SeriesID, next[items[i].Base.SeriesID]
			predecessor = &items[i].Base.ID
		}
		quoteRows[i] = copyQuoteRow(q, ids[i], series, version, predecessor, author, author)
		lineRows = appendCopyLines(lineRows, ids[i], q.Lines)
	}
	cols := append([]string{"id", "series_id", "version", "predecessor_id", "created_by", "updated_by"}, importQuoteColumns[5:]...)
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"quotes"}, cols, pgx.CopyFromRows(quoteRows)); err != nil {
		if isUniqueViolation(err, "") {
			return nil, ErrConflict
		}
		return nil, fmt.Errorf("catalog drafts: quotes: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"quote_lines"}, importLineColumns, pgx.CopyFromRows(lineRows)); err != nil {
		return nil, fmt.Errorf("catalog drafts: lines: %w", err)
	}
	return ids, nil
}

// PublishCatalogImport publishes the drafts of import id that picks names
// (quote id → the lock version the editor saw) and that are drafts still,
// in one transaction: each series' published version is archived, the
// drafts published, and one audit entry names them (docs/RULES.md §7.1,
// §7.7). A draft changed since the editor saw it is ErrConflict, and
// nothing is published. Ids of the import already published, or not of
// the import, are passed over, so publishing twice publishes nothing the
// second time. It returns the ids published.
func (s *Store) PublishCatalogImport(ctx context.Context, a user.Actor, id int64, picks map[int64]int) ([]int64, error) {
	asked := make([]int64, 0, len(picks))
	for qid := range picks {
		asked = append(asked, qid)
	}
	var published []int64
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT id FROM catalog_imports WHERE id = $1`, id).Scan(&id); err != nil {
			return notFound(err)
		}
		// The drafts are locked: a second publication of the same drafts
		// waits here, then finds them published and passes them over.
		rows, err := tx.Query(ctx, `
			SELECT q.id, q.series_id, q.lock_version
			FROM catalog_import_quotes c JOIN quotes q ON q.id = c.quote_id
			WHERE c.import_id = $1 AND q.id = ANY($2) AND q.state = $3
			ORDER BY q.id FOR UPDATE OF q`, id, asked, quote.Publish.From)
		if err != nil {
			return fmt.Errorf("catalog publish: %w", err)
		}
		var series []int64
		for rows.Next() {
			var qid, sid int64
			var lock int
			if err := rows.Scan(&qid, &sid, &lock); err != nil {
				rows.Close()
				return err
			}
			if picks[qid] != lock {
				rows.Close()
				return ErrConflict
			}
			published, series = append(published, qid), append(series, sid)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(published) == 0 {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE quotes SET state = $2, archived_at = now() WHERE series_id = ANY($1) AND state = $3`,
			series, quote.Supersede.To, quote.Supersede.From); err != nil {
			return fmt.Errorf("catalog publish: archive previous versions: %w", err)
		}
		tag, err := tx.Exec(ctx, `
			UPDATE quotes SET state = $3, published_at = now(), published_by = $2, lock_version = lock_version + 1
			WHERE id = ANY($1) AND state = $4`, published, nullID(a.UserID), quote.Publish.To, quote.Publish.From)
		if err != nil {
			return fmt.Errorf("catalog publish: %w", err)
		}
		if int(tag.RowsAffected()) != len(published) {
			return fmt.Errorf("catalog publish: published %d of %d drafts", tag.RowsAffected(), len(published))
		}
		if err := watchPublished(ctx, tx, time.Now(), published...); err != nil {
			return err
		}
		if err := enqueueQuotesPublished(ctx, tx, published); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionCatalogPublish, Entity: "catalog_import", EntityID: strconv.FormatInt(id, 10),
			Before: map[string]any{"state": quote.Publish.From}, After: map[string]any{"state": quote.Publish.To, "published": published}})
	})
	if err != nil {
		return nil, err
	}
	return published, nil
}

const catalogImportColumns = `i.id, i.platform_id, p.name_zh, p.name_en, i.format, i.as_of, i.source, i.file_name, i.summary,
	coalesce(u.display_name, ''), i.created_at`

const catalogImportFrom = ` FROM catalog_imports i JOIN platforms p ON p.id = i.platform_id LEFT JOIN users u ON u.id = i.created_by`

func scanCatalogImport(row pgx.Row, extra ...any) (CatalogImport, error) {
	var c CatalogImport
	var summary []byte
	err := row.Scan(append([]any{&c.ID, &c.PlatformID, &c.PlatformNameZH, &c.PlatformNameEN, &c.Format, &c.AsOf, &c.Source,
		&c.FileName, &summary, &c.CreatedByName, &c.CreatedAt}, extra...)...)
	if err != nil {
		return CatalogImport{}, err
	}
	if err := json.Unmarshal(summary, &c.Summary); err != nil {
		return CatalogImport{}, fmt.Errorf("catalog import %d: summary: %w", c.ID, err)
	}
	return c, nil
}

// CatalogImportByID returns an import's record; ErrNotFound when none.
func (s *Store) CatalogImportByID(ctx context.Context, id int64) (CatalogImport, error) {
	c, err := scanCatalogImport(s.pool.QueryRow(ctx, `SELECT `+catalogImportColumns+catalogImportFrom+` WHERE i.id = $1`, id))
	return c, notFound(err)
}

// RecentCatalogImports lists the newest imports, at most limit, each with
// how many of its drafts wait.
func (s *Store) RecentCatalogImports(ctx context.Context, limit int) ([]CatalogImport, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+catalogImportColumns+`,
		(SELECT count(*) FROM catalog_import_quotes c JOIN quotes q ON q.id = c.quote_id WHERE c.import_id = i.id AND q.state = 'draft')
		`+catalogImportFrom+` ORDER BY i.created_at DESC, i.id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("catalog imports: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (CatalogImport, error) {
		var waiting int
		c, err := scanCatalogImport(row, &waiting)
		c.Waiting = waiting
		return c, err
	})
}

// CatalogImportQuote is one quote an import made, as it is now, with the
// version it followed (PrevID 0 for a new series).
type CatalogImportQuote struct {
	ID          int64
	SeriesID    int64
	Version     int
	State       string
	LockVersion int
	Label       string
	GPUVendor   string
	GPUName     string
	GPUCount    int
	Currency    string
	Hourly      decimal.NullDecimal
	SpotHourly  decimal.NullDecimal
	Region      string
	AsOf        time.Time
	PrevID      int64
	PrevHourly  decimal.NullDecimal
	PrevSpot    decimal.NullDecimal
	PrevAsOf    *time.Time
	PrevCurr    string
}

// CatalogImportQuotes lists the quotes import id made, by label, GPU and
// count.
func (s *Store) CatalogImportQuotes(ctx context.Context, id int64) ([]CatalogImportQuote, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT q.id, q.series_id, q.version, q.state, q.lock_version, q.label, g.vendor, g.name, q.gpu_count, q.currency,
		       q.hourly, q.spot_hourly, q.region, q.as_of,
		       coalesce(p.id, 0), p.hourly, p.spot_hourly, p.as_of, coalesce(p.currency, '')
		FROM catalog_import_quotes c
		JOIN quotes q ON q.id = c.quote_id
		JOIN gpu_models g ON g.id = q.gpu_model_id
		LEFT JOIN quotes p ON p.id = q.predecessor_id
		WHERE c.import_id = $1
		ORDER BY q.label, g.vendor, g.name, q.gpu_count, q.id`, id)
	if err != nil {
		return nil, fmt.Errorf("catalog import quotes: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (CatalogImportQuote, error) {
		var q CatalogImportQuote
		err := row.Scan(&q.ID, &q.SeriesID, &q.Version, &q.State, &q.LockVersion, &q.Label, &q.GPUVendor, &q.GPUName, &q.GPUCount,
			&q.Currency, &q.Hourly, &q.SpotHourly, &q.Region, &q.AsOf, &q.PrevID, &q.PrevHourly, &q.PrevSpot, &q.PrevAsOf, &q.PrevCurr)
		return q, err
	})
}
