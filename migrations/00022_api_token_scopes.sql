-- API token scopes and expiry (docs/RULES.md §19.2). A token acts as its
-- user, never beyond the user's role, and only on the routes its scopes
-- name: read (every GET of the data API and the comparison), quotes:write,
-- reports:write, trials:write, and admin (all of them). A token made
-- before scopes existed could only record trial evidence and availability,
-- so it keeps exactly that (trials:write) and may read; it never expires,
-- as it never did. Every token made from now on is given an expiry.

-- +goose Up
ALTER TABLE api_tokens
    ADD COLUMN scopes     text[]      NOT NULL DEFAULT ARRAY['read', 'trials:write']::text[],
    ADD COLUMN expires_at timestamptz;
ALTER TABLE api_tokens ALTER COLUMN scopes DROP DEFAULT;
ALTER TABLE api_tokens
    ADD CONSTRAINT api_tokens_scopes_check CHECK (
        cardinality(scopes) BETWEEN 1 AND 5
        AND scopes <@ ARRAY['read', 'quotes:write', 'reports:write', 'trials:write', 'admin']::text[]),
    ADD CONSTRAINT api_tokens_expiry_check CHECK (expires_at IS NULL OR expires_at > created_at);

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
