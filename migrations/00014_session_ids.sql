-- session_ids: a public id for each session, so the account page can list a
-- user's sessions and end one by naming it (docs/RULES.md §16.5). The token
-- hash stays the key the cookie is looked up by and never leaves the server;
-- the public id is random, so it tells nothing about the token or about how
-- many sessions the site has seen.

-- +goose Up
ALTER TABLE sessions ADD COLUMN public_id uuid NOT NULL DEFAULT gen_random_uuid();
CREATE UNIQUE INDEX sessions_public_id_idx ON sessions (public_id);

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
