package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/shopspring/decimal"

	"gpuquote/internal/avail"
	"gpuquote/internal/market"
	"gpuquote/internal/notify"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
	"gpuquote/internal/user"
	"gpuquote/internal/watch"
)

// Audited actions on watches (docs/RULES.md §24.1).
const (
	ActionWatchCreate = "watch.create"
	ActionWatchUpdate = "watch.update"
	ActionWatchPause  = "watch.pause"
	ActionWatchResume = "watch.resume"
	ActionWatchDelete = "watch.delete"
)

// ErrWatchForbidden is a change of a watch the reader may not make: a
// shared watch by someone who is not an editor (docs/RULES.md §24.1).
var ErrWatchForbidden = errors.New("store: not your watch")

// ErrWatchProfile is a TCO watch naming a usage profile that does not
// exist (docs/RULES.md §24.1).
var ErrWatchProfile = errors.New("store: no such usage profile")

// watchReference names what a watch's write refers to that is not there:
// its profile (ErrWatchProfile), else its platform or GPU model
// (ErrNotFound); nil when err is no broken reference.
func watchReference(err error) error {
	var pgErr *pgconn.PgError
	switch {
	case !errors.As(err, &pgErr) || pgErr.Code != "23503":
		return nil
	case strings.Contains(pgErr.ConstraintName, "profile"):
		return ErrWatchProfile
	}
	return ErrNotFound
}

const watchColumns = `w.id, coalesce(w.owner_id, 0), coalesce(w.platform_id, 0), coalesce(w.gpu_model_id, 0), coalesce(w.gpu_count, 0),
	w.sharing, w.currency, w.kind, w.basis, coalesce(w.target, 0), coalesce(w.percent, 0), w.cooldown_hours, w.paused, w.armed,
	w.last_matched_at, coalesce(p.name_zh, ''), coalesce(p.name_en, ''), coalesce(g.vendor || ' ' || g.name, ''), w.created_at, w.updated_at,
	coalesce(w.profile_id, 0), coalesce(up.name, '')`

const watchFrom = ` FROM watches w LEFT JOIN platforms p ON p.id = w.platform_id LEFT JOIN gpu_models g ON g.id = w.gpu_model_id
	LEFT JOIN usage_profiles up ON up.id = w.profile_id`

func scanWatch(row pgx.Row) (watch.Watch, error) {
	var w watch.Watch
	var kind, basis string
	err := row.Scan(&w.ID, &w.OwnerID, &w.PlatformID, &w.GPUModelID, &w.GPUCount, &w.Sharing, &w.Currency, &kind, &basis,
		&w.Target, &w.Percent, &w.CooldownHours, &w.Paused, &w.Armed, &w.LastMatchedAt, &w.PlatformZH, &w.PlatformEN, &w.GPU,
		&w.CreatedAt, &w.UpdatedAt, &w.ProfileID, &w.ProfileName)
	w.Kind, w.Basis = watch.Kind(kind), watch.Basis(basis)
	return w, err
}

func nullPositive(d decimal.Decimal) *decimal.Decimal {
	if d.Sign() <= 0 {
		return nil
	}
	return &d
}

func nullCount(n int) *int {
	if n <= 0 {
		return nil
	}
	return &n
}

// WatchByID reads a live (not deleted) watch.
func (s *Store) WatchByID(ctx context.Context, id int64) (watch.Watch, error) {
	w, err := scanWatch(s.pool.QueryRow(ctx, `SELECT `+watchColumns+watchFrom+` WHERE w.id = $1 AND w.deleted_at IS NULL`, id))
	return w, notFound(err)
}

// WatchEvent is one match of a watch, as its list shows it.
type WatchEvent struct {
	ID        int64
	WatchID   int64
	Cause     string
	QuoteID   int64
	Value     decimal.NullDecimal
	CreatedAt time.Time
}

// WatchesFor lists the live watches userID sees: their own and the shared
// ones, shared first, then newest; with each watch's last three matches
// (docs/RULES.md §24.4).
func (s *Store) WatchesFor(ctx context.Context, userID int64) ([]watch.Watch, map[int64][]WatchEvent, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+watchColumns+watchFrom+`
		WHERE w.deleted_at IS NULL AND (w.owner_id = $1 OR w.owner_id IS NULL)
		ORDER BY w.owner_id NULLS FIRST, w.id DESC LIMIT 500`, userID)
	if err != nil {
		return nil, nil, fmt.Errorf("watches: %w", err)
	}
	ws, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (watch.Watch, error) { return scanWatch(r) })
	if err != nil {
		return nil, nil, fmt.Errorf("watches: %w", err)
	}
	ids := make([]int64, len(ws))
	for i, w := range ws {
		ids[i] = w.ID
	}
	rows, err = s.pool.Query(ctx, `SELECT e.id, e.watch_id, e.cause, coalesce(e.quote_id, 0), e.value, e.created_at
		FROM unnest($1::bigint[]) AS x (id)
		CROSS JOIN LATERAL (SELECT * FROM watch_events e WHERE e.watch_id = x.id ORDER BY e.created_at DESC, e.id DESC LIMIT 3) e
		ORDER BY e.watch_id, e.created_at DESC, e.id DESC`, ids)
	if err != nil {
		return nil, nil, fmt.Errorf("watch events: %w", err)
	}
	events := map[int64][]WatchEvent{}
	var e WatchEvent
	if _, err := pgx.ForEachRow(rows, []any{&e.ID, &e.WatchID, &e.Cause, &e.QuoteID, &e.Value, &e.CreatedAt}, func() error {
		events[e.WatchID] = append(events[e.WatchID], e)
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("watch events: %w", err)
	}
	return ws, events, nil
}

// CreateWatch stores a new watch, armed, and audits it (docs/RULES.md
// §24.1). w.OwnerID 0 makes a shared watch, which only an editor makes.
func (s *Store) CreateWatch(ctx context.Context, a user.Actor, editor bool, now time.Time, w watch.Watch) (watch.Watch, error) {
	if w.Shared() && !editor {
		return watch.Watch{}, ErrWatchForbidden
	}
	w.Normalize()
	var out watch.Watch
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO watches (owner_id, platform_id, gpu_model_id, gpu_count, sharing, currency, kind, basis,
				target, percent, cooldown_hours, paused, armed, created_by, created_at, updated_at, profile_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, false, true, $12, $13, $13, $14) RETURNING id`,
			nullID(w.OwnerID), nullID(w.PlatformID), nullID(w.GPUModelID), nullCount(w.GPUCount), w.Sharing, w.Currency, string(w.Kind),
			string(w.Basis), nullPositive(w.Target), nullPositive(w.Percent), w.CooldownHours, nullID(a.UserID), now,
			nullID(w.ProfileID)).Scan(&id); err != nil {
			if fk := watchReference(err); fk != nil {
				return fk
			}
			return fmt.Errorf("create watch: %w", err)
		}
		var err error
		if out, err = scanWatch(tx.QueryRow(ctx, `SELECT `+watchColumns+watchFrom+` WHERE w.id = $1`, id)); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionWatchCreate, Entity: "watch", EntityID: strconv.FormatInt(id, 10), After: watchAudit(out)})
	})
	return out, err
}

// watchAudit is what the audit log keeps of a watch.
func watchAudit(w watch.Watch) map[string]any {
	return map[string]any{"owner": w.OwnerID, "platform": w.PlatformID, "gpu_model": w.GPUModelID, "gpu_count": w.GPUCount,
		"sharing": w.Sharing, "currency": w.Currency, "kind": w.Kind, "basis": w.Basis, "target": w.Target.String(),
		"percent": w.Percent.String(), "cooldown_hours": w.CooldownHours, "paused": w.Paused, "profile": w.ProfileID}
}

// lockedWatch locks live watch id for a change by userID: their own, or a
// shared one when editor. Another user's watch is ErrNotFound.
func lockedWatch(ctx context.Context, tx pgx.Tx, id, userID int64, editor bool) (watch.Watch, error) {
	w, err := scanWatch(tx.QueryRow(ctx, `SELECT `+watchColumns+watchFrom+` WHERE w.id = $1 AND w.deleted_at IS NULL FOR UPDATE OF w`, id))
	if err != nil {
		return watch.Watch{}, notFound(err)
	}
	switch {
	case w.Shared() && !editor:
		return watch.Watch{}, ErrWatchForbidden
	case !w.Shared() && w.OwnerID != userID:
		return watch.Watch{}, ErrNotFound
	}
	return w, nil
}

// UpdateWatch changes what watch w.ID watches and its condition, audited;
// a changed watch is armed again (docs/RULES.md §24.3). Whether it is
// shared does not change.
func (s *Store) UpdateWatch(ctx context.Context, a user.Actor, editor bool, now time.Time, w watch.Watch) (watch.Watch, error) {
	w.Normalize()
	var out watch.Watch
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := lockedWatch(ctx, tx, w.ID, a.UserID, editor)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE watches SET platform_id = $2, gpu_model_id = $3, gpu_count = $4, sharing = $5, currency = $6,
				kind = $7, basis = $8, target = $9, percent = $10, cooldown_hours = $11, armed = true, updated_at = $12, profile_id = $13 WHERE id = $1`,
			w.ID, nullID(w.PlatformID), nullID(w.GPUModelID), nullCount(w.GPUCount), w.Sharing, w.Currency, string(w.Kind), string(w.Basis),
			nullPositive(w.Target), nullPositive(w.Percent), w.CooldownHours, now, nullID(w.ProfileID)); err != nil {
			if fk := watchReference(err); fk != nil {
				return fk
			}
			return fmt.Errorf("update watch: %w", err)
		}
		if out, err = scanWatch(tx.QueryRow(ctx, `SELECT `+watchColumns+watchFrom+` WHERE w.id = $1`, w.ID)); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionWatchUpdate, Entity: "watch", EntityID: strconv.FormatInt(w.ID, 10),
			Before: watchAudit(before), After: watchAudit(out)})
	})
	return out, err
}

// PauseWatch pauses (paused) or resumes watch id, audited. A resumed
// watch is armed again.
func (s *Store) PauseWatch(ctx context.Context, a user.Actor, editor bool, now time.Time, id int64, paused bool) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := lockedWatch(ctx, tx, id, a.UserID, editor); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE watches SET paused = $2, armed = armed OR NOT $2, updated_at = $3 WHERE id = $1`, id, paused, now); err != nil {
			return fmt.Errorf("pause watch: %w", err)
		}
		action := ActionWatchResume
		if paused {
			action = ActionWatchPause
		}
		return audit(ctx, tx, a, AuditEntry{Action: action, Entity: "watch", EntityID: strconv.FormatInt(id, 10),
			Before: map[string]any{"paused": !paused}, After: map[string]any{"paused": paused}})
	})
}

// DeleteWatch deletes watch id, audited: it is no longer listed nor
// evaluated; its row stays for the notices that name its matches.
func (s *Store) DeleteWatch(ctx context.Context, a user.Actor, editor bool, now time.Time, id int64) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := lockedWatch(ctx, tx, id, a.UserID, editor)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE watches SET deleted_at = $2, updated_at = $2 WHERE id = $1`, id, now); err != nil {
			return fmt.Errorf("delete watch: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionWatchDelete, Entity: "watch", EntityID: strconv.FormatInt(id, 10),
			Before: watchAudit(before)})
	})
}

// candidateWatches locks the live, unpaused watches of kinds about a
// platform × GPU model, found on watches_pair_idx and watches_gpu_idx:
// those naming the pair, the platform alone or the GPU model alone
// (docs/RULES.md §24.2). Locking them serializes two processes' matches
// of one watch, so its armed state is read and written by one at a time.
func candidateWatches(ctx context.Context, q Querier, platformID, gpuModelID int64, kinds ...watch.Kind) ([]watch.Watch, error) {
	ks := make([]string, len(kinds))
	for i, k := range kinds {
		ks[i] = string(k)
	}
	rows, err := q.Query(ctx, `SELECT `+watchColumns+watchFrom+`
		WHERE w.deleted_at IS NULL AND NOT w.paused AND w.kind = ANY($3)
		  AND (w.platform_id = $1 AND (w.gpu_model_id = $2 OR w.gpu_model_id IS NULL)
		       OR w.platform_id IS NULL AND w.gpu_model_id = $2)
		ORDER BY w.id FOR UPDATE OF w`, platformID, gpuModelID, ks)
	if err != nil {
		return nil, fmt.Errorf("candidate watches: %w", err)
	}
	ws, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (watch.Watch, error) { return scanWatch(r) })
	if err != nil {
		return nil, fmt.Errorf("candidate watches: %w", err)
	}
	return ws, nil
}

// applyReading decides what reading r of cause does to watch w
// (watch.Decide) and, on a match, adds the event once — a cause already
// recorded for the watch (another process, a second run) adds nothing and
// tells nobody — and its notices, all in q's transaction (docs/RULES.md
// §24.2, §24.3). It says whether a new event was added.
func applyReading(ctx context.Context, q Querier, w *watch.Watch, cause string, quoteID int64, r watch.Reading, now time.Time) (bool, error) {
	match, next := watch.Decide(*w, r, now)
	if match {
		var eventID int64
		err := q.QueryRow(ctx, `INSERT INTO watch_events (watch_id, cause, quote_id, value, created_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (watch_id, cause) DO NOTHING RETURNING id`, w.ID, cause, nullID(quoteID), r.Value, now).Scan(&eventID)
		if errors.Is(err, pgx.ErrNoRows) {
			match, next = false, w.State
		} else if err != nil {
			return false, fmt.Errorf("watch event: %w", err)
		} else {
			n := notify.Notice{Kind: notify.WatchMatched, EntityID: eventID, At: now}
			if w.Shared() {
				err = notifyRoles(ctx, q, n, "editor")
			} else {
				err = notifyUsers(ctx, q, n, w.OwnerID)
			}
			if err == nil {
				err = enqueueWatchMatched(ctx, q, *w, eventID, quoteID, cause, now)
			}
			if err != nil {
				return false, err
			}
		}
	}
	if next.Armed != w.Armed || match {
		if _, err := q.Exec(ctx, `UPDATE watches SET armed = $2, last_matched_at = $3 WHERE id = $1`, w.ID, next.Armed, next.LastMatchedAt); err != nil {
			return false, fmt.Errorf("watch state: %w", err)
		}
	}
	w.State = next
	return match, nil
}

// publishedOffer is what the evaluation reads of a quote just published.
type publishedOffer struct {
	watch.Offer
	SeriesID          int64
	Hourly, Monthly   decimal.NullDecimal
	PrevHourly        decimal.NullDecimal
	PrevMonthly       decimal.NullDecimal
	IncludesTax       bool
	TaxRate           decimal.Decimal
	LowestHourlyPerGP decimal.NullDecimal
}

// watchPublished evaluates the watches of quote versions ids, just
// published, in the publishing transaction (docs/RULES.md §24.2): price
// targets (per GPU or TCO), jumps from the offer's previous version and
// new lows. A notice exists exactly when the publication committed.
func watchPublished(ctx context.Context, q Querier, now time.Time, ids ...int64) error {
	ev := newPriceEval(now)
	for _, id := range ids {
		var o publishedOffer
		// The previous sample of the same offer is the one samplesCTE
		// names (same series, currency and count); the lowest is over
		// every other published or archived quote of the pair in the
		// currency, per GPU-hour, tax included.
		err := q.QueryRow(ctx, `
			SELECT q.id, q.series_id, q.platform_id, q.gpu_model_id, q.gpu_count, q.sharing, q.currency, q.hourly, q.monthly,
			       q.prices_include_tax, q.tax_rate,
			       (SELECT pq.hourly FROM quotes pq WHERE pq.series_id = q.series_id AND pq.id <> q.id AND pq.state IN ('published', 'archived')
			          AND pq.currency = q.currency AND pq.gpu_count = q.gpu_count AND (pq.as_of, pq.id) < (q.as_of, q.id)
			        ORDER BY pq.as_of DESC, pq.id DESC LIMIT 1),
			       (SELECT pq.monthly FROM quotes pq WHERE pq.series_id = q.series_id AND pq.id <> q.id AND pq.state IN ('published', 'archived')
			          AND pq.currency = q.currency AND pq.gpu_count = q.gpu_count AND (pq.as_of, pq.id) < (q.as_of, q.id)
			        ORDER BY pq.as_of DESC, pq.id DESC LIMIT 1),
			       (SELECT min(round(o.hourly * CASE WHEN o.prices_include_tax THEN 1 ELSE 1 + o.tax_rate END / o.gpu_count, 6))
			        FROM quotes o WHERE o.platform_id = q.platform_id AND o.gpu_model_id = q.gpu_model_id AND o.currency = q.currency
			          AND o.state IN ('published', 'archived') AND o.id <> q.id AND o.hourly IS NOT NULL)
			FROM quotes q WHERE q.id = $1`, id).Scan(&o.QuoteID, &o.SeriesID, &o.PlatformID, &o.GPUModelID, &o.GPUCount, &o.Sharing,
			&o.Currency, &o.Hourly, &o.Monthly, &o.IncludesTax, &o.TaxRate, &o.PrevHourly, &o.PrevMonthly, &o.LowestHourlyPerGP)
		if err != nil {
			return fmt.Errorf("watch published quote %d: %w", id, err)
		}
		ws, err := candidateWatches(ctx, q, o.PlatformID, o.GPUModelID, watch.PriceBelow, watch.PriceJump, watch.NewLow)
		if err != nil {
			return err
		}
		cause := "quote:" + strconv.FormatInt(id, 10)
		for _, w := range ws {
			if !w.Covers(o.Offer) {
				continue
			}
			var r watch.Reading
			switch w.Kind {
			case watch.PriceBelow:
				var ok bool
				if r, ok, err = ev.priceReading(ctx, q, w, o); err != nil {
					return err
				} else if !ok {
					continue
				}
			case watch.PriceJump:
				if r = watch.JumpReading(w, o.Hourly, o.PrevHourly); !r.Hit {
					r = watch.JumpReading(w, o.Monthly, o.PrevMonthly)
				}
			case watch.NewLow:
				if !o.Hourly.Valid || !o.LowestHourlyPerGP.Valid {
					continue
				}
				p := watch.PerGPU(o.Hourly.Decimal, o.GPUCount, o.IncludesTax, o.TaxRate, decimal.New(1, 0))
				r = watch.Reading{Hit: p.LessThan(o.LowestHourlyPerGP.Decimal), Value: decimal.NewNullDecimal(p)}
			}
			if _, err := applyReading(ctx, q, &w, cause, id, r, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// priceEval prices published quotes for price watches during one
// evaluation, reading each rate, quote, GPU model and profile once.
type priceEval struct {
	today    time.Time
	rates    map[[2]string]*tco.FX
	quotes   map[int64]quote.Quote
	gpus     map[int64]market.GPUModel
	profiles map[int64]*tco.Profile
}

func newPriceEval(now time.Time) *priceEval {
	return &priceEval{today: notify.DigestDay(now), rates: map[[2]string]*tco.FX{}, quotes: map[int64]quote.Quote{},
		gpus: map[int64]market.GPUModel{}, profiles: map[int64]*tco.Profile{}}
}

// priceReading is price watch w's reading of published offer o
// (docs/RULES.md §24.1): its price per GPU-hour or GPU-month, tax
// included, or its confirmed TCO for the watch's profile, in the watch's
// currency at the newest rate for the exact pair dated on or before today.
// ok is false when there is nothing to read: no such price, no rate, no
// profile (deleted, or no longer valid), or a quote the profile rules out.
func (e *priceEval) priceReading(ctx context.Context, q Querier, w watch.Watch, o publishedOffer) (watch.Reading, bool, error) {
	if w.Basis == watch.TCO && w.ProfileID == 0 {
		return watch.Reading{}, false, nil // its profile was deleted
	}
	var fx *tco.FX
	if o.Currency != w.Currency {
		var err error
		if fx, err = e.rate(ctx, q, o.Currency, w.Currency); err != nil || fx == nil {
			return watch.Reading{}, false, err // no rate, no conversion (docs/RULES.md §5.2)
		}
	}
	if w.Basis != watch.TCO {
		price := o.Hourly
		if w.Basis == watch.Monthly {
			price = o.Monthly
		}
		if !price.Valid {
			return watch.Reading{}, false, nil
		}
		rate := decimal.New(1, 0)
		if fx != nil {
			rate = fx.Rate
		}
		return watch.PriceReading(w, watch.PerGPU(price.Decimal, o.GPUCount, o.IncludesTax, o.TaxRate, rate)), true, nil
	}
	p, err := e.profile(ctx, q, w.ProfileID)
	if err != nil || p == nil {
		return watch.Reading{}, false, err
	}
	qt, ok := e.quotes[o.QuoteID]
	if !ok {
		if qt, err = quoteByID(ctx, q, o.QuoteID, false); err != nil {
			return watch.Reading{}, false, fmt.Errorf("watch quote %d: %w", o.QuoteID, err)
		}
		e.quotes[o.QuoteID] = qt
	}
	gpu, ok := e.gpus[qt.GPUModelID]
	if !ok {
		if gpu, err = scanGPUModel(q.QueryRow(ctx, `SELECT `+gpuModelColumns+` FROM gpu_models WHERE id = $1`, qt.GPUModelID)); err != nil {
			return watch.Reading{}, false, fmt.Errorf("watch gpu model %d: %w", qt.GPUModelID, err)
		}
		e.gpus[qt.GPUModelID] = gpu
	}
	total, ok := watch.TCOPrice(qt, gpu, *p, w.Currency, fx, e.today)
	if !ok {
		return watch.Reading{}, false, nil
	}
	return watch.PriceReading(w, total), true, nil
}

// rate is the newest rate from → to dated on or before today, read once
// per evaluation; nil when there is none.
func (e *priceEval) rate(ctx context.Context, q Querier, from, to string) (*tco.FX, error) {
	k := [2]string{from, to}
	if r, ok := e.rates[k]; ok {
		return r, nil
	}
	var fx tco.FX
	err := q.QueryRow(ctx, `SELECT rate, as_of FROM fx_rates WHERE base_currency = $1 AND quote_currency = $2 AND as_of <= $3
		ORDER BY as_of DESC LIMIT 1`, from, to, e.today).Scan(&fx.Rate, &fx.Date)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		e.rates[k] = nil
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("watch rate: %w", err)
	}
	e.rates[k] = &fx
	return &fx, nil
}

// profile is saved usage profile id as the engine reads it, read once per
// evaluation; nil when it is gone or its fields make no valid profile.
func (e *priceEval) profile(ctx context.Context, q Querier, id int64) (*tco.Profile, error) {
	if p, ok := e.profiles[id]; ok {
		return p, nil
	}
	var params map[string]string
	err := q.QueryRow(ctx, `SELECT params FROM usage_profiles WHERE id = $1`, id).Scan(&params)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("watch profile %d: %w", id, err)
	}
	var out *tco.Profile
	if err == nil {
		if p, ok := watch.ProfileOf(params); ok {
			out = &p
		}
	}
	e.profiles[id] = out
	return out, nil
}

// watchRateAdded evaluates, in the transaction that added exchange rate r,
// the price watches whose conversion it changes (docs/RULES.md §24.2):
// when r is the rate in force today for its pair (dated on or before
// today, no newer one), every live, unpaused price watch (any basis) in
// r's target currency — found on watches_price_currency_idx and locked —
// reads the published quotes it covers in r's source currency, found on
// the published quotes' platform (else GPU model) index. The cause is the
// quote version's, "quote:<id>", as when it was published: a version tells
// a watch of itself once, whether its publication or a later rate made it
// a match; a rate can still clear a disarmed watch (§24.3).
func watchRateAdded(ctx context.Context, q Querier, now time.Time, r market.FXRate) error {
	ev := newPriceEval(now)
	if r.AsOf.After(ev.today) || r.Base == r.Quote {
		return nil
	}
	var newer bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM fx_rates WHERE base_currency = $1 AND quote_currency = $2
		AND as_of > $3 AND as_of <= $4)`, r.Base, r.Quote, r.AsOf, ev.today).Scan(&newer); err != nil {
		return fmt.Errorf("watch rate: %w", err)
	}
	if newer {
		return nil // not the rate in force: no conversion changes
	}
	rows, err := q.Query(ctx, `SELECT `+watchColumns+watchFrom+`
		WHERE w.kind = 'price_below' AND w.currency = $1 AND w.deleted_at IS NULL AND NOT w.paused
		ORDER BY w.id FOR UPDATE OF w`, r.Quote)
	if err != nil {
		return fmt.Errorf("rate watches: %w", err)
	}
	ws, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (watch.Watch, error) { return scanWatch(r) })
	if err != nil {
		return fmt.Errorf("rate watches: %w", err)
	}
	for _, w := range ws {
		subject, args := `q.gpu_model_id = $2`, []any{r.Base, w.GPUModelID}
		if w.PlatformID != 0 {
			subject, args = `q.platform_id = $2 AND ($3::bigint = 0 OR q.gpu_model_id = $3)`, append(args[:1], w.PlatformID, w.GPUModelID)
		}
		rows, err := q.Query(ctx, `SELECT q.id, q.series_id, q.platform_id, q.gpu_model_id, q.gpu_count, q.sharing, q.currency,
				q.hourly, q.monthly, q.prices_include_tax, q.tax_rate
			FROM quotes q WHERE q.state = 'published' AND q.currency = $1 AND `+subject+`
			ORDER BY q.id`, args...)
		if err != nil {
			return fmt.Errorf("rate watch quotes: %w", err)
		}
		offers, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (publishedOffer, error) {
			var o publishedOffer
			err := row.Scan(&o.QuoteID, &o.SeriesID, &o.PlatformID, &o.GPUModelID, &o.GPUCount, &o.Sharing, &o.Currency,
				&o.Hourly, &o.Monthly, &o.IncludesTax, &o.TaxRate)
			return o, err
		})
		if err != nil {
			return fmt.Errorf("rate watch quotes: %w", err)
		}
		for _, o := range offers {
			if !w.Covers(o.Offer) {
				continue
			}
			rd, ok, err := ev.priceReading(ctx, q, w, o)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if _, err := applyReading(ctx, q, &w, "quote:"+strconv.FormatInt(o.QuoteID, 10), o.QuoteID, rd, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// watchAvailability evaluates the availability watches of record rec's
// platform × GPU model in the transaction that added it (docs/RULES.md
// §24.2): the success rate of the 30 days ending today.
func watchAvailability(ctx context.Context, q Querier, now time.Time, rec avail.Record) error {
	ws, err := candidateWatches(ctx, q, rec.PlatformID, rec.GPUModelID, watch.AvailabilityBelow)
	if err != nil || len(ws) == 0 {
		return err
	}
	from, until := avail.Window(now, watch.AvailabilityDays)
	rows, err := q.Query(ctx, `SELECT gpu_count, obtained FROM availability_records
		WHERE platform_id = $1 AND gpu_model_id = $2 AND attempted_at >= $3 AND attempted_at < $4`, rec.PlatformID, rec.GPUModelID, from, until)
	if err != nil {
		return fmt.Errorf("watch availability: %w", err)
	}
	type attempt struct {
		Count int
		OK    bool
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[attempt])
	if err != nil {
		return fmt.Errorf("watch availability: %w", err)
	}
	cause := "avail:" + strconv.FormatInt(rec.ID, 10)
	for _, w := range ws {
		obtained, attempts := 0, 0
		for _, a := range list {
			if w.GPUCount == 0 || a.Count == w.GPUCount {
				attempts++
				if a.OK {
					obtained++
				}
			}
		}
		if _, err := applyReading(ctx, q, &w, cause, 0, watch.AvailabilityReading(w, obtained, attempts), now); err != nil {
			return err
		}
	}
	return nil
}

// CheckWatchedReports is the daily check of report watches (docs/RULES.md
// §24.2): every quote an approved report relied on that is now stale (its
// as_of before tco.StaleBefore(today)) or superseded (archived, its series
// has a newer published version) matches the live report watches that
// cover it, once per watch and quote and cause. Each watch is checked in a
// transaction of its own under its row lock, so two processes running it
// at once add each event once. It says how many events it added.
func (s *Store) CheckWatchedReports(ctx context.Context, now time.Time) (int, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM watches WHERE kind = 'report_quote' AND deleted_at IS NULL AND NOT paused ORDER BY id`)
	if err != nil {
		return 0, fmt.Errorf("watched reports: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, fmt.Errorf("watched reports: %w", err)
	}
	staleBefore := tco.StaleBefore(notify.DigestDay(now))
	added := 0
	for _, id := range ids {
		if ctx.Err() != nil {
			return added, ctx.Err()
		}
		err := s.InTx(ctx, func(tx pgx.Tx) error {
			w, err := scanWatch(tx.QueryRow(ctx, `SELECT `+watchColumns+watchFrom+`
				WHERE w.id = $1 AND w.deleted_at IS NULL AND NOT w.paused FOR UPDATE OF w`, id))
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			if err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `
				WITH relied AS (
					SELECT DISTINCT (x.row -> 'quote' ->> 'id')::bigint AS quote_id
					FROM reports r CROSS JOIN LATERAL jsonb_array_elements(r.snapshot -> 'rows') AS x (row)
					WHERE r.status = 'approved' AND jsonb_typeof(r.snapshot -> 'rows') = 'array')
				SELECT q.id, q.platform_id, q.gpu_model_id, q.gpu_count, q.sharing, q.currency,
				       CASE WHEN q.state = 'archived' AND EXISTS (SELECT 1 FROM quotes n WHERE n.series_id = q.series_id AND n.state = 'published')
				            THEN 'superseded' ELSE 'stale' END
				FROM relied JOIN quotes q ON q.id = relied.quote_id
				WHERE ($1::bigint IS NULL OR q.platform_id = $1) AND ($2::bigint IS NULL OR q.gpu_model_id = $2)
				  AND (q.as_of < $3 OR q.state = 'archived' AND EXISTS (SELECT 1 FROM quotes n WHERE n.series_id = q.series_id AND n.state = 'published'))
				  AND NOT EXISTS (SELECT 1 FROM watch_events e WHERE e.watch_id = $4
				                  AND e.cause IN ('stale:' || q.id, 'superseded:' || q.id))
				ORDER BY q.id`, nullID(w.PlatformID), nullID(w.GPUModelID), staleBefore, w.ID)
			if err != nil {
				return fmt.Errorf("watched reports: %w", err)
			}
			type found struct {
				o   watch.Offer
				why string
			}
			list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (found, error) {
				var f found
				err := r.Scan(&f.o.QuoteID, &f.o.PlatformID, &f.o.GPUModelID, &f.o.GPUCount, &f.o.Sharing, &f.o.Currency, &f.why)
				return f, err
			})
			if err != nil {
				return fmt.Errorf("watched reports: %w", err)
			}
			for _, f := range list {
				if !w.Covers(f.o) {
					continue
				}
				ok, err := applyReading(ctx, tx, &w, f.why+":"+strconv.FormatInt(f.o.QuoteID, 10), f.o.QuoteID, watch.Reading{Hit: true}, now)
				if err != nil {
					return err
				}
				if ok {
					added++
					return nil // one match per run; the watch re-arms after its cooldown
				}
			}
			return nil
		})
		if err != nil {
			return added, err
		}
	}
	return added, nil
}
