-- Accounts, sessions, the audit log and login throttling: every later feature
-- lives behind these tables.

-- +goose Up
CREATE TABLE users (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email         text        NOT NULL CHECK (email = btrim(email) AND length(email) BETWEEN 3 AND 254),
    display_name  text        NOT NULL CHECK (length(btrim(display_name)) BETWEEN 1 AND 100),
    role          text        NOT NULL CHECK (role IN ('analyst', 'finance', 'editor', 'admin')),
    -- PHC string: $argon2id$v=19$m=...,t=...,p=...$salt$hash, so the cost can
    -- be raised later without losing existing passwords.
    password_hash text        NOT NULL,
    disabled      boolean     NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
-- Email is unique case-insensitively without needing the citext extension.
CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));

-- Sessions live in PostgreSQL so any number of app processes share them.
-- Only the SHA-256 of the cookie token is stored: a database leak does not
-- leak usable cookies.
CREATE TABLE sessions (
    token_hash   bytea       PRIMARY KEY CHECK (length(token_hash) = 32),
    user_id      bigint      NOT NULL REFERENCES users (id),
    csrf_token   text        NOT NULL,
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    -- absolute expiry, fixed at login; the idle limit is checked against
    -- last_seen_at at request time so it can be reconfigured.
    expires_at   timestamptz NOT NULL,
    client_ip    text        NOT NULL DEFAULT '',
    user_agent   text        NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user_id_idx ON sessions (user_id);
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);

-- The audit log records every write, in the same transaction as the write.
CREATE TABLE audit_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    actor_id    bigint      REFERENCES users (id),
    -- the actor's email at the time, so the log reads right after renames
    actor_email text        NOT NULL DEFAULT '',
    action      text        NOT NULL,
    entity      text        NOT NULL,
    entity_id   text        NOT NULL DEFAULT '',
    before      jsonb,
    after       jsonb,
    request_id  text        NOT NULL DEFAULT '',
    client_ip   text        NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_entity_idx ON audit_log (entity, entity_id);
CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, at DESC);

-- History is immutable: the audit log only grows.
-- +goose StatementBegin
CREATE FUNCTION audit_log_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();

-- Failed logins per key ('account:<email>' or 'ip:<address>') in a sliding
-- fixed window; shared by all app processes. No permanent lockout: a window
-- that has passed starts again from zero.
CREATE TABLE login_throttle (
    key          text        PRIMARY KEY,
    failures     integer     NOT NULL CHECK (failures >= 0),
    window_start timestamptz NOT NULL
);

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
