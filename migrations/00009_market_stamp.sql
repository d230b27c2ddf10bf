-- The market reference (docs/RULES.md §3.6) is the highest price published
-- quotes charge per item and unit: one aggregate over every published
-- quote's lines, too costly to run on each comparison once the market holds
-- tens of thousands of quotes. market_stamp counts the changes to the set
-- of published quotes (a quote published, archived or withdrawn; published
-- versions are otherwise immutable), in the transaction that makes them, so
-- a server may keep the aggregate it read and reuse it for as long as the
-- stamp it read it with (in the same snapshot) is current.

-- +goose Up
CREATE TABLE market_stamp (
    id integer PRIMARY KEY CHECK (id = 1),
    n  bigint  NOT NULL
);
INSERT INTO market_stamp (id, n) VALUES (1, 0);

-- +goose StatementBegin
CREATE FUNCTION market_stamp_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE market_stamp SET n = n + 1 WHERE id = 1;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER quotes_published_insert AFTER INSERT ON quotes
    FOR EACH ROW WHEN (NEW.state = 'published') EXECUTE FUNCTION market_stamp_bump();
CREATE TRIGGER quotes_published_update AFTER UPDATE ON quotes
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state AND (OLD.state = 'published' OR NEW.state = 'published'))
    EXECUTE FUNCTION market_stamp_bump();
CREATE TRIGGER quotes_published_delete AFTER DELETE ON quotes
    FOR EACH ROW WHEN (OLD.state = 'published') EXECUTE FUNCTION market_stamp_bump();

-- +goose Down
DROP TRIGGER quotes_published_delete ON quotes;
DROP TRIGGER quotes_published_update ON quotes;
DROP TRIGGER quotes_published_insert ON quotes;
DROP FUNCTION market_stamp_bump();
DROP TABLE market_stamp;
