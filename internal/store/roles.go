package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DefaultAppRole is the serving role's name when GPUQUOTE_APP_ROLE is unset.
const DefaultAppRole = "gpuquote_app"

// appendOnly are the tables the serving role may read and add to but never
// change or empty: the audit trail, the reports' timelines, trial evidence,
// the shared keys (docs/RULES.md §16.7), and the electricity samples and
// own-hardware option versions that comparisons and reports name
// (docs/RULES.md §17.4), and the availability records (docs/RULES.md §18.2),
// and the proposals' history: vendor's messages, the records of their files
// and of files withdrawn, editors' decisions (docs/RULES.md §18.1; a file's
// bytes, in quote_attachment_data, are deleted when it is withdrawn), and
// the records of catalog imports (docs/RULES.md §7.7), and the bills kept
// beside approved reports with their lines: a corrected bill is the next
// revision, never an edit (docs/RULES.md §23.8), the events of watches,
// each cause once (docs/RULES.md §24.2), and the webhook events and their
// delivery attempts (docs/RULES.md §24.7).
var appendOnly = []string{"audit_log", "report_events", "server_keys", "trial_check_results", "trial_pastes", "trial_perf",
	"electricity_prices", "own_option_versions", "availability_records",
	"quote_messages", "quote_attachments", "quote_reviews", "platform_facts", "quote_attachment_withdrawals",
	"catalog_imports", "bills", "bill_lines", "watch_events", "webhook_events", "webhook_attempts"}

// readOnly are the tables the serving role may only read.
var readOnly = []string{"goose_db_version"}

// GrantsVersion changes whenever the grants below change, so that cached
// migrated databases (the tests' templates) are rebuilt.
const GrantsVersion = "8"

var roleName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// AppRole is the least-privileged role the server runs as: its name and,
// where PostgreSQL asks for one, its password (empty: leave as it is).
type AppRole struct {
	Name     string
	Password string
}

// Validate refuses names that are not plain lower-case identifiers.
func (r AppRole) Validate() error {
	if !roleName.MatchString(r.Name) {
		return fmt.Errorf("GPUQUOTE_APP_ROLE=%q: want a lower-case PostgreSQL role name such as %s", r.Name, DefaultAppRole)
	}
	return nil
}

// querier is what granting needs from a connection: pgx and database/sql
// callers both adapt to it.
type querier interface {
	exec(ctx context.Context, sql string, args ...any) error
	queryBool(ctx context.Context, sql string, args ...any) (bool, error)
}

type sqlDB struct{ db *sql.DB }

func (q sqlDB) exec(ctx context.Context, s string, args ...any) error {
	_, err := q.db.ExecContext(ctx, s, args...)
	return err
}

func (q sqlDB) queryBool(ctx context.Context, s string, args ...any) (b bool, err error) {
	err = q.db.QueryRowContext(ctx, s, args...).Scan(&b)
	return b, err
}

// ensureAppRole creates the serving role when it is missing (LOGIN and
// nothing else) and sets its password when one is given; it refuses a
// name that is a superuser or the connecting owner itself, since granting
// to either would leave the server with everything.
func ensureAppRole(ctx context.Context, q querier, r AppRole) error {
	if err := r.Validate(); err != nil {
		return err
	}
	ident := pgx.Identifier{r.Name}.Sanitize()
	mine, err := q.queryBool(ctx, `SELECT $1 = current_user OR EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1 AND rolsuper)`, r.Name)
	if err != nil {
		return fmt.Errorf("serving role: %w", err)
	}
	if mine {
		return fmt.Errorf("GPUQUOTE_APP_ROLE=%q is a superuser or the owner that migrates; the server needs a role of its own", r.Name)
	}
	exists, err := q.queryBool(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, r.Name)
	if err != nil {
		return fmt.Errorf("serving role: %w", err)
	}
	if !exists {
		err := q.exec(ctx, "CREATE ROLE "+ident+" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS")
		var pgErr *pgconn.PgError
		switch {
		case errors.As(err, &pgErr) && (pgErr.Code == "42710" || pgErr.Code == "23505"):
			// created concurrently by another migrate
		case errors.As(err, &pgErr) && pgErr.Code == "42501":
			return fmt.Errorf("cannot create the serving role %q: the role that migrates needs CREATEROLE, or create it once yourself (CREATE ROLE %s LOGIN PASSWORD '…')", r.Name, r.Name)
		case err != nil:
			return fmt.Errorf("create serving role %q: %w", r.Name, err)
		}
	}
	if r.Password != "" {
		// Utility statements take no parameters: quote the literal.
		lit := "'" + strings.ReplaceAll(r.Password, "'", "''") + "'"
		if err := q.exec(ctx, "ALTER ROLE "+ident+" PASSWORD "+lit); err != nil {
			return fmt.Errorf("set the serving role's password: %w", err)
		}
	}
	return nil
}

// grantAppRole gives the serving role exactly what the server needs, from
// scratch each time (so a grant removed here is removed there): connect,
// use the schema, read every table, add to the append-only ones, change the
// rest, and draw from the identity sequences. It never owns anything, so it
// can neither alter tables, disable their triggers nor truncate them.
func grantAppRole(ctx context.Context, q querier, r AppRole) error {
	ident := pgx.Identifier{r.Name}.Sanitize()
	list := func(names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = pgx.Identifier{n}.Sanitize()
		}
		return strings.Join(out, ", ")
	}
	stmts := []string{
		`DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO ` + strings.ReplaceAll(ident, "'", "''") + `', current_database()); END $$`,
		"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM " + ident,
		"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM " + ident,
		"REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM " + ident,
		"GRANT USAGE ON SCHEMA public TO " + ident,
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + ident,
		"REVOKE INSERT, UPDATE, DELETE ON " + list(readOnly) + " FROM " + ident,
		"REVOKE UPDATE, DELETE ON " + list(appendOnly) + " FROM " + ident,
		"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO " + ident,
	}
	for _, s := range stmts {
		if err := q.exec(ctx, s); err != nil {
			return fmt.Errorf("grant to serving role %q: %w", r.Name, err)
		}
	}
	return nil
}

// Privileges describes the role a pool connects as, for serve's refusal to
// run with more than it needs.
type Privileges struct {
	Role      string
	Superuser bool
	// OwnsTables is true when the role owns (or is a member of the owner
	// of) any table of the schema: it could alter them and their triggers.
	OwnsTables bool
}

// CurrentPrivileges reads what the pool's role may do.
func (s *Store) CurrentPrivileges(ctx context.Context) (Privileges, error) {
	var p Privileges
	err := s.pool.QueryRow(ctx, `
		SELECT current_user, r.rolsuper,
		       EXISTS (SELECT 1 FROM pg_tables t
		               WHERE t.schemaname = 'public' AND pg_has_role(current_user, t.tableowner, 'MEMBER'))
		FROM pg_roles r WHERE r.rolname = current_user`).Scan(&p.Role, &p.Superuser, &p.OwnsTables)
	if err != nil {
		return p, fmt.Errorf("read the database role's privileges: %w", err)
	}
	return p, nil
}

// URLForRole rewrites a connection string to log in as role r (with its
// password when one is set, else none): the owner's URL becomes the
// serving role's.
func URLForRole(databaseURL string, r AppRole) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	u, err := url.Parse(databaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", errors.New("the database URL must be a postgres:// URL to derive the serving role's")
	}
	if r.Password != "" {
		u.User = url.UserPassword(r.Name, r.Password)
	} else {
		u.User = url.User(r.Name)
	}
	return u.String(), nil
}
