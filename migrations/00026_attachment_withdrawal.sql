-- attachment_withdrawal: an editor or admin may withdraw a vendor's file
-- from a returned proposal (docs/RULES.md §18.1): its bytes are deleted,
-- and the record of the file (its name, type, size, SHA-256, who sent it
-- and when) stays, with who withdrew it and when.
--
-- The record stays append-only as before; the bytes move to a table of
-- their own, whose rows are added with their file and deleted only once a
-- withdrawal of that file is recorded, never changed. Files stored before
-- this migration keep their bytes.
--
-- Each proposal's author is bounded in how many proposals an hour they
-- make (counted from the vendor's messages, one per proposal made or made
-- again) and in how many bytes of files their proposals not yet published
-- hold: the index reads the first.

-- +goose Up
CREATE TABLE quote_attachment_data (
    attachment_id bigint PRIMARY KEY REFERENCES quote_attachments (id),
    data          bytea  NOT NULL
);
INSERT INTO quote_attachment_data (attachment_id, data) SELECT id, data FROM quote_attachments;
ALTER TABLE quote_attachments DROP COLUMN data;

CREATE TABLE quote_attachment_withdrawals (
    attachment_id bigint      PRIMARY KEY REFERENCES quote_attachments (id),
    withdrawn_by  bigint      REFERENCES users (id),
    withdrawn_at  timestamptz NOT NULL
);
CREATE TRIGGER quote_attachment_withdrawals_append_only BEFORE UPDATE OR DELETE ON quote_attachment_withdrawals
    FOR EACH ROW EXECUTE FUNCTION quote_proposal_history_append_only();

-- +goose StatementBegin
-- A file's bytes are added once, exactly its recorded size, for a file not
-- withdrawn; never changed; deleted only after its withdrawal is recorded.
CREATE FUNCTION quote_attachment_data_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        RAISE EXCEPTION 'quote_attachment_data: a file''s bytes never change';
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT 1 FROM quote_attachment_withdrawals w WHERE w.attachment_id = OLD.attachment_id) THEN
            RAISE EXCEPTION 'quote_attachment_data: file % is deleted only once its withdrawal is recorded', OLD.attachment_id;
        END IF;
        RETURN OLD;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM quote_attachments a WHERE a.id = NEW.attachment_id AND a.size_bytes = octet_length(NEW.data))
       OR EXISTS (SELECT 1 FROM quote_attachment_withdrawals w WHERE w.attachment_id = NEW.attachment_id) THEN
        RAISE EXCEPTION 'quote_attachment_data: file % holds other bytes than its record says, or was withdrawn', NEW.attachment_id;
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER quote_attachment_data_guard BEFORE INSERT OR UPDATE OR DELETE ON quote_attachment_data
    FOR EACH ROW EXECUTE FUNCTION quote_attachment_data_guard();

-- History is never erased (00015): every new table refuses TRUNCATE.
CREATE TRIGGER quote_attachment_data_no_truncate BEFORE TRUNCATE ON quote_attachment_data
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();
CREATE TRIGGER quote_attachment_withdrawals_no_truncate BEFORE TRUNCATE ON quote_attachment_withdrawals
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- a person's proposals of the last hour
CREATE INDEX quote_messages_author_idx ON quote_messages (created_by, created_at);

-- +goose Down
-- Forward-only: the schema is never migrated down in production.
SELECT 1;
