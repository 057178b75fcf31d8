-- +goose Up
-- A supplier's dead letters are read a page at a time, newest first, the
-- way the desk's search reads its documents (migration 00037): the org's
-- supplier names containing the filter's text, then each name's newest
-- dead letters from an index in the page's order, a page at most per name.
-- The trigram index (00042) gave every match unordered, to be sorted, so a
-- page cost as many reads as the supplier had dead letters.
--
-- A dead letter keeps its name's key, the md5 of the lower-cased name as a
-- uuid (supplier_names' key), in a column of its own, so that the index
-- holds every column a page's walk and its count read: an index-only scan
-- until the page is chosen.
ALTER TABLE jobs ADD COLUMN supplier_key uuid;

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobs_note_dead_letter_supplier() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.supplier := (SELECT lower(d.supplier_name) FROM intake_documents d WHERE d.id = NEW.intake_id);
    NEW.supplier_key := md5(NEW.supplier)::uuid;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd

UPDATE jobs SET supplier_key = md5(supplier)::uuid WHERE supplier IS NOT NULL;

CREATE INDEX jobs_dead_letter_supplier_key_idx ON jobs (org_id, supplier_key, updated_at DESC, id DESC) INCLUDE (status, error_class)
    WHERE status IN ('abandoned', 'failed') AND supplier_key IS NOT NULL;

-- +goose Down
DROP INDEX jobs_dead_letter_supplier_key_idx;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION jobs_note_dead_letter_supplier() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.supplier := (SELECT lower(d.supplier_name) FROM intake_documents d WHERE d.id = NEW.intake_id);
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
ALTER TABLE jobs DROP COLUMN supplier_key;
