-- server_keys: secrets every server process of one database shares, such as
-- the key that signs device cookies and anonymous CSRF tokens
-- (docs/RULES.md §16). A key is created once, by whichever process needs it
-- first, and never changes; the serving role may read and add keys but not
-- alter or delete them.

-- +goose Up
CREATE TABLE server_keys (
    name       text        PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_]{0,62}$'),
    key        bytea       NOT NULL CHECK (octet_length(key) >= 32),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
