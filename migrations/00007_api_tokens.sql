-- Personal API tokens: a signed-in user creates one on /account so a script
-- can call the API routes that accept tokens (the trial evidence API) as
-- that user, with "Authorization: Bearer <token>" instead of a session
-- cookie and its CSRF token.
--
-- Like session tokens, only the SHA-256 of a token is stored: the token is
-- shown once when it is created and a database leak does not leak usable
-- tokens. Revoking sets revoked_at rather than deleting the row, so the
-- audit log's references stay meaningful.

-- +goose Up
CREATE TABLE api_tokens (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id      bigint      NOT NULL REFERENCES users (id),
    name         text        NOT NULL CHECK (name = btrim(name) AND length(name) BETWEEN 1 AND 100),
    token_hash   bytea       NOT NULL CHECK (length(token_hash) = 32),
    created_at   timestamptz NOT NULL,
    -- bookkeeping, written at most once a minute per token
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE UNIQUE INDEX api_tokens_token_hash_key ON api_tokens (token_hash);
-- The account page lists a user's live tokens, newest first.
CREATE INDEX api_tokens_user_live_idx ON api_tokens (user_id, created_at DESC) WHERE revoked_at IS NULL;

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
