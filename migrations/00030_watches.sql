-- watches: what a user (or, shared, the editors for everyone) watches in the
--   market (docs/RULES.md §24.1): a platform and/or a GPU model, optionally
--   a GPU count, a sharing and a currency, and one condition (kind) with its
--   figures. A watch is paused and resumed, edited and deleted (deleted_at:
--   the row stays, so the notices its matches left still name it); every
--   change is audited. armed and last_matched_at are the state that keeps a
--   watch from repeating itself (docs/RULES.md §24.3).
-- watch_events: one row per watch and cause (docs/RULES.md §24.2): a
--   published quote, an availability record, a quote of an approved report
--   gone stale or superseded. The UNIQUE (watch_id, cause) key makes a cause
--   match a watch once, whatever the number of processes evaluating it; the
--   notices of an event are added in the transaction that adds the event.

-- +goose Up
CREATE TABLE watches (
    id              bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- the watching user; NULL for a shared watch, kept by editors
    owner_id        bigint      REFERENCES users (id),
    platform_id     bigint      REFERENCES platforms (id),
    gpu_model_id    bigint      REFERENCES gpu_models (id),
    gpu_count       integer     CHECK (gpu_count BETWEEN 1 AND 64),
    sharing         text        NOT NULL DEFAULT '' CHECK (length(sharing) <= 40),
    currency        text        NOT NULL DEFAULT '' CHECK (currency = '' OR currency ~ '^[A-Z]{3}$'),
    kind            text        NOT NULL CHECK (kind IN ('price_below', 'price_jump', 'report_quote', 'availability_below', 'new_low')),
    -- price_below: 'hourly' or 'monthly', per GPU
    basis           text        NOT NULL DEFAULT '' CHECK (basis IN ('', 'hourly', 'monthly')),
    target          numeric(20,6) CHECK (target > 0),
    percent         numeric(9,3) CHECK (percent > 0 AND percent <= 100),
    cooldown_hours  integer     NOT NULL DEFAULT 24 CHECK (cooldown_hours BETWEEN 1 AND 8760),
    paused          boolean     NOT NULL DEFAULT false,
    armed           boolean     NOT NULL DEFAULT true,
    last_matched_at timestamptz,
    created_by      bigint      REFERENCES users (id),
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    deleted_at      timestamptz,
    CHECK (platform_id IS NOT NULL OR gpu_model_id IS NOT NULL),
    CHECK ((kind = 'price_below') = (target IS NOT NULL AND basis <> '' AND currency <> '')),
    CHECK ((kind IN ('price_jump', 'availability_below')) = (percent IS NOT NULL))
);
-- The evaluation's one question: which live watches are about this
-- platform × GPU model (either side may be open).
CREATE INDEX watches_pair_idx ON watches (platform_id, gpu_model_id) WHERE deleted_at IS NULL AND NOT paused;
CREATE INDEX watches_gpu_idx ON watches (gpu_model_id) WHERE deleted_at IS NULL AND NOT paused AND platform_id IS NULL;
CREATE INDEX watches_owner_idx ON watches (owner_id, id) WHERE deleted_at IS NULL;

CREATE TABLE watch_events (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    watch_id   bigint      NOT NULL REFERENCES watches (id),
    -- what caused it: quote:<id>, avail:<record id>, stale:<quote id>,
    -- superseded:<quote id>
    cause      text        NOT NULL CHECK (length(cause) BETWEEN 1 AND 100),
    quote_id   bigint      REFERENCES quotes (id),
    -- the observed figure in the watch's terms (a price per GPU in the
    -- watch's currency, a percentage), if any
    value      numeric(20,6),
    created_at timestamptz NOT NULL,
    UNIQUE (watch_id, cause)
);
CREATE INDEX watch_events_watch_idx ON watch_events (watch_id, created_at DESC, id DESC);

CREATE TRIGGER watches_no_truncate BEFORE TRUNCATE ON watches
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER watch_events_no_truncate BEFORE TRUNCATE ON watch_events
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- A watch's match is a notice of its own kind, about the event.
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check CHECK (kind IN ('report_submitted', 'report_returned',
    'report_approved', 'quote_proposed', 'quote_returned', 'quote_published', 'bill_overcharged', 'watch_matched'));
ALTER TABLE notifications DROP CONSTRAINT notifications_entity_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_entity_check CHECK (entity IN ('report', 'quote', 'bill', 'watch_event'));

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
