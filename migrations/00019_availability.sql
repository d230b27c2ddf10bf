-- availability_records: real attempts to get GPU instances on a platform
-- (docs/RULES.md §18.2). A platform may list plenty of cheap instances and
-- still fail the order; only records of attempts tell. Each row is one
-- attempt: when (an instant, read in UTC), how many GPUs of which model on
-- which platform, whether they were obtained, how many whole minutes were
-- spent waiting (for a failed attempt: trying before giving up), a note,
-- and optionally the quote version or trial it came from. Records are only
-- ever added: a mistaken one is answered by a new one with a note, never
-- changed or withdrawn, so the statistics a report froze can be traced.

-- +goose Up
CREATE TABLE availability_records (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    platform_id  bigint      NOT NULL REFERENCES platforms (id),
    gpu_model_id bigint      NOT NULL REFERENCES gpu_models (id),
    attempted_at timestamptz NOT NULL CHECK (attempted_at >= '2000-01-01 00:00:00+00'),
    gpu_count    integer     NOT NULL CHECK (gpu_count BETWEEN 1 AND 1024),
    obtained     boolean     NOT NULL,
    wait_minutes integer     NOT NULL CHECK (wait_minutes BETWEEN 0 AND 100000),
    note         text        NOT NULL DEFAULT '' CHECK (length(note) <= 2000),
    quote_id     bigint      REFERENCES quotes (id),
    trial_id     bigint      REFERENCES trials (id),
    created_by   bigint      REFERENCES users (id),
    created_at   timestamptz NOT NULL DEFAULT now()
);
-- the statistics read one platform × GPU model's attempts in a window of days
CREATE INDEX availability_records_pair_idx ON availability_records (platform_id, gpu_model_id, attempted_at DESC, id DESC);
CREATE INDEX availability_records_quote_idx ON availability_records (quote_id) WHERE quote_id IS NOT NULL;
CREATE INDEX availability_records_trial_idx ON availability_records (trial_id) WHERE trial_id IS NOT NULL;

-- +goose StatementBegin
-- Records are only ever added: a correction is a new record.
CREATE FUNCTION availability_records_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'availability record %: records are never changed or removed; add a new record', OLD.id;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER availability_records_append_only BEFORE UPDATE OR DELETE ON availability_records
    FOR EACH ROW EXECUTE FUNCTION availability_records_append_only();

-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER availability_records_no_truncate BEFORE TRUNCATE ON availability_records
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
