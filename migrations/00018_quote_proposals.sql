-- quote_proposals: quotes proposed by anyone signed in and published by
-- editors (docs/RULES.md §18.1). A proposal is a row of quotes, so
-- comparisons and reports read it like any quote, in three new states:
-- proposed (waiting for an editor), returned (sent back with a comment; its
-- author may edit it, which proposes it again) and reviewed (an editor
-- published it as the series' next version; the row keeps the vendor's
-- words). None of the three is published, so none needs published_at.
--
-- A proposed or reviewed row never changes its priced fields or lines:
-- proposed → returned and proposed → reviewed change its state only. A
-- proposal is written as a draft row and moved to proposed in the same
-- transaction (so its lines are inserted under the draft rule), and the
-- published version is inserted as a draft and published, as an editor's
-- draft is.
--
-- The vendor's words (the pasted message and an optional file) and the
-- editors' decisions are only ever added: a later message or file is a new
-- row, never an edit.

-- +goose Up
ALTER TABLE quotes DROP CONSTRAINT quotes_state_check;
ALTER TABLE quotes ADD CONSTRAINT quotes_state_check
    CHECK (state IN ('draft', 'proposed', 'returned', 'reviewed', 'published', 'archived'));
ALTER TABLE quotes DROP CONSTRAINT quotes_check2;
ALTER TABLE quotes ADD CONSTRAINT quotes_published_at_check
    CHECK (state IN ('draft', 'proposed', 'returned', 'reviewed') OR published_at IS NOT NULL);

-- the review queue (oldest first) and "my proposals"
CREATE INDEX quotes_proposals_idx ON quotes (state, created_at, id) WHERE state IN ('proposed', 'returned', 'reviewed');
CREATE INDEX quotes_proposals_author_idx ON quotes (created_by, created_at DESC, id DESC)
    WHERE state IN ('proposed', 'returned', 'reviewed');
-- price history reads the market (published and archived versions) by name
CREATE INDEX quotes_market_history_idx ON quotes (platform_id, gpu_model_id, as_of, id) WHERE state IN ('published', 'archived');

-- +goose StatementBegin
-- Who may change what (docs/RULES.md §7.1, §18.1): a draft freely; a
-- returned proposal by its author's edit, which proposes it again; a
-- proposed one only its state, to returned or reviewed (with the lock
-- version and who touched it last); published → archived; nothing else.
-- Only drafts are deleted.
CREATE OR REPLACE FUNCTION quotes_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    allowed quotes;
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.state <> 'draft' THEN
            RAISE EXCEPTION 'quote %: only drafts are deleted (this one is %)', OLD.id, OLD.state;
        END IF;
        RETURN OLD;
    END IF;
    IF OLD.state = 'draft' THEN
        RETURN NEW;
    END IF;
    IF OLD.state = 'returned' AND NEW.state IN ('returned', 'proposed')
       AND NEW.id = OLD.id AND NEW.series_id = OLD.series_id AND NEW.version = OLD.version
       AND NEW.predecessor_id IS NOT DISTINCT FROM OLD.predecessor_id
       AND NEW.created_by IS NOT DISTINCT FROM OLD.created_by AND NEW.created_at = OLD.created_at
       AND NEW.published_at IS NULL AND NEW.published_by IS NULL AND NEW.archived_at IS NULL THEN
        RETURN NEW;
    END IF;
    allowed := OLD;
    IF OLD.state = 'published' AND NEW.state = 'archived' THEN
        allowed.state := NEW.state;
        allowed.archived_at := NEW.archived_at;
    END IF;
    IF OLD.state = 'proposed' AND NEW.state IN ('returned', 'reviewed') THEN
        allowed.state := NEW.state;
        allowed.lock_version := NEW.lock_version;
        allowed.updated_at := NEW.updated_at;
        allowed.updated_by := NEW.updated_by;
    END IF;
    IF allowed IS DISTINCT FROM NEW THEN
        RAISE EXCEPTION 'quote %: a % quote is immutable; edit creates a new version', OLD.id, OLD.state;
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- Lines change only while their quote is a draft or a returned proposal.
CREATE OR REPLACE FUNCTION quote_lines_immutable() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    st text;
BEGIN
    SELECT state INTO st FROM quotes WHERE id = COALESCE(NEW.quote_id, OLD.quote_id);
    IF st IS NOT NULL AND st NOT IN ('draft', 'returned') THEN
        RAISE EXCEPTION 'quote %: lines of a % quote are immutable', COALESCE(NEW.quote_id, OLD.quote_id), st;
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd

-- The vendor's message pasted with a proposal; proposing a returned
-- proposal again may add a newer one (the page shows the newest).
CREATE TABLE quote_messages (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    quote_id   bigint      NOT NULL REFERENCES quotes (id),
    body       text        NOT NULL CHECK (length(btrim(body)) BETWEEN 1 AND 20000),
    created_by bigint      REFERENCES users (id),
    created_at timestamptz NOT NULL
);
CREATE INDEX quote_messages_quote_idx ON quote_messages (quote_id, id);

-- The vendor's file: kept in the database with what the server decided
-- from its bytes. series_id links it to every version of the offer.
CREATE TABLE quote_attachments (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    quote_id     bigint      NOT NULL REFERENCES quotes (id),
    series_id    bigint      NOT NULL,
    filename     text        NOT NULL CHECK (length(filename) BETWEEN 1 AND 200),
    content_type text        NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg', 'image/webp')),
    size_bytes   integer     NOT NULL CHECK (size_bytes BETWEEN 1 AND 5242880),
    sha256       text        NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    data         bytea       NOT NULL,
    created_by   bigint      REFERENCES users (id),
    created_at   timestamptz NOT NULL,
    CHECK (octet_length(data) = size_bytes)
);
CREATE INDEX quote_attachments_series_idx ON quote_attachments (series_id, id);

-- An editor's decision on a proposal: published (published_id names the
-- version it became) or returned with a comment.
CREATE TABLE quote_reviews (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    quote_id     bigint      NOT NULL REFERENCES quotes (id),
    decision     text        NOT NULL CHECK (decision IN ('published', 'returned')),
    comment      text        NOT NULL DEFAULT '' CHECK (length(comment) <= 2000),
    published_id bigint      REFERENCES quotes (id),
    decided_by   bigint      REFERENCES users (id),
    decided_at   timestamptz NOT NULL,
    CHECK (decision <> 'returned' OR length(btrim(comment)) >= 1),
    CHECK ((decision = 'published') = (published_id IS NOT NULL))
);
CREATE INDEX quote_reviews_quote_idx ON quote_reviews (quote_id, id);

-- +goose StatementBegin
CREATE FUNCTION quote_proposal_history_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%: rows are only ever added', TG_TABLE_NAME;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER quote_messages_append_only BEFORE UPDATE OR DELETE ON quote_messages
    FOR EACH ROW EXECUTE FUNCTION quote_proposal_history_append_only();
CREATE TRIGGER quote_attachments_append_only BEFORE UPDATE OR DELETE ON quote_attachments
    FOR EACH ROW EXECUTE FUNCTION quote_proposal_history_append_only();
CREATE TRIGGER quote_reviews_append_only BEFORE UPDATE OR DELETE ON quote_reviews
    FOR EACH ROW EXECUTE FUNCTION quote_proposal_history_append_only();

-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER quote_messages_no_truncate BEFORE TRUNCATE ON quote_messages
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER quote_attachments_no_truncate BEFORE TRUNCATE ON quote_attachments
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER quote_reviews_no_truncate BEFORE TRUNCATE ON quote_reviews
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
