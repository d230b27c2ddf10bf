package server_test

import (
	"net/http"
	"testing"
	"time"

	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// TestReadyzFollowsDatabase stops a private PostgreSQL under a running app:
// /readyz answers 503 within 2 s, and 200 again once the database is back,
// without restarting the app.
func TestReadyzFollowsDatabase(t *testing.T) {
	t.Parallel()
	cluster := testutil.StartCluster(t)
	pool := cluster.MigratedPool("gpuquote", 4)
	app := testutil.NewAppOn(t, store.New(pool))
	client := &http.Client{Timeout: 2 * time.Second} // "within 2 s" is the client's deadline
	status := func() int {
		t.Helper()
		resp, err := client.Get(app.URL + "/readyz")
		if err != nil {
			t.Fatalf("/readyz did not answer within 2 s: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := status(); s != http.StatusOK {
		t.Fatalf("ready with the database up: %d", s)
	}
	if s := app.Client().Get("/healthz"); s.StatusCode != http.StatusOK {
		t.Fatal("healthz")
	}

	cluster.Stop()
	for i := 0; i < 3; i++ { // every call, not just the first, answers quickly
		if s := status(); s != http.StatusServiceUnavailable {
			t.Fatalf("database stopped: /readyz %d, want 503", s)
		}
	}
	if r := app.Client().Get("/healthz"); r.StatusCode != http.StatusOK {
		t.Fatalf("/healthz with the database down: %d, want 200 (process is up)", r.StatusCode)
	}

	cluster.Start()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := status()
		if s == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("database back but /readyz still %d after 15 s", s)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Pages that need the database work again too.
	if r := app.Client().Get("/login"); r.StatusCode != http.StatusOK {
		t.Fatalf("/login after recovery: %d", r.StatusCode)
	}
}
