-- least_privilege: history that the serving role cannot erase even with the
-- privileges it has (docs/RULES.md §16.7). TRUNCATE bypasses row triggers,
-- so every table refuses it with a statement trigger; and a report enters
-- the table only as a draft, so the workflow's steps (submitted, approved,
-- returned) are reachable only through the guarded updates of 00005.
-- Tables created by later migrations add the same TRUNCATE trigger (a test
-- checks that every table has one).

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION refuse_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%: TRUNCATE is refused; history is never erased', TG_TABLE_NAME;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOR t IN SELECT tablename FROM pg_tables
             WHERE schemaname = 'public' AND tablename <> 'goose_db_version' ORDER BY tablename
    LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate()',
                       t || '_no_truncate', t);
    END LOOP;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION reports_insert_draft() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status <> 'draft' OR NEW.submitted_at IS NOT NULL OR NEW.decided_at IS NOT NULL
       OR NEW.decided_by IS NOT NULL OR NEW.decision_comment <> '' THEN
        RAISE EXCEPTION 'a report is created as a draft (not %)', NEW.status;
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER reports_insert_draft BEFORE INSERT ON reports
    FOR EACH ROW EXECUTE FUNCTION reports_insert_draft();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
