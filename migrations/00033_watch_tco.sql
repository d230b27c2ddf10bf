-- A price watch may read a quote's TCO for a saved usage profile
-- (docs/RULES.md §24.1): basis 'tco', with profile_id naming the profile
-- (any saved one: profiles are the team's, §2.1). Deleting the profile
-- leaves the watch with no profile: it is listed, says so, and matches
-- nothing until it is changed. profile_id belongs to the tco basis only.
--
-- A new exchange rate evaluates the price watches in its target currency
-- (docs/RULES.md §24.2): watches_price_currency_idx finds them.

-- +goose Up
ALTER TABLE watches ADD COLUMN profile_id bigint REFERENCES usage_profiles (id) ON DELETE SET NULL;
ALTER TABLE watches DROP CONSTRAINT watches_basis_check;
ALTER TABLE watches ADD CONSTRAINT watches_basis_check CHECK (basis IN ('', 'hourly', 'monthly', 'tco'));
ALTER TABLE watches ADD CONSTRAINT watches_profile_check CHECK (profile_id IS NULL OR basis = 'tco');
CREATE INDEX watches_profile_idx ON watches (profile_id) WHERE profile_id IS NOT NULL;
CREATE INDEX watches_price_currency_idx ON watches (currency, id) WHERE kind = 'price_below' AND deleted_at IS NULL AND NOT paused;

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
