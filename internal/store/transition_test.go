package store_test

import (
	"context"
	"testing"

	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestDatabaseRefusesEveryOtherQuoteMove: the database's triggers and the
// domain's list of moves (quote.Transitions) agree on a published or an
// archived version, whatever path writes — a direct UPDATE of its state is
// accepted exactly when quote.Allowed says so (docs/RULES.md §7.1).
func TestDatabaseRefusesEveryOtherQuoteMove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid := marketFixture(t, st)
	published := testfactory.Published(t, st, sampleQuote(pid, gid)).ID
	archived := testfactory.Published(t, st, sampleQuote(pid, gid)).ID
	if err := st.ArchiveQuote(ctx, actor, archived); err != nil {
		t.Fatal(err)
	}
	for from, id := range map[string]int64{quote.Published: published, quote.Archived: archived} {
		for _, to := range allStates {
			if to == from {
				continue
			}
			accepted := tryMove(t, st, id, to)
			if want := quote.Allowed(from, to); accepted != want {
				t.Errorf("%s → %s: the database accepted it %v, quote.Allowed says %v", from, to, accepted, want)
			}
		}
	}
}

// tryMove updates quote id's state to state in a transaction it rolls
// back, and reports whether the database accepted it.
func tryMove(t *testing.T, st *store.Store, id int64, state string) bool {
	t.Helper()
	ctx := context.Background()
	tx, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `UPDATE quotes SET state = $2, archived_at = coalesce(archived_at, now()) WHERE id = $1`, id, state)
	return err == nil
}

var allStates = []string{quote.Draft, quote.Published, quote.Archived, quote.Proposed, quote.Returned, quote.Reviewed}
