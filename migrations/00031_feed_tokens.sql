-- feed_tokens: each user's one feed token (docs/RULES.md §24.6), the secret
--   in the addresses of their Atom feeds (/feeds/quotes.atom?token=…,
--   /feeds/watch/<token>.atom) that a feed reader keeps. Like an API
--   token's, only its SHA-256 is stored: the token is shown once, when it is
--   made, and a lost one is replaced by a new one. It reads feeds and
--   nothing else: it is no session and no API token.
--
-- One row per user at most: making a new token replaces the row (the old
-- address stops working at once), revoking deletes it, and so do a
-- password change, a role change and disabling the user (as they end the
-- user's API tokens). These are settings, not history: the serving role
-- may change and remove them; the audit log keeps who did what.

-- +goose Up
CREATE TABLE feed_tokens (
    user_id      bigint      PRIMARY KEY REFERENCES users (id),
    token_hash   bytea       NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz
);

-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER feed_tokens_no_truncate BEFORE TRUNCATE ON feed_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
