-- Exchange rates are dated samples, like prices: the rate converting one unit
-- of the base currency into the quote currency, valid from as_of, with where
-- it came from. The evaluation API and saved reports name the rate and date
-- they used. Rates are exact decimals (numeric), never floating point.

-- +goose Up
CREATE TABLE fx_rates (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    base_currency  text          NOT NULL CHECK (base_currency ~ '^[A-Z]{3}$'),
    quote_currency text          NOT NULL CHECK (quote_currency ~ '^[A-Z]{3}$'),
    rate           numeric(28, 12) NOT NULL CHECK (rate > 0),
    as_of          date          NOT NULL,
    source         text          NOT NULL DEFAULT '',
    created_by     bigint        REFERENCES users (id),
    created_at     timestamptz   NOT NULL DEFAULT now(),
    CHECK (base_currency <> quote_currency),
    -- one rate per pair and day; a correction is a new day's sample
    UNIQUE (base_currency, quote_currency, as_of)
);

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
