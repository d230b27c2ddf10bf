-- catalog_imports: a public price catalog file (a SkyPilot catalog,
-- docs/RULES.md §7.7) imported for one platform as dated, sourced draft
-- quotes. Each import keeps what it read and did (summary: rows read,
-- folded and passed over, the GPU names it did not know with the nearest
-- known one, the series it left because a draft waits), and the drafts it
-- made, which its page lists for review and publishes in one step.
--
-- An import is a record of what happened: only ever added. Its drafts are
-- quotes like any other: an editor may still edit or delete one (its row
-- here goes with it), and publishing one is the quotes' own state change
-- (docs/RULES.md §7.1).

-- +goose Up
CREATE TABLE catalog_imports (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    platform_id bigint      NOT NULL REFERENCES platforms (id),
    format      text        NOT NULL CHECK (format IN ('skypilot_v7')),
    as_of       date        NOT NULL CHECK (as_of >= DATE '2000-01-01'),
    source      text        NOT NULL CHECK (length(btrim(source)) BETWEEN 1 AND 500),
    file_name   text        NOT NULL DEFAULT '' CHECK (length(file_name) <= 255),
    summary     jsonb       NOT NULL CHECK (jsonb_typeof(summary) = 'object'),
    created_by  bigint      REFERENCES users (id),
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX catalog_imports_recent_idx ON catalog_imports (created_at DESC, id DESC);

CREATE TABLE catalog_import_quotes (
    import_id bigint NOT NULL REFERENCES catalog_imports (id),
    quote_id  bigint NOT NULL REFERENCES quotes (id) ON DELETE CASCADE,
    PRIMARY KEY (import_id, quote_id)
);
CREATE INDEX catalog_import_quotes_quote_idx ON catalog_import_quotes (quote_id);

-- +goose StatementBegin
CREATE FUNCTION catalog_imports_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'catalog import %: an import''s record never changes', OLD.id;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER catalog_imports_append_only BEFORE UPDATE OR DELETE ON catalog_imports
    FOR EACH ROW EXECUTE FUNCTION catalog_imports_append_only();

-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER catalog_imports_no_truncate BEFORE TRUNCATE ON catalog_imports
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER catalog_import_quotes_no_truncate BEFORE TRUNCATE ON catalog_import_quotes
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
