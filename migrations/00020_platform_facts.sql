-- platform_facts: what a price does not say about a platform's environment,
-- support and data safety (docs/RULES.md §18.3): preinstalled frameworks,
-- state kept across restarts, desktop access, measured setup time, the
-- support channels and measured response time, backups, a written deletion
-- confirmation, what a release deletes, third-party payment protection and
-- domestic accelerators. Each record is one dated, sourced answer yes / no
-- / unknown with a note. Records are only ever added: a correction is a
-- newer record, and the fact in force on a day is the newest by (as_of, id)
-- dated on or before it; a fact never recorded is unknown.

-- +goose Up
CREATE TABLE platform_facts (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    platform_id bigint      NOT NULL REFERENCES platforms (id),
    kind        text        NOT NULL CHECK (kind IN ('preinstalled', 'state_kept', 'desktop', 'setup_minutes',
                    'support_ticket', 'support_phone', 'support_chat_only', 'support_response_minutes', 'backups',
                    'deletion_confirmation', 'release_wipes', 'payment_protection', 'domestic_accelerators')),
    value       text        NOT NULL CHECK (value IN ('yes', 'no', 'unknown')),
    -- The two measured kinds carry their minutes exactly when measured
    -- (value yes); no other record carries a number.
    minutes     integer     CHECK (minutes BETWEEN 0 AND 43200),
    note        text        NOT NULL DEFAULT '' CHECK (length(note) <= 1000),
    source      text        NOT NULL CHECK (length(btrim(source)) > 0 AND length(source) <= 500),
    as_of       date        NOT NULL CHECK (as_of >= DATE '2000-01-01'),
    trial_id    bigint      REFERENCES trials (id),
    sample      boolean     NOT NULL DEFAULT false,
    created_by  bigint      REFERENCES users (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    CHECK ((minutes IS NOT NULL) = (kind IN ('setup_minutes', 'support_response_minutes') AND value = 'yes'))
);
-- The fact in force: the newest record of a platform and kind by (as_of, id).
CREATE INDEX platform_facts_in_force_idx ON platform_facts (platform_id, kind, as_of DESC, id DESC);

-- +goose StatementBegin
-- Facts are only ever added: a correction is a newer dated record.
CREATE FUNCTION platform_facts_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'platform fact %: facts are never changed or removed; add a newer dated record', OLD.id;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER platform_facts_append_only BEFORE UPDATE OR DELETE ON platform_facts
    FOR EACH ROW EXECUTE FUNCTION platform_facts_append_only();

-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER platform_facts_no_truncate BEFORE TRUNCATE ON platform_facts
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
