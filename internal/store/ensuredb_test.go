package store_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// TestEnsureDatabaseAtOnce: processes starting together on a server where
// their database does not exist yet all succeed, one of them creating it
// (docs/RULES.md §20.3). Eight at once, five times over: PostgreSQL
// answers the losers either "already exists" or a unique violation on its
// catalog, depending on how far the winner had got.
func TestEnsureDatabaseAtOnce(t *testing.T) {
	ctx := context.Background()
	base := testutil.ServerURL()
	admin, err := pgx.ParseConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	admin.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	// Registered first, so it runs after the drops registered below.
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	for round := range 5 {
		name := fmt.Sprintf("gpuquote_ensure_%d_%d", os.Getpid(), round)
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + name
		dbURL := u.String()
		t.Cleanup(func() {
			if _, err := conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()); err != nil {
				t.Errorf("drop %s: %v", name, err)
			}
		})
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() { errs[i] = store.EnsureDatabase(ctx, dbURL) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, process %d: %v", round, i, err)
			}
		}
	}
}
