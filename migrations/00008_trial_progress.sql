-- A trial row carries how many of its 30 checks are decided (pass, fail or
-- not applicable), next to its verdict: both are derived from the latest
-- recording of each check by package trial, in the transaction that
-- records results, so the trial list reads them instead of repeating the
-- "latest recording wins" rule in SQL.

-- +goose Up
ALTER TABLE trials ADD COLUMN decided integer NOT NULL DEFAULT 0 CHECK (decided BETWEEN 0 AND 30);

-- Trials recorded before this column: counted once, here.
UPDATE trials t SET decided = (
    SELECT count(*) FROM (
        SELECT DISTINCT ON (r.check_no) r.state FROM trial_check_results r
        WHERE r.trial_id = t.id ORDER BY r.check_no, r.id DESC) l
    WHERE l.state <> 'pending');

-- +goose Down
ALTER TABLE trials DROP COLUMN decided;
