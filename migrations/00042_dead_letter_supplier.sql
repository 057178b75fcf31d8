-- +goose Up
-- The dead-letter page filters by a substring of the supplier's name. It
-- read the document of every dead letter to test its name, so a filter
-- cost as many lookups as dead letters had gathered (they are never
-- pruned). A job now carries its document's supplier name, lower-cased,
-- from when it becomes a dead letter, and a trigram index over the dead
-- letters' names finds those a filter matches. A document's name is
-- settled before it is approved, so the copy does not go stale.
ALTER TABLE jobs ADD COLUMN supplier text;

-- +goose StatementBegin
CREATE FUNCTION jobs_note_dead_letter_supplier() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.supplier := (SELECT lower(d.supplier_name) FROM intake_documents d WHERE d.id = NEW.intake_id);
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER jobs_note_dead_letter_supplier BEFORE INSERT OR UPDATE OF status ON jobs
    FOR EACH ROW WHEN (NEW.status IN ('abandoned', 'failed'))
    EXECUTE FUNCTION jobs_note_dead_letter_supplier();

UPDATE jobs j SET supplier = lower(d.supplier_name) FROM intake_documents d
WHERE d.id = j.intake_id AND j.status IN ('abandoned', 'failed') AND d.supplier_name IS NOT NULL;

CREATE INDEX jobs_dead_letter_supplier_idx ON jobs USING gin (supplier gin_trgm_ops) WHERE status IN ('abandoned', 'failed');

-- +goose Down
DROP INDEX jobs_dead_letter_supplier_idx;
DROP TRIGGER jobs_note_dead_letter_supplier ON jobs;
DROP FUNCTION jobs_note_dead_letter_supplier();
ALTER TABLE jobs DROP COLUMN supplier;
