package store

import "context"

// QuoteListCondition is the quote list's condition for f as Quotes builds
// it (names looked up first), with its arguments: tests read its plan.
func QuoteListCondition(ctx context.Context, s *Store, f QuoteFilter) (string, []any, error) {
	f, err := withNames(ctx, s.pool, f)
	if err != nil {
		return "", nil, err
	}
	cond, args := f.where()
	return cond, args, nil
}
