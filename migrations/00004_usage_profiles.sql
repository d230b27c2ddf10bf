-- Usage profiles saved by name for reuse in comparisons. The profile is
-- kept as the comparison form's own fields (strings), so exact decimals
-- stay exact text and a profile reloads into the form as it was typed.

-- +goose Up
CREATE TABLE usage_profiles (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text        NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
    owner_id   bigint      NOT NULL REFERENCES users (id),
    params     jsonb       NOT NULL CHECK (jsonb_typeof(params) = 'object'),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
-- one name per owner; saving under an existing name replaces it
CREATE UNIQUE INDEX usage_profiles_owner_name_key ON usage_profiles (owner_id, lower(name));

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
