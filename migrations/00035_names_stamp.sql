-- names_stamp counts the changes to the platforms and GPU models (their
-- names, aliases and everything else about them; both are edited in
-- place), in the transaction that makes them, as market_stamp (00009)
-- counts the changes to the set of published quotes. A server may keep
-- what it read from these tables — the quote list's filter names, and with
-- market_stamp the list's pages (docs/RULES.md §20.6) — for as long as the
-- stamps it read them with, in the same snapshot, are current. Any
-- statement that writes either table bumps it, whether it changed a name
-- or not: a needless bump only makes the next read a miss.

-- +goose Up
CREATE TABLE names_stamp (
    id integer PRIMARY KEY CHECK (id = 1),
    n  bigint  NOT NULL
);
INSERT INTO names_stamp (id, n) VALUES (1, 0);
CREATE TRIGGER names_stamp_no_truncate BEFORE TRUNCATE ON names_stamp
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose StatementBegin
CREATE FUNCTION names_stamp_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE names_stamp SET n = n + 1 WHERE id = 1;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER platforms_names_stamp AFTER INSERT OR UPDATE OR DELETE ON platforms
    FOR EACH STATEMENT EXECUTE FUNCTION names_stamp_bump();
CREATE TRIGGER gpu_models_names_stamp AFTER INSERT OR UPDATE OR DELETE ON gpu_models
    FOR EACH STATEMENT EXECUTE FUNCTION names_stamp_bump();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
