package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/market"
	"gpuquote/internal/user"
)

// Numeric columns are scanned and written through decimal's sql.Scanner
// and driver.Valuer, which go through the exact text form, never float64.
const gpuModelColumns = `id, vendor, name, vram_gb, memory_bandwidth_gbs, interconnect, interconnect_gbs,
	tdp_w, boost_clock_mhz, load_power_min_w, load_power_max_w, load_clock_min_mhz, load_clock_max_mhz,
	source, as_of, notes, lock_version, coalesce(created_by, 0), created_at, coalesce(updated_by, 0), updated_at, aliases`

const gpuModelOrder = `lower(vendor), lower(name), id`

func gpuModelDest(g *market.GPUModel) []any {
	return []any{&g.ID, &g.Vendor, &g.Name, &g.VRAMGB, &g.MemoryBandwidthGBs, &g.Interconnect, &g.InterconnectGBs,
		&g.TDPW, &g.BoostClockMHz, &g.LoadPowerMinW, &g.LoadPowerMaxW, &g.LoadClockMinMHz, &g.LoadClockMaxMHz,
		&g.Source, &g.AsOf, &g.Notes, &g.LockVersion, &g.CreatedBy, &g.CreatedAt, &g.UpdatedBy, &g.UpdatedAt, &g.Aliases}
}

func scanGPUModel(row pgx.Row) (market.GPUModel, error) {
	var g market.GPUModel
	err := row.Scan(gpuModelDest(&g)...)
	return g, err
}

// normaliseGPUModel trims the text fields and puts the perf rows in
// PerfPrecisions order.
func normaliseGPUModel(g *market.GPUModel) {
	for _, s := range []*string{&g.Vendor, &g.Name, &g.Interconnect, &g.Source, &g.Notes} {
		*s = strings.TrimSpace(*s)
	}
	if g.Aliases == nil {
		g.Aliases = []string{}
	}
	if g.AsOf != nil {
		y, m, d := g.AsOf.Date()
		day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		g.AsOf = &day
	}
	perf := make([]market.GPUPerf, 0, len(g.Perf))
	for _, prec := range market.PerfPrecisions {
		for _, p := range g.Perf {
			if p.Precision == prec {
				p.NominalSource = strings.TrimSpace(p.NominalSource)
				p.MeasuredBenchmark = strings.TrimSpace(p.MeasuredBenchmark)
				p.MeasuredSource = strings.TrimSpace(p.MeasuredSource)
				perf = append(perf, p)
			}
		}
	}
	// Rows with a precision outside the list are kept so the database's
	// CHECK refuses them rather than this code dropping them silently.
	for _, p := range g.Perf {
		if !slices.Contains(market.PerfPrecisions, p.Precision) {
			perf = append(perf, p)
		}
	}
	g.Perf = perf
}

// gpuNameTaken maps the unique (vendor, name) violation to the name field.
func gpuNameTaken(err error) error {
	if isUniqueViolation(err, "gpu_models_vendor_name_key") {
		return &NameTakenError{Field: "name"}
	}
	return nil
}

// gpuNames are a GPU model's names ("Vendor Name" and the bare name) for
// checkAliases; both clash on the name field.
func gpuNames(g market.GPUModel) [][2]string {
	return [][2]string{{"name", g.Vendor + " " + g.Name}, {"name", g.Name}}
}

// insertGPUPerf writes the model's perf rows (the caller has removed the
// old ones).
func insertGPUPerf(ctx context.Context, tx pgx.Tx, id int64, perf []market.GPUPerf) error {
	for _, p := range perf {
		if _, err := tx.Exec(ctx, `
			INSERT INTO gpu_model_perf (gpu_model_id, precision, nominal_tflops, sparse, nominal_source,
				measured_tflops, measured_benchmark, measured_source)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			id, p.Precision, p.NominalTFLOPS, p.Sparse, p.NominalSource,
			p.MeasuredTFLOPS, p.MeasuredBenchmark, p.MeasuredSource); err != nil {
			return fmt.Errorf("gpu model perf %s: %w", p.Precision, err)
		}
	}
	return nil
}

// loadGPUPerf fills in the perf rows of the given models.
func loadGPUPerf(ctx context.Context, q Querier, models []market.GPUModel) error {
	if len(models) == 0 {
		return nil
	}
	ids := make([]int64, len(models))
	at := make(map[int64]int, len(models))
	for i, g := range models {
		ids[i] = g.ID
		at[g.ID] = i
		models[i].Perf = []market.GPUPerf{}
	}
	rows, err := q.Query(ctx, `
		SELECT gpu_model_id, precision, nominal_tflops, sparse, nominal_source,
			measured_tflops, measured_benchmark, measured_source
		FROM gpu_model_perf
		WHERE gpu_model_id = ANY($1)
		ORDER BY gpu_model_id, array_position(ARRAY['fp32', 'tf32', 'bf16', 'fp8'], precision)`, ids)
	if err != nil {
		return fmt.Errorf("gpu model perf: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id int64
			p  market.GPUPerf
		)
		if err := rows.Scan(&id, &p.Precision, &p.NominalTFLOPS, &p.Sparse, &p.NominalSource,
			&p.MeasuredTFLOPS, &p.MeasuredBenchmark, &p.MeasuredSource); err != nil {
			return fmt.Errorf("gpu model perf: %w", err)
		}
		i := at[id]
		models[i].Perf = append(models[i].Perf, p)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("gpu model perf: %w", err)
	}
	return nil
}

// CreateGPUModel inserts a GPU model with its perf rows and audits it. A
// *NameTakenError (ErrNameTaken) when the vendor already has a model of
// that name.
func (s *Store) CreateGPUModel(ctx context.Context, a user.Actor, g market.GPUModel) (market.GPUModel, error) {
	normaliseGPUModel(&g)
	var out market.GPUModel
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if err := checkAliases(ctx, tx, "gpu_models", 0, gpuNames(g), g.Aliases); err != nil {
			return err
		}
		var err error
		out, err = scanGPUModel(tx.QueryRow(ctx, `
			INSERT INTO gpu_models (vendor, name, vram_gb, memory_bandwidth_gbs, interconnect, interconnect_gbs,
				tdp_w, boost_clock_mhz, load_power_min_w, load_power_max_w, load_clock_min_mhz, load_clock_max_mhz,
				source, as_of, notes, created_by, updated_by, aliases)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16, $17)
			RETURNING `+gpuModelColumns,
			g.Vendor, g.Name, g.VRAMGB, g.MemoryBandwidthGBs, g.Interconnect, g.InterconnectGBs,
			g.TDPW, g.BoostClockMHz, g.LoadPowerMinW, g.LoadPowerMaxW, g.LoadClockMinMHz, g.LoadClockMaxMHz,
			g.Source, g.AsOf, g.Notes, nullableActorID(a), g.Aliases))
		if taken := gpuNameTaken(err); taken != nil {
			return taken
		}
		if err != nil {
			return fmt.Errorf("create gpu model: %w", err)
		}
		if err := insertGPUPerf(ctx, tx, out.ID, g.Perf); err != nil {
			return err
		}
		models := []market.GPUModel{out}
		if err := loadGPUPerf(ctx, tx, models); err != nil {
			return err
		}
		out = models[0]
		return audit(ctx, tx, a, AuditEntry{Action: ActionGPUModelCreate, Entity: "gpu_model",
			EntityID: strconv.FormatInt(out.ID, 10), After: out})
	})
	return out, err
}

// UpdateGPUModel saves g over the stored model g.ID when it is still at
// g.LockVersion, replaces its perf rows with g.Perf in the same
// transaction, bumps the version and audits before and after. ErrNotFound
// for a missing id, ErrConflict when someone saved in between, a
// *NameTakenError (ErrNameTaken) when the vendor and name are in use.
func (s *Store) UpdateGPUModel(ctx context.Context, a user.Actor, g market.GPUModel) (market.GPUModel, error) {
	normaliseGPUModel(&g)
	var after market.GPUModel
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := scanGPUModel(tx.QueryRow(ctx, `SELECT `+gpuModelColumns+` FROM gpu_models WHERE id = $1 FOR UPDATE`, g.ID))
		if err != nil {
			return notFound(err)
		}
		if before.LockVersion != g.LockVersion {
			return ErrConflict
		}
		if err := checkAliases(ctx, tx, "gpu_models", g.ID, gpuNames(g), g.Aliases); err != nil {
			return err
		}
		models := []market.GPUModel{before}
		if err := loadGPUPerf(ctx, tx, models); err != nil {
			return err
		}
		before = models[0]
		after, err = scanGPUModel(tx.QueryRow(ctx, `
			UPDATE gpu_models SET vendor = $3, name = $4, vram_gb = $5, memory_bandwidth_gbs = $6,
				interconnect = $7, interconnect_gbs = $8, tdp_w = $9, boost_clock_mhz = $10,
				load_power_min_w = $11, load_power_max_w = $12, load_clock_min_mhz = $13, load_clock_max_mhz = $14,
				source = $15, as_of = $16, notes = $17, updated_by = $18, updated_at = now(),
				lock_version = lock_version + 1, aliases = $19
			WHERE id = $1 AND lock_version = $2
			RETURNING `+gpuModelColumns,
			g.ID, g.LockVersion, g.Vendor, g.Name, g.VRAMGB, g.MemoryBandwidthGBs, g.Interconnect, g.InterconnectGBs,
			g.TDPW, g.BoostClockMHz, g.LoadPowerMinW, g.LoadPowerMaxW, g.LoadClockMinMHz, g.LoadClockMaxMHz,
			g.Source, g.AsOf, g.Notes, nullableActorID(a), g.Aliases))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrConflict
		}
		if taken := gpuNameTaken(err); taken != nil {
			return taken
		}
		if err != nil {
			return fmt.Errorf("update gpu model: %w", err)
		}
		// The form edits the whole table of figures, so the stored rows are
		// replaced, not merged: a row left empty removes that figure.
		if _, err := tx.Exec(ctx, `DELETE FROM gpu_model_perf WHERE gpu_model_id = $1`, g.ID); err != nil {
			return fmt.Errorf("replace gpu model perf: %w", err)
		}
		if err := insertGPUPerf(ctx, tx, g.ID, g.Perf); err != nil {
			return err
		}
		models = []market.GPUModel{after}
		if err := loadGPUPerf(ctx, tx, models); err != nil {
			return err
		}
		after = models[0]
		return audit(ctx, tx, a, AuditEntry{Action: ActionGPUModelUpdate, Entity: "gpu_model",
			EntityID: strconv.FormatInt(g.ID, 10), Before: before, After: after})
	})
	return after, err
}

// GPUModelByID finds a GPU model with its perf rows.
func (s *Store) GPUModelByID(ctx context.Context, id int64) (market.GPUModel, error) {
	g, err := scanGPUModel(s.pool.QueryRow(ctx, `SELECT `+gpuModelColumns+` FROM gpu_models WHERE id = $1`, id))
	if err != nil {
		return market.GPUModel{}, notFound(err)
	}
	models := []market.GPUModel{g}
	if err := loadGPUPerf(ctx, s.pool, models); err != nil {
		return market.GPUModel{}, err
	}
	return models[0], nil
}

// GPUModelByName finds a GPU model by "Vendor Name" ("NVIDIA RTX 4090"),
// by its bare name ("RTX 4090") or by an alias ("4090"), case-insensitively,
// with its perf rows, as quote references resolve names (docs/RULES.md
// §7.6). A full "Vendor Name" match or an alias (which no other model's
// name or alias may equal) wins; a bare name that several vendors use is
// ambiguous and, like no match, ErrNotFound.
func (s *Store) GPUModelByName(ctx context.Context, name string) (market.GPUModel, error) {
	name = strings.Join(strings.Fields(name), " ")
	if name == "" {
		return market.GPUModel{}, ErrNotFound
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+gpuModelColumns+`, m.decisive
		FROM gpu_models, LATERAL (SELECT lower(vendor || ' ' || name) = lower($1)
			OR EXISTS (SELECT 1 FROM unnest(aliases) a WHERE lower(a) = lower($1)) AS decisive) m
		WHERE m.decisive OR lower(name) = lower($1)
		ORDER BY m.decisive DESC, id
		LIMIT 2`, name)
	if err != nil {
		return market.GPUModel{}, fmt.Errorf("gpu model by name: %w", err)
	}
	type match struct {
		g        market.GPUModel
		decisive bool
	}
	found, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (match, error) {
		var m match
		err := row.Scan(append(gpuModelDest(&m.g), &m.decisive)...)
		return m, err
	})
	if err != nil {
		return market.GPUModel{}, fmt.Errorf("gpu model by name: %w", err)
	}
	if len(found) == 0 || (len(found) == 2 && !found[0].decisive) {
		return market.GPUModel{}, ErrNotFound
	}
	models := []market.GPUModel{found[0].g}
	if err := loadGPUPerf(ctx, s.pool, models); err != nil {
		return market.GPUModel{}, err
	}
	return models[0], nil
}

// GPUModelFilter narrows the GPU model list. Zero fields do not filter.
type GPUModelFilter struct {
	// Query is a substring of the vendor or the name, case-insensitive.
	Query string
	// Interconnect is one of GPUInterconnects.
	Interconnect string
	Offset       int
	Limit        int
}

const gpuModelWhere = `
	($1 = '' OR vendor ILIKE '%' || $1 || '%' OR name ILIKE '%' || $1 || '%'
		OR (vendor || ' ' || name) ILIKE '%' || $1 || '%')
	AND ($2 = '' OR interconnect = $2)`

// GPUModels lists GPU models by vendor and name, with their perf rows and
// the total count matching the filter.
func (s *Store) GPUModels(ctx context.Context, f GPUModelFilter) ([]market.GPUModel, int, error) {
	f.Offset, f.Limit = pageWindow(f.Offset, f.Limit)
	args := []any{escapeLike(strings.TrimSpace(f.Query)), f.Interconnect}
	rows, err := s.pool.Query(ctx, `
		SELECT `+gpuModelColumns+`, count(*) OVER ()
		FROM gpu_models
		WHERE `+gpuModelWhere+`
		ORDER BY `+gpuModelOrder+`
		OFFSET $3 LIMIT $4`, append(args, f.Offset, f.Limit)...)
	if err != nil {
		return nil, 0, fmt.Errorf("gpu models: %w", err)
	}
	var total int
	// CollectRows closes rows, releasing the connection before the queries below.
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.GPUModel, error) {
		var g market.GPUModel
		err := row.Scan(append(gpuModelDest(&g), &total)...)
		return g, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("gpu models: %w", err)
	}
	if len(out) == 0 && f.Offset > 0 {
		// Past the last page: report the true total anyway.
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM gpu_models WHERE `+gpuModelWhere, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("gpu models: %w", err)
		}
	}
	if err := loadGPUPerf(ctx, s.pool, out); err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// AllGPUModels lists every GPU model by vendor and name, with perf rows,
// for choosing one in a form.
func (s *Store) AllGPUModels(ctx context.Context) ([]market.GPUModel, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+gpuModelColumns+` FROM gpu_models ORDER BY `+gpuModelOrder)
	if err != nil {
		return nil, fmt.Errorf("all gpu models: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.GPUModel, error) { return scanGPUModel(row) })
	if err != nil {
		return nil, fmt.Errorf("all gpu models: %w", err)
	}
	if err := loadGPUPerf(ctx, s.pool, out); err != nil {
		return nil, err
	}
	return out, nil
}
