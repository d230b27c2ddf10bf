-- quote_list_covering: a filtered quote list is answered from an index
-- alone (docs/RULES.md §20.2). The list and its count filter on state,
-- platform, GPU model, currency and sharing and order by as of, then id,
-- both descending. The three list indexes before this one held the order
-- but not the other filters, so a list filtered by GPU model and currency
-- read every quote of that model from the table to test its currency
-- (3,333 table rows for a count of 1,111 among 100,000 quotes). These hold
-- the filtered columns too (INCLUDE: stored, not ordered), so PostgreSQL
-- tests them in the index and reads the table only for the page's 50
-- quotes. They replace the three they extend.

-- +goose Up
CREATE INDEX quotes_state_list_idx ON quotes (state, as_of DESC, id DESC)
    INCLUDE (platform_id, gpu_model_id, currency, sharing);
CREATE INDEX quotes_published_gpu_list_idx ON quotes (gpu_model_id, as_of DESC, id DESC)
    INCLUDE (platform_id, currency, sharing) WHERE state = 'published';
CREATE INDEX quotes_published_platform_list_idx ON quotes (platform_id, as_of DESC, id DESC)
    INCLUDE (gpu_model_id, currency, sharing) WHERE state = 'published';

DROP INDEX quotes_state_as_of_idx;
DROP INDEX quotes_published_gpu_idx;
DROP INDEX quotes_published_platform_idx;

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
