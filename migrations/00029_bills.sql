-- bills: a vendor's bill for one month, kept beside an approved report and
--   checked against one quote version of its snapshot (docs/RULES.md
--   §23.8): what was billed (the lines, in bill_lines) and the five totals
--   of its check as it was stored. A bill is never edited: a corrected bill
--   is the next revision for the same report, quote version and month,
--   naming the one it corrects (previous_id), so the chain of revisions is
--   one line without gaps (revision 1, 2, …; one next revision per bill).
-- bill_lines: a bill's lines in its order (position 0, 1, …), added in the
--   transaction that adds the bill and never after.
-- bill_mappings: the remembered answers of FOCUS imports: on a platform's
--   bills, a SkuId (kind 'sku') or a ChargeDescription (kind
--   'description') is this bill item. These are settings, changed and
--   removed by editors (audited), not history.
--
-- Triggers refuse every UPDATE and DELETE of bills and bill_lines, so not
-- even the tables' owner rewrites a stored bill; the serving role may only
-- read and add to them (store.appendOnly). On insert, a bill must name an
-- approved report whose snapshot compares its quote version, and the
-- revision it corrects must be the one before for the same report, quote
-- and month. A line may only be added by the transaction that added its
-- bill (the bill row's xmin is that transaction's id), and a bill commits
-- with at least one line, numbered 0…n-1 (a deferred check).

-- +goose Up
CREATE TABLE bills (
    id                 bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    report_id          bigint        NOT NULL REFERENCES reports (id),
    quote_id           bigint        NOT NULL REFERENCES quotes (id),
    -- the first day of the billed month
    month              date          NOT NULL CHECK (extract(day FROM month) = 1 AND month >= DATE '2000-01-01'),
    revision           integer       NOT NULL CHECK (revision >= 1),
    previous_id        bigint        REFERENCES bills (id),
    currency           text          NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    prices_include_tax boolean       NOT NULL,
    instances          integer       NOT NULL CHECK (instances BETWEEN 1 AND 10000),
    -- quote currency → bill currency (1 for the same currency)
    fx_rate            numeric       NOT NULL CHECK (fx_rate > 0),
    fx_date            date,
    source             text          NOT NULL CHECK (source IN ('typed', 'csv', 'focus')),
    filename           text          NOT NULL DEFAULT '' CHECK (length(filename) <= 255),
    note               text          NOT NULL DEFAULT '' CHECK (length(note) <= 1000),
    -- the check's five totals, in the bill's currency
    billed_total       numeric(20,6) NOT NULL,
    expected_total     numeric(20,6) NOT NULL,
    overcharge_total   numeric(20,6) NOT NULL CHECK (overcharge_total >= 0),
    undercharge_total  numeric(20,6) NOT NULL CHECK (undercharge_total <= 0),
    unquoted_total     numeric(20,6) NOT NULL,
    author_id          bigint        NOT NULL REFERENCES users (id),
    created_at         timestamptz   NOT NULL,
    UNIQUE (report_id, quote_id, month, revision),
    CHECK ((previous_id IS NULL) = (revision = 1))
);
-- a bill is corrected once: its correction is the next revision
CREATE UNIQUE INDEX bills_one_next_revision ON bills (previous_id) WHERE previous_id IS NOT NULL;
CREATE INDEX bills_quote_idx ON bills (quote_id);

CREATE TABLE bill_lines (
    bill_id     bigint  NOT NULL REFERENCES bills (id),
    position    integer NOT NULL CHECK (position BETWEEN 0 AND 9999),
    -- billcheck.Items(): the compute items, the twelve lines, other
    item        text    NOT NULL CHECK (item IN ('compute_hourly', 'compute_spot', 'compute_monthly', 'compute_yearly',
                    'bandwidth', 'egress', 'data_migration', 'public_ip', 'system_disk', 'data_disk', 'object_storage',
                    'bundled_addon', 'snapshot', 'image', 'stopped_retention', 'start_stop_schedule', 'other')),
    quantity    numeric NOT NULL CHECK (quantity >= 0),
    -- negative for a credit
    amount      numeric NOT NULL,
    description text    NOT NULL DEFAULT '' CHECK (length(description) <= 500),
    PRIMARY KEY (bill_id, position)
);

CREATE TABLE bill_mappings (
    platform_id bigint      NOT NULL REFERENCES platforms (id),
    kind        text        NOT NULL CHECK (kind IN ('sku', 'description')),
    key         text        NOT NULL CHECK (key = btrim(key) AND length(key) BETWEEN 1 AND 500),
    item        text        NOT NULL CHECK (item IN ('compute_hourly', 'compute_spot', 'compute_monthly', 'compute_yearly',
                    'bandwidth', 'egress', 'data_migration', 'public_ip', 'system_disk', 'data_disk', 'object_storage',
                    'bundled_addon', 'snapshot', 'image', 'stopped_retention', 'start_stop_schedule', 'other')),
    updated_by  bigint      REFERENCES users (id),
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (platform_id, kind, key)
);

-- +goose StatementBegin
-- A stored bill and its lines never change and are never deleted: a
-- correction is the next revision.
CREATE FUNCTION bills_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%: a stored bill never changes; a corrected bill is a new revision', TG_TABLE_NAME;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER bills_immutable BEFORE UPDATE OR DELETE ON bills
    FOR EACH ROW EXECUTE FUNCTION bills_immutable();
CREATE TRIGGER bill_lines_immutable BEFORE UPDATE OR DELETE ON bill_lines
    FOR EACH ROW EXECUTE FUNCTION bills_immutable();

-- +goose StatementBegin
-- A bill is kept beside an approved report (which stays approved: 00005's
-- guard), for one of the quote versions its snapshot compares; a revision
-- corrects the revision before it, of the same report, quote and month.
CREATE FUNCTION bills_insert_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM reports r WHERE r.id = NEW.report_id AND r.status = 'approved'
                   AND r.snapshot -> 'rows' @> jsonb_build_array(jsonb_build_object('quote', jsonb_build_object('id', NEW.quote_id)))) THEN
        RAISE EXCEPTION 'bill: report % is not approved or does not compare quote %', NEW.report_id, NEW.quote_id;
    END IF;
    IF NEW.previous_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM bills p WHERE p.id = NEW.previous_id AND p.report_id = NEW.report_id AND p.quote_id = NEW.quote_id
           AND p.month = NEW.month AND p.revision = NEW.revision - 1) THEN
        RAISE EXCEPTION 'bill: revision % must correct revision % of the same report, quote and month', NEW.revision, NEW.revision - 1;
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER bills_insert_guard BEFORE INSERT ON bills
    FOR EACH ROW EXECUTE FUNCTION bills_insert_guard();

-- +goose StatementBegin
-- Lines are added by the transaction that adds their bill: a row's xmin is
-- the id of the transaction that inserted it, and a bill row is never
-- updated (so its xmin never changes). Both are added outside savepoints
-- (a row added in one carries the subtransaction's id, and is refused
-- here: the safe side).
CREATE FUNCTION bill_lines_insert_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM bills b WHERE b.id = NEW.bill_id AND b.xmin = pg_current_xact_id()::xid) THEN
        RAISE EXCEPTION 'bill %: lines are added only with their bill, in the transaction that adds it', NEW.bill_id;
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER bill_lines_insert_guard BEFORE INSERT ON bill_lines
    FOR EACH ROW EXECUTE FUNCTION bill_lines_insert_guard();

-- +goose StatementBegin
-- At commit, every bill added has its lines, numbered 0…n-1.
CREATE FUNCTION bills_have_lines() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
    top integer;
BEGIN
    SELECT count(*), max(position) INTO n, top FROM bill_lines WHERE bill_id = NEW.id;
    IF n = 0 OR top <> n - 1 THEN
        RAISE EXCEPTION 'bill %: a bill has at least one line, numbered from 0 without gaps', NEW.id;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE CONSTRAINT TRIGGER bills_have_lines AFTER INSERT ON bills
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION bills_have_lines();

-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER bills_no_truncate BEFORE TRUNCATE ON bills
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER bill_lines_no_truncate BEFORE TRUNCATE ON bill_lines
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER bill_mappings_no_truncate BEFORE TRUNCATE ON bill_mappings
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- A bill that overcharges tells the report's author and finance
-- (notify.BillOvercharged); the notice is about the bill.
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check CHECK (kind IN ('report_submitted', 'report_returned',
    'report_approved', 'quote_proposed', 'quote_returned', 'quote_published', 'bill_overcharged'));
ALTER TABLE notifications DROP CONSTRAINT notifications_entity_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_entity_check CHECK (entity IN ('report', 'quote', 'bill'));

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
