-- own_hardware: buying the servers instead of renting them (docs/RULES.md
-- §17.4). An own-hardware option is a record of its own, not a quote: a
-- series (own_options: who owns it, whether it is shared, its newest
-- version, whether it is archived) and its versions (own_option_versions:
-- every input the engine reads). A version never changes once written;
-- editing adds version n+1 under the series' row, so a comparison or a
-- report can name the exact version it used. Electricity prices are dated,
-- sourced samples per region and currency, only ever added, like the
-- reference prices and exchange rates; the newest one on or before a day is
-- in force.

-- +goose Up
CREATE TABLE electricity_prices (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- "CN", "CN-Beijing", "DE-Hessen": an ISO 3166 country code, then
    -- optional parts naming the province, grid or site
    region     text          NOT NULL CHECK (length(region) <= 40 AND region ~ '^[A-Z]{2}(-[A-Za-z0-9]+)*$'),
    currency   text          NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    kwh_price  numeric(12,6) NOT NULL CHECK (kwh_price > 0),
    as_of      date          NOT NULL,
    source     text          NOT NULL CHECK (length(btrim(source)) BETWEEN 1 AND 500),
    created_by bigint        REFERENCES users (id),
    created_at timestamptz   NOT NULL DEFAULT now()
);
-- one sample per region (whatever its letter case), currency and day; a
-- correction is a new day's sample
CREATE UNIQUE INDEX electricity_prices_key ON electricity_prices (lower(region), currency, as_of);
CREATE INDEX electricity_prices_in_force_idx ON electricity_prices (lower(region), currency, as_of DESC, id DESC);

CREATE TABLE own_options (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- shared options are read by every signed-in user and kept by editors;
    -- private ones by their author, editors and admins (finance reads them)
    shared         boolean     NOT NULL,
    created_by     bigint      REFERENCES users (id),
    created_at     timestamptz NOT NULL DEFAULT now(),
    -- the newest version's number: a new version bumps it by one under
    -- this row's lock, which is also the edit's optimistic lock
    latest_version integer     NOT NULL DEFAULT 1 CHECK (latest_version >= 1),
    archived_at    timestamptz,
    archived_by    bigint      REFERENCES users (id),
    -- an option without an author (the seed, the command line) is shared
    CHECK (shared OR created_by IS NOT NULL),
    CHECK (archived_at IS NOT NULL OR archived_by IS NULL)
);
CREATE INDEX own_options_created_by_idx ON own_options (created_by);

CREATE TABLE own_option_versions (
    id                       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    option_id                bigint        NOT NULL REFERENCES own_options (id),
    version                  integer       NOT NULL CHECK (version >= 1),
    name                     text          NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 200),
    gpu_model_id             bigint        NOT NULL REFERENCES gpu_models (id),
    gpu_count                integer       NOT NULL CHECK (gpu_count BETWEEN 1 AND 1024),
    currency                 text          NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    purchase_price           numeric(20,6) NOT NULL CHECK (purchase_price > 0),
    purchase_as_of           date          NOT NULL,
    purchase_source          text          NOT NULL CHECK (length(btrim(purchase_source)) BETWEEN 1 AND 500),
    residual_pct             numeric(5,2)  NOT NULL DEFAULT 0 CHECK (residual_pct BETWEEN 0 AND 100),
    life_months              integer       NOT NULL DEFAULT 36 CHECK (life_months BETWEEN 1 AND 120),
    power_load_w             numeric(9,2)  NOT NULL CHECK (power_load_w > 0),
    power_idle_w             numeric(9,2)  NOT NULL DEFAULT 0 CHECK (power_idle_w >= 0),
    pue                      numeric(4,2)  NOT NULL DEFAULT 1 CHECK (pue BETWEEN 1 AND 10),
    -- electricity: the region's sample in force on the evaluation day (in
    -- the option's currency), or the option's own figure; exactly one
    electricity_region       text          CHECK (length(electricity_region) <= 40 AND electricity_region ~ '^[A-Z]{2}(-[A-Za-z0-9]+)*$'),
    kwh_price                numeric(12,6) CHECK (kwh_price >= 0),
    always_on                boolean       NOT NULL DEFAULT false,
    hosting_monthly          numeric(20,6) NOT NULL DEFAULT 0 CHECK (hosting_monthly >= 0),
    ops_monthly              numeric(20,6) NOT NULL DEFAULT 0 CHECK (ops_monthly >= 0),
    maintenance_pct_per_year numeric(5,2)  NOT NULL DEFAULT 0 CHECK (maintenance_pct_per_year BETWEEN 0 AND 100),
    setup_one_off            numeric(20,6) NOT NULL DEFAULT 0 CHECK (setup_one_off >= 0),
    capital_rate_per_year    numeric(8,6)  NOT NULL DEFAULT 0 CHECK (capital_rate_per_year >= 0 AND capital_rate_per_year < 1),
    prices_include_tax       boolean       NOT NULL DEFAULT true,
    tax_rate                 numeric(8,6)  CHECK (tax_rate >= 0 AND tax_rate < 1),
    notes                    text          NOT NULL DEFAULT '' CHECK (length(notes) <= 4000),
    created_by               bigint        REFERENCES users (id),
    created_at               timestamptz   NOT NULL DEFAULT now(),
    UNIQUE (option_id, version),
    CHECK (power_idle_w <= power_load_w),
    CHECK ((electricity_region IS NULL) <> (kwh_price IS NULL)),
    CHECK (prices_include_tax OR tax_rate IS NOT NULL)
);
CREATE INDEX own_option_versions_gpu_idx ON own_option_versions (gpu_model_id);

-- +goose StatementBegin
-- A series is never deleted. It changes in two ways only: its newest
-- version number goes up by one while it is not archived, and it is
-- archived once (time and who). Owner, sharing and creation never change.
CREATE FUNCTION own_options_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    allowed own_options;
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'own option %: options are never deleted; archive it', OLD.id;
    END IF;
    allowed := OLD;
    IF OLD.archived_at IS NULL THEN
        IF NEW.latest_version = OLD.latest_version + 1 AND NEW.archived_at IS NULL THEN
            allowed.latest_version := NEW.latest_version;
        ELSIF NEW.archived_at IS NOT NULL AND NEW.latest_version = OLD.latest_version THEN
            allowed.archived_at := NEW.archived_at;
            allowed.archived_by := NEW.archived_by;
        END IF;
    END IF;
    IF allowed IS DISTINCT FROM NEW THEN
        RAISE EXCEPTION 'own option %: only a new version (while not archived) or archiving changes an option', OLD.id;
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER own_options_guard BEFORE UPDATE OR DELETE ON own_options
    FOR EACH ROW EXECUTE FUNCTION own_options_guard();

-- +goose StatementBegin
-- A version is written once, as its option's newest version (the number
-- the series row was just bumped to, or 1 for a new series), while the
-- option is not archived; then it never changes and is never deleted.
CREATE FUNCTION own_option_versions_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    latest integer;
    archived timestamptz;
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT latest_version, archived_at INTO latest, archived FROM own_options WHERE id = NEW.option_id;
        IF latest IS NULL OR NEW.version <> latest OR archived IS NOT NULL THEN
            RAISE EXCEPTION 'own option %: version % is not its next version (newest %, archived %)',
                NEW.option_id, NEW.version, latest, archived IS NOT NULL;
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'own option version %: versions never change; editing adds a new version', OLD.id;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER own_option_versions_immutable BEFORE INSERT OR UPDATE OR DELETE ON own_option_versions
    FOR EACH ROW EXECUTE FUNCTION own_option_versions_immutable();

-- +goose StatementBegin
-- Electricity samples are only ever added: a correction is a new sample.
CREATE FUNCTION electricity_prices_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'electricity price %: samples are never changed or removed; add a new dated sample', OLD.id;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER electricity_prices_append_only BEFORE UPDATE OR DELETE ON electricity_prices
    FOR EACH ROW EXECUTE FUNCTION electricity_prices_append_only();

-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER electricity_prices_no_truncate BEFORE TRUNCATE ON electricity_prices
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER own_options_no_truncate BEFORE TRUNCATE ON own_options
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER own_option_versions_no_truncate BEFORE TRUNCATE ON own_option_versions
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
