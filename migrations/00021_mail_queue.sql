-- mail_queue: the mail that tells a user of a notification (docs/RULES.md
-- §18.4). When mail is configured, the write that adds a notification adds
-- its mail here in the same transaction, rendered there and then (subject
-- and body in both languages, links absolute), so a mail exists exactly
-- when its notification committed and later edits of the report or quote
-- never change what was sent. The sender claims due rows with
-- FOR UPDATE SKIP LOCKED, so two serving processes never send one row at
-- once; each try is counted, and a row is sent once (sent_at) or given up
-- (failed_at) after its last try.

-- +goose Up
CREATE TABLE mail_queue (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- One mail per notification, never two.
    notification_id bigint      NOT NULL UNIQUE REFERENCES notifications (id),
    recipient       text        NOT NULL CHECK (length(recipient) BETWEEN 3 AND 254),
    subject         text        NOT NULL CHECK (length(subject) BETWEEN 1 AND 1000),
    body            text        NOT NULL CHECK (length(body) BETWEEN 1 AND 20000),
    attempts        integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at timestamptz NOT NULL,
    sent_at         timestamptz,
    failed_at       timestamptz,
    last_error      text        NOT NULL DEFAULT '' CHECK (length(last_error) <= 1000),
    created_at      timestamptz NOT NULL,
    CHECK (sent_at IS NULL OR failed_at IS NULL)
);
-- The sender's one question: which unsent, not given-up rows are due.
CREATE INDEX mail_queue_due_idx ON mail_queue (next_attempt_at, id) WHERE sent_at IS NULL AND failed_at IS NULL;

-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER mail_queue_no_truncate BEFORE TRUNCATE ON mail_queue
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
