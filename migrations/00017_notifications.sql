-- notifications: news for one user inside the application (docs/RULES.md
-- §18.4): a report submitted (to finance), returned or approved (to its
-- author), a proposed quote waiting (to editors), sent back or published
-- (to its author). The write that causes one adds it in its own
-- transaction, so a notice exists exactly when its cause committed. A
-- notice is only ever marked read; it names its cause (entity and id) and
-- who acted, and the page words it in the reader's language.

-- +goose Up
CREATE TABLE notifications (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint      NOT NULL REFERENCES users (id),
    kind       text        NOT NULL CHECK (kind IN ('report_submitted', 'report_returned', 'report_approved',
                   'quote_proposed', 'quote_returned', 'quote_published')),
    entity     text        NOT NULL CHECK (entity IN ('report', 'quote')),
    entity_id  bigint      NOT NULL CHECK (entity_id > 0),
    actor_id   bigint      REFERENCES users (id),
    comment    text        NOT NULL DEFAULT '' CHECK (length(comment) <= 4000),
    created_at timestamptz NOT NULL,
    read_at    timestamptz
);
CREATE INDEX notifications_user_idx ON notifications (user_id, created_at DESC, id DESC);
CREATE INDEX notifications_unread_idx ON notifications (user_id) WHERE read_at IS NULL;

-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER notifications_no_truncate BEFORE TRUNCATE ON notifications
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
