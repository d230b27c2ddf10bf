-- quote_search_trgm: the quote list's free-text search reads an index
-- (docs/RULES.md §20.2). The search matches a quote's label or region
-- anywhere in the text, ignoring case (ILIKE '%…%'), or its platform's or
-- GPU model's name; the names are looked up in their small tables first
-- and become id lists. A b-tree cannot answer "contains", so the label and
-- region get a trigram index: PostgreSQL reads from it the quotes holding
-- every trigram of the searched text and checks each one with the same
-- ILIKE, so the rows found are exactly those ILIKE finds.
--
-- The index is written as each quote is inserted (fastupdate off), not
-- gathered in a pending list that only a vacuum merges: quotes are written
-- a few at a time, and a search must not depend on when the table was last
-- vacuumed (a long pending list is scanned in full by every search, and
-- the planner, counting it, would rather test every quote).
--
-- pg_trgm ships with PostgreSQL (contrib) and is a trusted extension: the
-- database's owner, who runs the migrations, may create it.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX quotes_search_trgm_idx ON quotes USING gin (label gin_trgm_ops, region gin_trgm_ops)
    WITH (fastupdate = off);

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
