package store

import (
	"context"
	"fmt"

	"gpuquote/internal/market"
)

// QuoteRefNames returns every platform (Chinese and English names) and
// every GPU model ("vendor name" and name), each followed by its aliases,
// ordered by name.
func (s *Store) QuoteRefNames(ctx context.Context) (platforms, gpus []market.RefName, err error) {
	return quoteRefNames(ctx, s.pool)
}

func quoteRefNames(ctx context.Context, q Querier) (platforms, gpus []market.RefName, err error) {
	rows, err := q.Query(ctx, `
		SELECT 'p', id, name_zh, name_en, aliases FROM platforms
		UNION ALL
		SELECT 'g', id, vendor || ' ' || name, name, aliases FROM gpu_models
		ORDER BY 1, 4, 3`)
	if err != nil {
		return nil, nil, fmt.Errorf("quote reference names: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			kind string
			r    market.RefName
			a, b string
			al   []string
		)
		if err := rows.Scan(&kind, &r.ID, &a, &b, &al); err != nil {
			return nil, nil, err
		}
		// Aliases after the names: an export writes a name (docs/RULES.md §7.6).
		r.Names = append([]string{a, b}, al...)
		if kind == "p" {
			platforms = append(platforms, r)
		} else {
			gpus = append(gpus, r)
		}
	}
	return platforms, gpus, rows.Err()
}
