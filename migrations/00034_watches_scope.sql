-- The watches:write scope (docs/RULES.md §19.2, §24.9): a token holding it
-- keeps its user's watches, makes or revokes their feed token and, for
-- editors and admins, keeps the webhook endpoints through the data API.

-- +goose Up
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_scopes_check;
ALTER TABLE api_tokens
    ADD CONSTRAINT api_tokens_scopes_check CHECK (
        cardinality(scopes) BETWEEN 1 AND 6
        AND scopes <@ ARRAY['read', 'quotes:write', 'reports:write', 'trials:write', 'watches:write', 'admin']::text[]);

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
