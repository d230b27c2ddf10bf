-- Saved TCO reports: a comparison frozen for finance to review.
--
-- reports: one saved comparison. Its snapshot (jsonb) holds everything the
--   report shows — the usage profile, the quote versions compared with all
--   their prices and lines, the dated exchange rates and reference prices,
--   the engine's rules version and every computed figure — so the report
--   says the same thing next year whatever happens to prices afterwards.
--   A few figures are copied out of the snapshot into plain columns only so
--   the report list can filter and sort by them.
-- report_counters: the per-year sequence behind report numbers
--   (R-2026-0001). A row per year, incremented in the creating transaction,
--   so a rolled-back save gives its number back: numbers are unique and
--   without gaps from failures. A draft that is deleted keeps its row (and
--   its number) with status 'deleted'.
-- report_events: each report's timeline (who, when, from → to, comment),
--   written in the same transaction as the change it records; append-only.
-- Triggers make the snapshot and identity columns immutable and let the
--   status move only along the workflow, so no code path can rewrite what
--   was saved or skip a step: draft → submitted → approved | returned,
--   draft → deleted. A returned report is revised by a new row (the next
--   revision, linked to it), never by changing it.

-- +goose Up
CREATE TABLE report_counters (
    year integer PRIMARY KEY CHECK (year BETWEEN 2000 AND 9999),
    last integer NOT NULL CHECK (last >= 1)
);

CREATE TABLE reports (
    id                          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- R-YYYY-NNNN; every revision of a report shares its number
    number                      text          NOT NULL CHECK (number ~ '^R-[0-9]{4}-[0-9]{4,}$'),
    revision                    integer       NOT NULL DEFAULT 1 CHECK (revision >= 1),
    previous_revision_id        bigint        REFERENCES reports (id),
    -- "recompute with today's data" makes a new report linked to its source
    recomputed_from_id          bigint        REFERENCES reports (id),
    author_id                   bigint        NOT NULL REFERENCES users (id),
    title                       text          NOT NULL CHECK (title = btrim(title) AND length(title) BETWEEN 1 AND 200),
    purpose                     text          NOT NULL DEFAULT '' CHECK (length(purpose) <= 2000),
    status                      text          NOT NULL DEFAULT 'draft'
                                    CHECK (status IN ('draft', 'submitted', 'approved', 'returned', 'deleted')),
    -- the frozen comparison, and copies of a few of its values for the list
    snapshot                    jsonb         NOT NULL CHECK (jsonb_typeof(snapshot) = 'object'),
    snapshot_version            integer       NOT NULL CHECK (snapshot_version >= 1),
    rules_version               text          NOT NULL CHECK (rules_version <> ''),
    figures_date                date          NOT NULL,
    report_currency             text          NOT NULL CHECK (report_currency ~ '^[A-Z]{3}$'),
    quote_count                 integer       NOT NULL CHECK (quote_count >= 1),
    platform_ids                bigint[]      NOT NULL DEFAULT '{}',
    recommended_tco             numeric(20,2),
    recommended_tco_pessimistic numeric(20,2),
    created_at                  timestamptz   NOT NULL,
    updated_at                  timestamptz   NOT NULL,
    submitted_at                timestamptz,
    decided_at                  timestamptz,
    decided_by                  bigint        REFERENCES users (id),
    decision_comment            text          NOT NULL DEFAULT '' CHECK (length(decision_comment) <= 2000),
    UNIQUE (number, revision),
    CHECK ((previous_revision_id IS NULL) = (revision = 1)),
    -- nobody approves or returns their own report
    CHECK (decided_by IS NULL OR decided_by <> author_id),
    CHECK ((status IN ('approved', 'returned')) = (decided_at IS NOT NULL AND decided_by IS NOT NULL)),
    -- a report is sent back with a reason
    CHECK (status <> 'returned' OR btrim(decision_comment) <> ''),
    CHECK (status IN ('draft', 'deleted') OR submitted_at IS NOT NULL)
);
-- a returned report is revised once: its revision is the next one
CREATE UNIQUE INDEX reports_one_next_revision ON reports (previous_revision_id) WHERE previous_revision_id IS NOT NULL;
-- the list (newest first, by status) and its filters
CREATE INDEX reports_created_idx ON reports (created_at DESC, id DESC);
CREATE INDEX reports_status_created_idx ON reports (status, created_at DESC, id DESC);
CREATE INDEX reports_author_idx ON reports (author_id, created_at DESC);
CREATE INDEX reports_platforms_idx ON reports USING gin (platform_ids);
CREATE INDEX reports_recomputed_from_idx ON reports (recomputed_from_id) WHERE recomputed_from_id IS NOT NULL;

-- +goose StatementBegin
-- What may change in a saved report, and when: the title and purpose of a
-- draft; the status along the workflow with the columns that record the
-- step. Everything else — above all the snapshot — never changes, and a
-- report is never deleted (a deleted draft is a status).
CREATE FUNCTION reports_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    allowed reports;
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'report %: reports are never deleted', OLD.id;
    END IF;
    allowed := OLD;
    IF OLD.status = 'draft' AND NEW.status = 'draft' THEN
        allowed.title := NEW.title;
        allowed.purpose := NEW.purpose;
        allowed.updated_at := NEW.updated_at;
    ELSIF OLD.status = 'draft' AND NEW.status = 'submitted' THEN
        allowed.status := NEW.status;
        allowed.submitted_at := NEW.submitted_at;
        allowed.updated_at := NEW.updated_at;
    ELSIF OLD.status = 'draft' AND NEW.status = 'deleted' THEN
        allowed.status := NEW.status;
        allowed.updated_at := NEW.updated_at;
    ELSIF OLD.status = 'submitted' AND NEW.status IN ('approved', 'returned') THEN
        allowed.status := NEW.status;
        allowed.decided_at := NEW.decided_at;
        allowed.decided_by := NEW.decided_by;
        allowed.decision_comment := NEW.decision_comment;
        allowed.updated_at := NEW.updated_at;
    END IF;
    IF allowed IS DISTINCT FROM NEW THEN
        RAISE EXCEPTION 'report %: a % report cannot be changed this way (to %); its snapshot is immutable', OLD.id, OLD.status, NEW.status;
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER reports_guard BEFORE UPDATE OR DELETE ON reports
    FOR EACH ROW EXECUTE FUNCTION reports_guard();

CREATE TABLE report_events (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    report_id         bigint      NOT NULL REFERENCES reports (id),
    at                timestamptz NOT NULL,
    actor_id          bigint      REFERENCES users (id),
    -- the actor's name at the time, so the timeline reads right after renames
    actor_name        text        NOT NULL DEFAULT '',
    action            text        NOT NULL CHECK (action IN ('created', 'submitted', 'approved', 'returned',
                          'retitled', 'deleted', 'revised', 'recomputed')),
    from_status       text,
    to_status         text        NOT NULL,
    comment           text        NOT NULL DEFAULT '',
    -- the revision or recomputed report an event names
    related_report_id bigint      REFERENCES reports (id)
);
CREATE INDEX report_events_report_idx ON report_events (report_id, id);

-- +goose StatementBegin
-- A timeline is history: it only grows.
CREATE FUNCTION report_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'report_events is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER report_events_append_only BEFORE UPDATE OR DELETE ON report_events
    FOR EACH ROW EXECUTE FUNCTION report_events_append_only();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
