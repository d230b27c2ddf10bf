package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// approvedReportSQL inserts a report that claims to be approved already,
// decided by a second user: what the workflow can only reach step by step.
const approvedReportSQL = `
	INSERT INTO reports (number, author_id, title, status, snapshot, snapshot_version, rules_version, figures_date,
	                     report_currency, quote_count, created_at, updated_at, submitted_at, decided_at, decided_by)
	VALUES ('R-2026-0001', $1, 'forged', 'approved', '{}', 1, '2026.1', '2026-12-01', 'CNY', 1, now(), now(), now(), now(), $2)`

// TestServingRoleCannotRewriteHistory is the review's list, tried as the
// role the server connects as: each must fail, and leave the row there.
func TestServingRoleCannotRewriteHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	owner, app := testutil.DB(t)
	st := testutil.Open(t, app)
	author, err := st.CreateUser(ctx, user.SystemActor, user.NewAccount{Email: "a@x.test", DisplayName: "A", Role: "analyst", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	finance, err := st.CreateUser(ctx, user.SystemActor, user.NewAccount{Email: "f@x.test", DisplayName: "F", Role: "finance", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var audited int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log`).Scan(&audited); err != nil || audited == 0 {
		t.Fatalf("audit rows before: %d, %v", audited, err)
	}
	for _, c := range []struct {
		name string
		sql  string
		args []any
	}{
		{"truncate audit_log", `TRUNCATE audit_log`, nil},
		{"truncate reports cascade", `TRUNCATE reports CASCADE`, nil},
		{"disable a trigger", `ALTER TABLE reports DISABLE TRIGGER reports_guard`, nil},
		{"disable all triggers", `ALTER TABLE audit_log DISABLE TRIGGER ALL`, nil},
		{"replica mode", `SET session_replication_role = replica`, nil},
		{"insert an approved report", approvedReportSQL, []any{author.ID, finance.ID}},
		{"update the audit log", `UPDATE audit_log SET action = 'x'`, nil},
		{"delete the audit log", `DELETE FROM audit_log`, nil},
		{"create a table", `CREATE TABLE sneaky (id int)`, nil},
		{"drop a trigger", `DROP TRIGGER audit_log_no_update ON audit_log`, nil},
		{"rewind the schema version", `DELETE FROM goose_db_version`, nil},
	} {
		_, err := st.Pool().Exec(ctx, c.sql, c.args...)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) {
			t.Errorf("%s: succeeded (err %v)", c.name, err)
			continue
		}
		t.Logf("%s: %s %s", c.name, pgErr.Code, pgErr.Message)
	}
	var after int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log`).Scan(&after); err != nil || after != audited {
		t.Fatalf("audit rows after: %d, %v (want %d)", after, err, audited)
	}

	// The owner may alter its tables, but TRUNCATE and a forged approved
	// report are refused by triggers even so.
	own := testutil.Open(t, owner)
	for name, c := range map[string]struct {
		sql  string
		args []any
	}{
		"owner truncates audit_log":  {`TRUNCATE audit_log`, nil},
		"owner inserts approved one": {approvedReportSQL, []any{author.ID, finance.ID}},
	} {
		if _, err := own.Pool().Exec(ctx, c.sql, c.args...); err == nil {
			t.Errorf("%s: succeeded", name)
		}
	}
}

// TestEveryTableRefusesTruncate: a table added by a later migration needs
// its own TRUNCATE trigger.
func TestEveryTableRefusesTruncate(t *testing.T) {
	t.Parallel()
	st := testutil.Store(t)
	rows, err := st.Pool().Query(context.Background(), `
		SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> 'goose_db_version'
		  AND NOT EXISTS (SELECT 1 FROM pg_trigger g WHERE g.tgrelid = c.oid AND (g.tgtype & 32) <> 0)
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var missing []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		missing = append(missing, n)
	}
	if len(missing) > 0 {
		t.Fatalf("tables without a TRUNCATE trigger: %s", strings.Join(missing, ", "))
	}
}

// TestServingRolePrivileges: the pool the tests' servers use is neither a
// superuser nor an owner, which is what serve insists on.
func TestServingRolePrivileges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	owner, app := testutil.DB(t)
	p, err := testutil.Open(t, app).CurrentPrivileges(ctx)
	if err != nil || p.Superuser || p.OwnsTables || p.Role != testutil.AppRoleName {
		t.Fatalf("serving role: %+v %v", p, err)
	}
	p, err = testutil.Open(t, owner).CurrentPrivileges(ctx)
	if err != nil || !p.OwnsTables {
		t.Fatalf("owner: %+v %v", p, err)
	}
}

// TestMigrateRefusesPrivilegedAppRole: naming the owner (or a superuser) as
// the serving role would hand the server everything.
func TestMigrateRefusesPrivilegedAppRole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	own := testutil.OwnerStore(t)
	p, err := own.CurrentPrivileges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{p.Role, "postgres"} {
		if _, err := store.Migrate(ctx, own.Pool(), store.AppRole{Name: name}); err == nil || !strings.Contains(err.Error(), "GPUQUOTE_APP_ROLE") {
			t.Errorf("app role %q: %v", name, err)
		}
	}
}
