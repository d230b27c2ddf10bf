package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

func count(t *testing.T, st *store.Store, table string) int {
	t.Helper()
	var n int
	// table is a constant of this file, never input.
	if err := st.Pool().QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

var actor = user.Actor{Email: "tester@example.test", RequestID: "req-1", ClientIP: "127.0.0.1"}

func TestWriteAndAuditCommitTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The serving role writes; the owner plants the failing trigger.
	owner, app := testutil.DB(t)
	st, own := testutil.Open(t, app), testutil.Open(t, owner)
	u, err := st.CreateUser(ctx, actor, user.NewAccount{Email: "Ana@Example.test", DisplayName: "Ana", Role: "analyst", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.AuditLog(ctx, store.AuditFilter{Entity: "user"})
	if err != nil || len(recs) != 1 || recs[0].Action != store.ActionUserCreate || recs[0].ActorEmail != actor.Email || recs[0].RequestID != "req-1" {
		t.Fatalf("audit after create: %+v, %v", recs, err)
	}
	if after := string(recs[0].After); !strings.Contains(after, `"role": "analyst"`) || strings.Contains(after, "password") {
		t.Fatalf("audit after: %s (want the user without its password hash)", after)
	}
	if d := time.Since(recs[0].At); d < -time.Minute || d > time.Minute {
		t.Fatalf("audit time %s is not now", recs[0].At)
	}

	// A failing write leaves no audit row: duplicate email (case-insensitive).
	before := count(t, st, "audit_log")
	_, err = st.CreateUser(ctx, actor, user.NewAccount{Email: "ana@example.TEST", DisplayName: "Dup", Role: "analyst", PasswordHash: "x"})
	if !errors.Is(err, store.ErrEmailTaken) {
		t.Fatalf("duplicate email: %v, want ErrEmailTaken", err)
	}
	if got := count(t, st, "audit_log"); got != before {
		t.Fatalf("failed write left %d audit rows", got-before)
	}

	// A failing audit leaves no write: make audit inserts fail for one action.
	_, err = own.Pool().Exec(ctx, `
		CREATE FUNCTION fail_audit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.action = 'user.role' THEN RAISE EXCEPTION 'audit unavailable'; END IF; RETURN NEW; END $$;
		CREATE TRIGGER fail_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION fail_audit();`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetUserRole(ctx, actor, u.ID, "finance"); err == nil {
		t.Fatal("role change succeeded although its audit failed")
	}
	got, err := st.UserByID(ctx, u.ID)
	if err != nil || got.Role != "analyst" {
		t.Fatalf("role after failed audit: %q (%v), want analyst unchanged", got.Role, err)
	}
}

func TestAuditLogIsAppendOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	if _, err := st.CreateUser(ctx, actor, user.NewAccount{Email: "a@example.test", DisplayName: "A", Role: "admin", PasswordHash: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `UPDATE audit_log SET action = 'forged'`); err == nil {
		t.Fatal("audit_log accepted an UPDATE")
	}
	if _, err := st.Pool().Exec(ctx, `DELETE FROM audit_log`); err == nil {
		t.Fatal("audit_log accepted a DELETE")
	}
}

func TestUsersFilterAndPaging(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	for _, e := range []string{"b@x.test", "a@x.test", "c_1@x.test", "c%2@x.test"} {
		if _, err := st.CreateUser(ctx, actor, user.NewAccount{Email: e, DisplayName: e, Role: "editor", PasswordHash: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	us, total, err := st.Users(ctx, store.UserFilter{Limit: 2})
	if err != nil || total != 4 || len(us) != 2 || us[0].Email != "a@x.test" {
		t.Fatalf("page 1: %v total %d err %v", us, total, err)
	}
	us, total, err = st.Users(ctx, store.UserFilter{Offset: 10, Limit: 2})
	if err != nil || total != 4 || len(us) != 0 {
		t.Fatalf("past the end: %d rows, total %d, %v", len(us), total, err)
	}
	// LIKE wildcards in the query match literally.
	us, total, err = st.Users(ctx, store.UserFilter{Query: "c_"})
	if err != nil || total != 1 || us[0].Email != "c_1@x.test" {
		t.Fatalf("literal underscore: %v total %d", us, total)
	}
	us, _, _ = st.Users(ctx, store.UserFilter{Query: "%"})
	if len(us) != 1 || us[0].Email != "c%2@x.test" {
		t.Fatalf("literal percent: %v", us)
	}
}

func TestSchemaVersionChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Migrating and rewinding the schema is the owner's work.
	st := testutil.OwnerStore(t)
	if err := st.CheckSchema(ctx); err != nil {
		t.Fatalf("fresh migrated database: %v", err)
	}
	if v, err := store.Migrate(ctx, st.Pool(), store.AppRole{Name: testutil.AppRoleName}); err != nil || v != store.SchemaVersion {
		t.Fatalf("migrate again: version %d, %v (want idempotent %d)", v, err, store.SchemaVersion)
	}
	// An older schema (the newest migration marked unapplied) is refused.
	if _, err := st.Pool().Exec(ctx, `DELETE FROM goose_db_version WHERE version_id = $1`, store.SchemaVersion); err != nil {
		t.Fatal(err)
	}
	if err := st.CheckSchema(ctx); !errors.Is(err, store.ErrSchemaOutdated) {
		t.Fatalf("older schema: %v, want ErrSchemaOutdated", err)
	}
}

func TestFXRateOn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	for _, r := range []market.FXRate{
		{Base: "EUR", Quote: "CNY", Rate: decimal.RequireFromString("7.8123456789"), AsOf: day("2026-01-15"), Source: "ECB"},
		{Base: "EUR", Quote: "CNY", Rate: decimal.RequireFromString("7.9"), AsOf: day("2026-03-01"), Source: "ECB"},
	} {
		if _, err := st.CreateFXRate(ctx, actor, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.CreateFXRate(ctx, actor, market.FXRate{Base: "EUR", Quote: "CNY", Rate: decimal.NewFromInt(8), AsOf: day("2026-03-01")}); !errors.Is(err, store.ErrFXRateExists) {
		t.Fatalf("same day twice: %v", err)
	}
	r, err := st.FXRateOn(ctx, "EUR", "CNY", day("2026-02-20"))
	if err != nil || r.Rate.String() != "7.8123456789" || r.AsOf.Format(time.DateOnly) != "2026-01-15" {
		t.Fatalf("rate on 2026-02-20: %+v %v (want the exact January rate)", r, err)
	}
	if r, _ := st.FXRateOn(ctx, "EUR", "CNY", day("2026-12-31")); r.Rate.String() != "7.9" {
		t.Fatalf("newest rate: %s", r.Rate)
	}
	if _, err := st.FXRateOn(ctx, "EUR", "CNY", day("2025-12-31")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("before any rate: %v", err)
	}
	if _, err := st.FXRateOn(ctx, "CNY", "EUR", day("2026-12-31")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("inverse pair is not derived: %v", err)
	}
}

func TestUsageProfilesSaveReplaceDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	u, err := st.CreateUser(ctx, actor, user.NewAccount{Email: "ana@example.test", DisplayName: "Ana", Role: "analyst", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	a := user.Actor{UserID: u.ID, Email: u.Email}
	p1, err := st.SaveUsageProfile(ctx, a, "Steady 600 h", map[string]string{"profile.hours_per_month": "600.5"})
	if err != nil {
		t.Fatal(err)
	}
	// The same name (any case) replaces it; the decimal text stays exact.
	p2, err := st.SaveUsageProfile(ctx, a, "steady 600 H", map[string]string{"profile.hours_per_month": "600.25"})
	if err != nil || p2.ID != p1.ID || p2.Params["profile.hours_per_month"] != "600.25" {
		t.Fatalf("replace: %+v %v", p2, err)
	}
	list, err := st.UsageProfiles(ctx)
	if err != nil || len(list) != 1 || list[0].OwnerEmail != "ana@example.test" {
		t.Fatalf("list %+v %v", list, err)
	}
	if err := st.DeleteUsageProfile(ctx, a, p1.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UsageProfileByID(ctx, p1.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	recs, _ := st.AuditLog(ctx, store.AuditFilter{Entity: "usage_profile"})
	if len(recs) != 3 {
		t.Fatalf("audit rows %d, want save, save, delete", len(recs))
	}
}
