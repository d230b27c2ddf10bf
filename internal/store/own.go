package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/own"
	"gpuquote/internal/tco"
	"gpuquote/internal/user"
)

// Audit actions of own-hardware options and electricity prices
// (docs/RULES.md §17.4).
const (
	ActionOwnOptionCreate        = "own_option.create"
	ActionOwnOptionVersion       = "own_option.new_version"
	ActionOwnOptionArchive       = "own_option.archive"
	ActionElectricityPriceCreate = "electricity_price.create"
)

// ErrOwnArchived means the option was archived: it takes no new version.
var ErrOwnArchived = errors.New("store: the own-hardware option is archived")

// ErrNoElectricitySeries means an option names a region that has no
// electricity price sample in the option's currency.
var ErrNoElectricitySeries = errors.New("store: no electricity price for this region in this currency")

// ErrNoElectricitySample means the option's region has no electricity
// price sample dated on or before the evaluation day.
var ErrNoElectricitySample = own.ErrNoElectricitySample

// ErrElectricityPriceExists means the region already has a sample in that
// currency on that day.
var ErrElectricityPriceExists = errors.New("store: an electricity price for this region, currency and day exists")

// ownVersionColumns are what scanOwnVersion reads (table alias v, the GPU
// model g, the version's author vu).
const ownVersionColumns = `v.id, v.option_id, v.version, v.name, v.gpu_model_id, v.gpu_count, v.currency,
	v.purchase_price, v.purchase_as_of, v.purchase_source, v.residual_pct, v.life_months,
	v.power_load_w, v.power_idle_w, v.pue, coalesce(v.electricity_region, ''), v.kwh_price, v.always_on,
	v.hosting_monthly, v.ops_monthly, v.maintenance_pct_per_year, v.setup_one_off, v.capital_rate_per_year,
	v.prices_include_tax, v.tax_rate, v.notes, coalesce(v.created_by, 0), v.created_at, coalesce(vu.display_name, ''),
	g.vendor, g.name`

const ownVersionFrom = ` FROM own_option_versions v JOIN gpu_models g ON g.id = v.gpu_model_id
	LEFT JOIN users vu ON vu.id = v.created_by`

func ownVersionDest(v *own.Version) []any {
	return []any{&v.ID, &v.OptionID, &v.Version, &v.Name, &v.GPUModelID, &v.GPUCount, &v.Currency,
		&v.PurchasePrice, &v.PurchaseAsOf, &v.PurchaseSource, &v.ResidualPct, &v.LifeMonths,
		&v.PowerLoadW, &v.PowerIdleW, &v.PUE, &v.ElectricityRegion, &v.KWhPrice, &v.AlwaysOn,
		&v.HostingMonthly, &v.OpsMonthly, &v.MaintenancePctPerYear, &v.SetupOneOff, &v.CapitalRatePerYear,
		&v.PricesIncludeTax, &v.TaxRate, &v.Notes, &v.CreatedBy, &v.CreatedAt, &v.CreatedByName,
		&v.GPUVendor, &v.GPUName}
}

// ownOptionColumns read an option (alias o, its author ou) and its newest
// version.
const ownOptionColumns = `o.id, o.shared, coalesce(o.created_by, 0), coalesce(ou.display_name, ''), o.created_at,
	o.latest_version, o.archived_at, ` + ownVersionColumns

const ownOptionFrom = ` FROM own_options o
	JOIN own_option_versions v ON v.option_id = o.id AND v.version = o.latest_version
	JOIN gpu_models g ON g.id = v.gpu_model_id
	LEFT JOIN users ou ON ou.id = o.created_by
	LEFT JOIN users vu ON vu.id = v.created_by`

func scanOwnOption(row pgx.Row, extra ...any) (own.Option, error) {
	var o own.Option
	dest := append([]any{&o.ID, &o.Shared, &o.CreatedBy, &o.CreatedByName, &o.CreatedAt, &o.LatestVersion, &o.ArchivedAt},
		ownVersionDest(&o.Current)...)
	err := row.Scan(append(dest, extra...)...)
	return o, err
}

// actorRole is the role the actor holds now, read in the transaction that
// writes ("" for the system actor, who keeps every option).
func actorRole(ctx context.Context, q Querier, a user.Actor) (string, error) {
	if a.UserID == 0 {
		return "", nil
	}
	var role string
	if err := q.QueryRow(ctx, `SELECT role FROM users WHERE id = $1`, a.UserID).Scan(&role); err != nil {
		return "", fmt.Errorf("actor role: %w", notFound(err))
	}
	return role, nil
}

// electricitySeries returns the spelling a region is stored with in
// currency (region codes match whatever their letter case), or
// ErrNoElectricitySeries when the region has no sample in it.
func electricitySeries(ctx context.Context, q Querier, region, currency string) (string, error) {
	var stored string
	err := q.QueryRow(ctx, `SELECT region FROM electricity_prices WHERE lower(region) = lower($1) AND currency = $2
		ORDER BY id LIMIT 1`, region, currency).Scan(&stored)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNoElectricitySeries
	}
	if err != nil {
		return "", fmt.Errorf("electricity series: %w", err)
	}
	return stored, nil
}

// insertOwnVersion writes version v of option optionID (the caller set the
// series row's newest version to v.Version) and reads it back.
func insertOwnVersion(ctx context.Context, tx pgx.Tx, a user.Actor, optionID int64, v own.Version) (own.Version, error) {
	if v.ElectricityRegion != "" {
		region, err := electricitySeries(ctx, tx, v.ElectricityRegion, v.Currency)
		if err != nil {
			return own.Version{}, err
		}
		v.ElectricityRegion, v.KWhPrice.Valid = region, false
	}
	var region *string
	if v.ElectricityRegion != "" {
		region = &v.ElectricityRegion
	}
	var id int64
	err := tx.QueryRow(ctx, `
		INSERT INTO own_option_versions (option_id, version, name, gpu_model_id, gpu_count, currency,
			purchase_price, purchase_as_of, purchase_source, residual_pct, life_months,
			power_load_w, power_idle_w, pue, electricity_region, kwh_price, always_on,
			hosting_monthly, ops_monthly, maintenance_pct_per_year, setup_one_off, capital_rate_per_year,
			prices_include_tax, tax_rate, notes, created_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
			$23, $24, $25, $26)
		RETURNING id`,
		optionID, v.Version, v.Name, v.GPUModelID, v.GPUCount, v.Currency,
		v.PurchasePrice, v.PurchaseAsOf, v.PurchaseSource, v.ResidualPct, v.LifeMonths,
		v.PowerLoadW, v.PowerIdleW, v.PUE, region, v.KWhPrice, v.AlwaysOn,
		v.HostingMonthly, v.OpsMonthly, v.MaintenancePctPerYear, v.SetupOneOff, v.CapitalRatePerYear,
		v.PricesIncludeTax, v.TaxRate, v.Notes, nullID(a.UserID)).Scan(&id)
	if err != nil {
		return own.Version{}, fmt.Errorf("own option version: %w", err)
	}
	var out own.Version
	if err := tx.QueryRow(ctx, `SELECT `+ownVersionColumns+ownVersionFrom+` WHERE v.id = $1`, id).Scan(ownVersionDest(&out)...); err != nil {
		return own.Version{}, fmt.Errorf("own option version: %w", err)
	}
	return out, nil
}

// CreateOwnOption stores a new own-hardware option with v as its version 1
// and audits it in the same transaction (docs/RULES.md §17.4). A shared
// option needs an editor or admin (ErrNotAllowed otherwise, the role read
// now); the system actor's options are always shared. An electricity
// region without a sample in the option's currency is ErrNoElectricitySeries.
func (s *Store) CreateOwnOption(ctx context.Context, a user.Actor, v own.Version, shared bool) (own.Option, error) {
	var out own.Option
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		role, err := actorRole(ctx, tx, a)
		if err != nil {
			return err
		}
		if a.UserID == 0 {
			shared = true
		} else if shared && !own.MayShare(role) {
			return ErrNotAllowed
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO own_options (shared, created_by) VALUES ($1, $2) RETURNING id`,
			shared, nullID(a.UserID)).Scan(&id); err != nil {
			return fmt.Errorf("create own option: %w", err)
		}
		v.Version = 1
		if _, err := insertOwnVersion(ctx, tx, a, id, v); err != nil {
			return err
		}
		if out, err = ownOptionByID(ctx, tx, id); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionOwnOptionCreate, Entity: "own_option",
			EntityID: strconv.FormatInt(id, 10), After: out})
	})
	if err != nil {
		return own.Option{}, err
	}
	return out, nil
}

// lockOwnOption reads option id under its row lock and checks that the
// actor may change it, with the role they hold now.
func lockOwnOption(ctx context.Context, tx pgx.Tx, a user.Actor, id int64) (own.Option, error) {
	var o own.Option
	err := tx.QueryRow(ctx, `SELECT id, shared, coalesce(created_by, 0), latest_version, archived_at
		FROM own_options WHERE id = $1 FOR UPDATE`, id).Scan(&o.ID, &o.Shared, &o.CreatedBy, &o.LatestVersion, &o.ArchivedAt)
	if err != nil {
		return o, notFound(err)
	}
	role, err := actorRole(ctx, tx, a)
	if err != nil {
		return o, err
	}
	if a.UserID != 0 && !own.MayWrite(o, a.UserID, role) {
		return o, ErrNotAllowed
	}
	return o, nil
}

// NewOwnOptionVersion stores v as the next version of option id and audits
// it in the same transaction; earlier versions are never touched. basedOn
// is the version the edit started from: when another version was stored
// since, ErrConflict and nothing is written. ErrNotAllowed when the actor
// may not change the option (docs/RULES.md §17.4), ErrOwnArchived when it
// is archived, ErrNoElectricitySeries as for CreateOwnOption.
func (s *Store) NewOwnOptionVersion(ctx context.Context, a user.Actor, id int64, basedOn int, v own.Version) (own.Option, error) {
	var out own.Option
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		o, err := lockOwnOption(ctx, tx, a, id)
		if err != nil {
			return err
		}
		switch {
		case o.ArchivedAt != nil:
			return ErrOwnArchived
		case o.LatestVersion != basedOn:
			return ErrConflict
		}
		before, err := ownOptionByID(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE own_options SET latest_version = latest_version + 1 WHERE id = $1`, id); err != nil {
			return fmt.Errorf("own option version: %w", err)
		}
		v.Version = o.LatestVersion + 1
		if _, err := insertOwnVersion(ctx, tx, a, id, v); err != nil {
			return err
		}
		if out, err = ownOptionByID(ctx, tx, id); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionOwnOptionVersion, Entity: "own_option",
			EntityID: strconv.FormatInt(id, 10), Before: before.Current, After: out.Current})
	})
	if err != nil {
		return own.Option{}, err
	}
	return out, nil
}

// ArchiveOwnOption withdraws option id and audits it; its versions stay,
// and so does every report that names one. ErrNotAllowed as for
// NewOwnOptionVersion; ErrOwnArchived when it is archived already.
func (s *Store) ArchiveOwnOption(ctx context.Context, a user.Actor, id int64) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		o, err := lockOwnOption(ctx, tx, a, id)
		if err != nil {
			return err
		}
		if o.ArchivedAt != nil {
			return ErrOwnArchived
		}
		var at time.Time
		if err := tx.QueryRow(ctx, `UPDATE own_options SET archived_at = now(), archived_by = $2 WHERE id = $1
			RETURNING archived_at`, id, nullID(a.UserID)).Scan(&at); err != nil {
			return fmt.Errorf("archive own option: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionOwnOptionArchive, Entity: "own_option",
			EntityID: strconv.FormatInt(id, 10), After: map[string]any{"archived_at": at, "version": o.LatestVersion}})
	})
}

func ownOptionByID(ctx context.Context, q Querier, id int64) (own.Option, error) {
	o, err := scanOwnOption(q.QueryRow(ctx, `SELECT `+ownOptionColumns+ownOptionFrom+` WHERE o.id = $1`, id))
	if err != nil {
		return own.Option{}, ownNotFound(err)
	}
	return o, nil
}

// OwnOptionByID returns option id with its newest version. It does not
// check who may see it: callers apply own.MayRead.
func (s *Store) OwnOptionByID(ctx context.Context, id int64) (own.Option, error) {
	return ownOptionByID(ctx, s.pool, id)
}

// OwnOptionVersion returns version n of option optionID (ErrNotFound when
// it has none).
func (s *Store) OwnOptionVersion(ctx context.Context, optionID int64, n int) (own.Version, error) {
	var v own.Version
	err := s.pool.QueryRow(ctx, `SELECT `+ownVersionColumns+ownVersionFrom+` WHERE v.option_id = $1 AND v.version = $2`,
		optionID, n).Scan(ownVersionDest(&v)...)
	if err != nil {
		return own.Version{}, ownNotFound(err)
	}
	return v, nil
}

// OwnOptionVersionByID returns the version with this id, whatever its
// option: what a report that froze it names.
func (s *Store) OwnOptionVersionByID(ctx context.Context, id int64) (own.Version, error) {
	var v own.Version
	err := s.pool.QueryRow(ctx, `SELECT `+ownVersionColumns+ownVersionFrom+` WHERE v.id = $1`, id).Scan(ownVersionDest(&v)...)
	if err != nil {
		return own.Version{}, ownNotFound(err)
	}
	return v, nil
}

// OwnOptionVersions returns every version of option optionID, newest first.
func (s *Store) OwnOptionVersions(ctx context.Context, optionID int64) ([]own.Version, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+ownVersionColumns+ownVersionFrom+` WHERE v.option_id = $1 ORDER BY v.version DESC`, optionID)
	if err != nil {
		return nil, fmt.Errorf("own option versions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (own.Version, error) {
		var v own.Version
		err := row.Scan(ownVersionDest(&v)...)
		return v, err
	})
	if err != nil {
		return nil, fmt.Errorf("own option versions: %w", err)
	}
	return out, nil
}

// Scopes of the option list.
const (
	// OwnScopeAll lists every option the viewer may see.
	OwnScopeAll = ""
	// OwnScopeMine lists the viewer's own options.
	OwnScopeMine = "mine"
	// OwnScopeShared lists shared options.
	OwnScopeShared = "shared"
)

// OwnOptionFilter narrows the option list to what one viewer may see
// (docs/RULES.md §17.4). Zero fields do not filter, except Archived: the
// list holds current options unless it is set, archived ones if it is.
type OwnOptionFilter struct {
	ViewerID   int64
	ViewerRole string
	Scope      string
	GPUModelID int64
	Archived   bool
	Offset     int
	Limit      int
}

// OwnOptions lists the options the viewer may see, newest change first,
// with the total count matching the filter.
func (s *Store) OwnOptions(ctx context.Context, f OwnOptionFilter) ([]own.Option, int, error) {
	f.Offset, f.Limit = pageWindow(f.Offset, f.Limit)
	seesAll := own.MayRead(own.Option{}, 0, f.ViewerRole)
	where := ` WHERE (o.shared OR o.created_by = $1::bigint OR $2::boolean)
		AND ($3::text = '' OR ($3::text = 'mine' AND o.created_by = $1::bigint) OR ($3::text = 'shared' AND o.shared))
		AND ($4::bigint = 0 OR v.gpu_model_id = $4::bigint)
		AND ((o.archived_at IS NOT NULL) = $5)`
	args := []any{f.ViewerID, seesAll, f.Scope, f.GPUModelID, f.Archived}
	rows, err := s.pool.Query(ctx, `SELECT `+ownOptionColumns+`, count(*) OVER ()`+ownOptionFrom+where+`
		ORDER BY v.created_at DESC, o.id DESC OFFSET $6 LIMIT $7`, append(args, f.Offset, f.Limit)...)
	if err != nil {
		return nil, 0, fmt.Errorf("own options: %w", err)
	}
	var total int
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (own.Option, error) { return scanOwnOption(row, &total) })
	if err != nil {
		return nil, 0, fmt.Errorf("own options: %w", err)
	}
	if len(out) == 0 && f.Offset > 0 {
		// Past the last page: report the true total anyway.
		if err := s.pool.QueryRow(ctx, `SELECT count(*)`+ownOptionFrom+where, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("own options: %w", err)
		}
	}
	return out, total, nil
}

// OwnOptionsBefore lists the options the viewer may see that f keeps
// (its Offset unused), newest option first by id, from the one before
// beforeID (0: from the newest), at most limit: the data API's keyset
// pages (docs/RULES.md §19.5), where an option's id never moves.
func (s *Store) OwnOptionsBefore(ctx context.Context, f OwnOptionFilter, beforeID int64, limit int) ([]own.Option, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+ownOptionColumns+ownOptionFrom+`
		WHERE (o.shared OR o.created_by = $1::bigint OR $2::boolean)
		AND ($3::text = '' OR ($3::text = 'mine' AND o.created_by = $1::bigint) OR ($3::text = 'shared' AND o.shared))
		AND ($4::bigint = 0 OR v.gpu_model_id = $4::bigint)
		AND ((o.archived_at IS NOT NULL) = $5)
		AND ($6::bigint = 0 OR o.id < $6::bigint)
		ORDER BY o.id DESC LIMIT $7`,
		f.ViewerID, own.MayRead(own.Option{}, 0, f.ViewerRole), f.Scope, f.GPUModelID, f.Archived, beforeID, limit)
	if err != nil {
		return nil, fmt.Errorf("own options before: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (own.Option, error) { return scanOwnOption(row) })
	if err != nil {
		return nil, fmt.Errorf("own options before: %w", err)
	}
	return out, nil
}

// Electricity prices are append-only history like reference prices and
// exchange rates (a trigger refuses changes, and the serving role may only
// add): a correction is a new dated row, and the newest row on or before a
// day is the one in force.
const electricityColumns = `id, region, currency, kwh_price, as_of, source, created_at`

func scanElectricity(row pgx.Row, extra ...any) (own.ElectricityPrice, error) {
	var p own.ElectricityPrice
	err := row.Scan(append([]any{&p.ID, &p.Region, &p.Currency, &p.KWhPrice, &p.AsOf, &p.Source, &p.CreatedAt}, extra...)...)
	return p, err
}

// CreateElectricityPrice stores a dated electricity sample and audits it in
// the same transaction. A region already sampled in another letter case
// keeps its first spelling. ErrElectricityPriceExists when the region has
// a sample in that currency on that day.
func (s *Store) CreateElectricityPrice(ctx context.Context, a user.Actor, p own.ElectricityPrice) (own.ElectricityPrice, error) {
	var out own.ElectricityPrice
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var stored string
		err := tx.QueryRow(ctx, `SELECT region FROM electricity_prices WHERE lower(region) = lower($1) ORDER BY id LIMIT 1`,
			p.Region).Scan(&stored)
		switch {
		case err == nil:
			p.Region = stored
		case !errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("create electricity price: %w", err)
		}
		out, err = scanElectricity(tx.QueryRow(ctx, `
			INSERT INTO electricity_prices (region, currency, kwh_price, as_of, source, created_by)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+electricityColumns,
			p.Region, p.Currency, p.KWhPrice, p.AsOf, p.Source, nullID(a.UserID)))
		if isUniqueViolation(err, "") {
			return ErrElectricityPriceExists
		}
		if err != nil {
			return fmt.Errorf("create electricity price: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionElectricityPriceCreate, Entity: "electricity_price",
			EntityID: strconv.FormatInt(out.ID, 10), After: out})
	})
	if err != nil {
		return own.ElectricityPrice{}, err
	}
	return out, nil
}

// ElectricityFilter narrows the electricity price history. Zero fields do
// not filter; Region matches whatever its letter case.
type ElectricityFilter struct {
	Region   string
	Currency string
	Offset   int
	Limit    int
}

// ElectricityPrices lists the electricity price history newest first (by
// as-of day, then by entry), with the total count matching the filter.
func (s *Store) ElectricityPrices(ctx context.Context, f ElectricityFilter) ([]own.ElectricityPrice, int, error) {
	f.Offset, f.Limit = pageWindow(f.Offset, f.Limit)
	const where = ` WHERE ($1 = '' OR lower(region) = lower($1)) AND ($2 = '' OR currency = $2)`
	rows, err := s.pool.Query(ctx, `SELECT `+electricityColumns+`, count(*) OVER () FROM electricity_prices`+where+`
		ORDER BY as_of DESC, id DESC OFFSET $3 LIMIT $4`, f.Region, f.Currency, f.Offset, f.Limit)
	if err != nil {
		return nil, 0, fmt.Errorf("electricity prices: %w", err)
	}
	var total int
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (own.ElectricityPrice, error) { return scanElectricity(row, &total) })
	if err != nil {
		return nil, 0, fmt.Errorf("electricity prices: %w", err)
	}
	if len(out) == 0 && f.Offset > 0 {
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM electricity_prices`+where, f.Region, f.Currency).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("electricity prices: %w", err)
		}
	}
	return out, total, nil
}

// CurrentElectricityPrices returns the samples in force on day: for each
// region and currency the newest one dated on or before day, by region
// and currency.
func (s *Store) CurrentElectricityPrices(ctx context.Context, day time.Time) ([]own.ElectricityPrice, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT ON (lower(region), currency) `+electricityColumns+`
		FROM electricity_prices WHERE as_of <= $1
		ORDER BY lower(region), currency, as_of DESC, id DESC`, day)
	if err != nil {
		return nil, fmt.Errorf("current electricity prices: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (own.ElectricityPrice, error) { return scanElectricity(row) })
	if err != nil {
		return nil, fmt.Errorf("current electricity prices: %w", err)
	}
	return out, nil
}

// ElectricitySeries is one region and currency electricity is sampled in
// (own.ElectricitySeries).
type ElectricitySeries = own.ElectricitySeries

// ElectricitySeriesList returns every region and currency with a sample,
// for the option form's suggestions.
func (s *Store) ElectricitySeriesList(ctx context.Context) ([]ElectricitySeries, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT ON (lower(region), currency) region, currency
		FROM electricity_prices ORDER BY lower(region), currency, id`)
	if err != nil {
		return nil, fmt.Errorf("electricity series: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[ElectricitySeries])
	if err != nil {
		return nil, fmt.Errorf("electricity series: %w", err)
	}
	return out, nil
}

// ElectricityPriceOn returns the sample for region and currency in force
// on day: the newest one dated on or before it (ErrNoElectricitySample
// when there is none).
func (s *Store) ElectricityPriceOn(ctx context.Context, region, currency string, day time.Time) (own.ElectricityPrice, error) {
	p, err := scanElectricity(s.pool.QueryRow(ctx, `SELECT `+electricityColumns+` FROM electricity_prices
		WHERE lower(region) = lower($1) AND currency = $2 AND as_of <= $3
		ORDER BY as_of DESC, id DESC LIMIT 1`, region, currency, day))
	if errors.Is(err, pgx.ErrNoRows) {
		return own.ElectricityPrice{}, fmt.Errorf("%s %s on %s: %w", region, currency, day.Format(time.DateOnly), ErrNoElectricitySample)
	}
	if err != nil {
		return own.ElectricityPrice{}, fmt.Errorf("electricity price: %w", err)
	}
	return p, nil
}

// ResolveElectricity is the kWh price of version v on day (docs/RULES.md
// §17.4): its own figure, or the sample of its region, in its currency, in
// force that day, named by id. ErrNoElectricitySample when the region has
// none dated on or before day.
func (s *Store) ResolveElectricity(ctx context.Context, v own.Version, day time.Time) (own.Electricity, error) {
	if v.ElectricityRegion == "" {
		return own.Electricity{KWhPrice: v.KWhPrice.Decimal}, nil
	}
	p, err := s.ElectricityPriceOn(ctx, v.ElectricityRegion, v.Currency, day)
	if err != nil {
		return own.Electricity{}, err
	}
	return own.Electricity{KWhPrice: p.KWhPrice, SampleID: p.ID, Region: p.Region, AsOf: p.AsOf, Source: p.Source}, nil
}

// OwnEngineInput builds the engine's input from the option version with id
// versionID, its kWh price resolved for day, and says which electricity
// sample it used (0: the option's own figure). It does not check who may
// see the option: callers apply own.MayRead.
func (s *Store) OwnEngineInput(ctx context.Context, versionID int64, day time.Time) (tco.Own, own.Version, own.Electricity, error) {
	v, err := s.OwnOptionVersionByID(ctx, versionID)
	if err != nil {
		return tco.Own{}, own.Version{}, own.Electricity{}, err
	}
	e, err := s.ResolveElectricity(ctx, v, day)
	if err != nil {
		return tco.Own{}, v, own.Electricity{}, err
	}
	return v.Engine(e.KWhPrice), v, e, nil
}

// ownNotFound is notFound for own-hardware options and versions: the
// error is both ErrNotFound and own.ErrNotFound, so the pricing of options
// (package compare) can name it without knowing the store.
func ownNotFound(err error) error {
	if err = notFound(err); err == ErrNotFound {
		return errors.Join(ErrNotFound, own.ErrNotFound)
	}
	return err
}
