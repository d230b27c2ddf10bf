-- mail_choice: each user chooses how notices reach them by mail
-- (docs/RULES.md §18.4): one mail per notice (the default, as before),
-- a daily digest, or none. The notices themselves are kept either way.
--
-- A digest is one row of mail_queue that stands for many notices: such a
-- row names its user and its day instead of one notification, and the
-- unique index on (user, day) lets at most one digest a day exist for a
-- user whatever the number of processes building them — a second builder's
-- insert waits for the first and then finds the row there. The notices a
-- digest holds are listed in mail_digest_notices: a notice of a user who
-- chose the digest waits there (mail_id NULL) from the write that added it
-- until a digest takes it.

-- +goose Up
ALTER TABLE users ADD COLUMN mail_choice text NOT NULL DEFAULT 'each'
    CHECK (mail_choice IN ('each', 'daily', 'none'));

ALTER TABLE mail_queue ALTER COLUMN notification_id DROP NOT NULL;
ALTER TABLE mail_queue ADD COLUMN digest_user_id bigint REFERENCES users (id);
ALTER TABLE mail_queue ADD COLUMN digest_day date;
ALTER TABLE mail_queue ADD CONSTRAINT mail_queue_one_kind CHECK (
    (notification_id IS NULL) <> (digest_user_id IS NULL)
    AND (digest_user_id IS NULL) = (digest_day IS NULL));
CREATE UNIQUE INDEX mail_queue_digest_once ON mail_queue (digest_user_id, digest_day)
    WHERE digest_user_id IS NOT NULL;

CREATE TABLE mail_digest_notices (
    notification_id bigint      PRIMARY KEY REFERENCES notifications (id),
    user_id         bigint      NOT NULL REFERENCES users (id),
    -- The digest that holds the notice; NULL while it waits for one.
    mail_id         bigint      REFERENCES mail_queue (id),
    created_at      timestamptz NOT NULL
);
-- The builder's one question: whose notices wait, and which.
CREATE INDEX mail_digest_waiting_idx ON mail_digest_notices (user_id, notification_id) WHERE mail_id IS NULL;

CREATE TRIGGER mail_digest_notices_no_truncate BEFORE TRUNCATE ON mail_digest_notices
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
