-- Login throttling counts every password attempt before the password is
-- checked, not failures after it (docs/RULES.md §16.2). Keys are
-- 'account:<email>' (browsers without a device cookie), 'device:<nonce>'
-- (one device cookie), 'reauth:<user id>' (re-checks of the current
-- password) and 'ip:<address>' (the address counter, which slows down and
-- never refuses). Counters of windows that have passed are deleted as new
-- attempts come in, oldest first.

-- +goose Up
ALTER TABLE login_throttle RENAME COLUMN failures TO attempts;
ALTER TABLE login_throttle RENAME CONSTRAINT login_throttle_failures_check TO login_throttle_attempts_check;
CREATE INDEX login_throttle_window_start_idx ON login_throttle (window_start);

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
