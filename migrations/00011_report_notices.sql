-- report_notices: a decision on a report (approved or returned) that its
-- author has not seen yet (docs/RULES.md §11.3). The decision adds the row
-- in its own transaction; the author opening the report removes it. Every
-- page the author opens meanwhile names it, so nobody has to look for a
-- returned report. Decisions taken before this table existed have no row:
-- they are on the authors' home pages as before.

-- +goose Up
CREATE TABLE report_notices (
    -- a report is decided once (approved or returned), so one notice each
    report_id  bigint      PRIMARY KEY REFERENCES reports (id),
    user_id    bigint      NOT NULL REFERENCES users (id),
    decided_at timestamptz NOT NULL
);
CREATE INDEX report_notices_user_idx ON report_notices (user_id, decided_at DESC, report_id DESC);

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
