-- rate_limits: the public rate limit's buckets, shared by every serving
-- process (docs/RULES.md §20.3). One row per client key holds the bucket's
-- theoretical arrival time (tat): the moment the bucket would be full again
-- had no request come since. A request at now is allowed when
-- tat <= now + (burst - 1) × interval and then moves tat to
-- max(tat, now) + interval; a refused request changes nothing. A row whose
-- tat has passed means a full bucket, the same as no row, so each serving
-- process deletes such rows once a minute.
--
-- UNLOGGED: a bucket is worth less than a WAL flush. Written without WAL,
-- a limited request commits without waiting for the disk (pgbench on the
-- development machine: 0.08 ms a request unlogged, 0.32 ms logged); after
-- a crash PostgreSQL empties the table, which only gives every client a
-- full bucket again. Replicas do not receive it: only the primary counts.
-- No index on tat: every request rewrites its row, and with tat indexed
-- none of those updates could stay on its page (HOT), while the sweep reads
-- the whole small table once a minute anyway.

-- +goose Up
CREATE UNLOGGED TABLE rate_limits (
    key text        PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 200),
    tat timestamptz NOT NULL
);
-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER rate_limits_no_truncate BEFORE TRUNCATE ON rate_limits
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
