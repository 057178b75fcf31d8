-- +goose Up
-- The desk's search by supplier reads the org's distinct supplier names
-- (few, however long the history) for those containing the text, then each
-- matching name's newest documents in the order of
-- intake_supplier_name_idx, a page at most per name. A trigram index over
-- every document's name gave the posting list of each of the text's
-- trigrams, which grows with the table, and its matches had to be sorted.
--
-- A name is kept lower-cased, as the search compares it, and keyed by its
-- md5 (as a uuid, 16 bytes): a seller's name may be longer than a btree
-- entry can hold.
CREATE TABLE supplier_names (
    org_id bigint NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
    name   text   NOT NULL
);
CREATE UNIQUE INDEX supplier_names_key ON supplier_names (org_id, (md5(name)::uuid));
CREATE INDEX supplier_names_trgm_idx ON supplier_names USING gin (name gin_trgm_ops);

CREATE INDEX intake_supplier_name_idx ON intake_documents (org_id, (md5(lower(supplier_name))::uuid), id)
    WHERE supplier_name IS NOT NULL;

-- A name enters the table with the first document that carries it, and is
-- never taken out: a name no document carries any more finds no rows.
-- Inserts are read once per statement (a bulk load adds each name once);
-- an update only when it changes the name (it rewrites fields, from which
-- supplier_name is generated).
-- +goose StatementBegin
CREATE FUNCTION supplier_names_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO supplier_names (org_id, name)
    SELECT DISTINCT org_id, lower(supplier_name) FROM inserted WHERE supplier_name IS NOT NULL
    ON CONFLICT (org_id, (md5(name)::uuid)) DO NOTHING;
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION supplier_names_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO supplier_names (org_id, name) VALUES (NEW.org_id, lower(NEW.supplier_name))
    ON CONFLICT (org_id, (md5(name)::uuid)) DO NOTHING;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER supplier_names_inserted AFTER INSERT ON intake_documents
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION supplier_names_inserted();
CREATE TRIGGER supplier_names_updated AFTER UPDATE OF fields, org_id ON intake_documents
    FOR EACH ROW WHEN (NEW.supplier_name IS NOT NULL
                       AND (NEW.supplier_name IS DISTINCT FROM OLD.supplier_name OR NEW.org_id <> OLD.org_id))
    EXECUTE FUNCTION supplier_names_updated();

INSERT INTO supplier_names (org_id, name)
SELECT DISTINCT org_id, lower(supplier_name) FROM intake_documents WHERE supplier_name IS NOT NULL
ON CONFLICT DO NOTHING;

DROP INDEX intake_supplier_trgm_idx;

-- +goose Down
CREATE INDEX intake_supplier_trgm_idx ON intake_documents USING gin (lower(supplier_name) gin_trgm_ops);
DROP TRIGGER supplier_names_updated ON intake_documents;
DROP TRIGGER supplier_names_inserted ON intake_documents;
DROP FUNCTION supplier_names_updated();
DROP FUNCTION supplier_names_inserted();
DROP INDEX intake_supplier_name_idx;
DROP TABLE supplier_names;
