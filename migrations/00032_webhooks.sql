-- webhook_endpoints: the addresses that are told of events (docs/RULES.md
--   §24.7, §24.8): a generic receiver of signed JSON or a group chat bot
--   (企业微信, 钉钉, 飞书), the event types it subscribes to, its secret
--   (kept in clear: the server signs with it), on or off. Registered,
--   changed and deleted by admins and editors, audited; a deleted endpoint
--   stays as a row marked deleted, so its delivery log keeps its name.
-- webhook_events: what happened, once per event, with the object a
--   receiver gets as data.object, added in the transaction of the write
--   that caused it (store.EnqueueEvent). Never changed.
-- webhook_deliveries: one event for one endpoint subscribed to its type
--   when it happened: its attempts, the next one's time, the last
--   attempt's status, error, duration and answer (≤ 1 KB), delivered or
--   given up. The sender claims due rows with FOR UPDATE SKIP LOCKED, so
--   several processes deliver each at most once at a time.
-- webhook_attempts: every attempt of a delivery, as it happened. Never
--   changed.

-- +goose Up
CREATE TABLE webhook_endpoints (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        text        NOT NULL CHECK (kind IN ('generic', 'wecom', 'dingtalk', 'feishu')),
    url         text        NOT NULL CHECK (url ~ '^https?://' AND length(url) <= 2000),
    secret      text        NOT NULL DEFAULT '' CHECK (length(secret) <= 200),
    events      text[]      NOT NULL CHECK (cardinality(events) >= 1 AND events <@ ARRAY['quote.published', 'quote.price_jump',
                    'watch.matched', 'report.approved', 'bill.overcharged']::text[]),
    description text        NOT NULL DEFAULT '' CHECK (length(description) <= 200),
    enabled     boolean     NOT NULL DEFAULT true,
    created_by  bigint      REFERENCES users (id),
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    deleted_at  timestamptz,
    -- a generic endpoint always has its signing secret
    CHECK (kind <> 'generic' OR secret LIKE 'whsec\_%')
);

CREATE TABLE webhook_events (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    type       text        NOT NULL CHECK (type IN ('quote.published', 'quote.price_jump', 'watch.matched',
                   'report.approved', 'bill.overcharged')),
    entity_id  bigint      NOT NULL,
    payload    jsonb       NOT NULL CHECK (jsonb_typeof(payload) = 'object'),
    created_at timestamptz NOT NULL
);

CREATE TABLE webhook_deliveries (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    endpoint_id      bigint      NOT NULL REFERENCES webhook_endpoints (id),
    event_id         bigint      NOT NULL REFERENCES webhook_events (id),
    attempts         integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  timestamptz NOT NULL,
    last_status      integer     CHECK (last_status BETWEEN 100 AND 999),
    last_error       text        NOT NULL DEFAULT '' CHECK (length(last_error) <= 1000),
    last_duration_ms integer     CHECK (last_duration_ms >= 0),
    response_body    text        NOT NULL DEFAULT '' CHECK (octet_length(response_body) <= 1024),
    last_attempt_at  timestamptz,
    delivered_at     timestamptz,
    gave_up_at       timestamptz,
    created_at       timestamptz NOT NULL,
    UNIQUE (endpoint_id, event_id),
    CHECK (delivered_at IS NULL OR gave_up_at IS NULL)
);
-- The sender's one question: which deliveries are due.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id)
    WHERE delivered_at IS NULL AND gave_up_at IS NULL;
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);

CREATE TABLE webhook_attempts (
    delivery_id   bigint      NOT NULL REFERENCES webhook_deliveries (id),
    attempt       integer     NOT NULL CHECK (attempt >= 1),
    at            timestamptz NOT NULL,
    status        integer     CHECK (status BETWEEN 100 AND 999),
    duration_ms   integer     NOT NULL CHECK (duration_ms >= 0),
    error         text        NOT NULL DEFAULT '' CHECK (length(error) <= 1000),
    response_body text        NOT NULL DEFAULT '' CHECK (octet_length(response_body) <= 1024),
    -- who asked for it, when an admin or editor redelivered
    redelivered_by bigint     REFERENCES users (id),
    PRIMARY KEY (delivery_id, attempt)
);

-- +goose StatementBegin
CREATE FUNCTION webhook_history_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%: webhook events and attempts are history and never change', TG_TABLE_NAME;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER webhook_events_immutable BEFORE UPDATE OR DELETE ON webhook_events
    FOR EACH ROW EXECUTE FUNCTION webhook_history_immutable();
CREATE TRIGGER webhook_attempts_immutable BEFORE UPDATE OR DELETE ON webhook_attempts
    FOR EACH ROW EXECUTE FUNCTION webhook_history_immutable();

-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER webhook_endpoints_no_truncate BEFORE TRUNCATE ON webhook_endpoints
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER webhook_events_no_truncate BEFORE TRUNCATE ON webhook_events
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER webhook_deliveries_no_truncate BEFORE TRUNCATE ON webhook_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER webhook_attempts_no_truncate BEFORE TRUNCATE ON webhook_attempts
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
