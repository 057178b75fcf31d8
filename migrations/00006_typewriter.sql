-- +goose Up
-- Documents composed in the product (a bill typed in from paper, a
-- self-billed invoice). Each revision is a new, immutable version; the
-- versions of one document form its version group.
CREATE TABLE typewriter_documents (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id     bigint NOT NULL REFERENCES orgs (id),
    created_by text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE typewriter_versions (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    document_id   bigint NOT NULL REFERENCES typewriter_documents (id),
    org_id        bigint NOT NULL REFERENCES orgs (id),
    number        integer NOT NULL CHECK (number > 0),
    supersedes_id bigint REFERENCES typewriter_versions (id),
    body          jsonb NOT NULL,
    pdf           bytea NOT NULL,
    pdf_sha256    text NOT NULL CHECK (pdf_sha256 ~ '^[0-9a-f]{64}$'),
    created_by    text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT typewriter_versions_number_key UNIQUE (document_id, number),
    CHECK ((number = 1) = (supersedes_id IS NULL))
);

-- +goose StatementBegin
CREATE FUNCTION typewriter_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a typewriter version is immutable: revise the document instead' USING ERRCODE = 'restrict_violation';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER typewriter_versions_immutable BEFORE UPDATE OR DELETE ON typewriter_versions
    FOR EACH ROW EXECUTE FUNCTION typewriter_versions_immutable();

-- An intake row filed from a version: which version, and its version group
-- (the typewriter document), for the version-group guard at queue time.
ALTER TABLE intake_documents ADD COLUMN typewriter_version_id bigint REFERENCES typewriter_versions (id);
ALTER TABLE intake_documents ADD COLUMN version_group bigint REFERENCES typewriter_documents (id);
CREATE INDEX intake_version_group_idx ON intake_documents (version_group) WHERE version_group IS NOT NULL;

-- +goose Down
DROP INDEX intake_version_group_idx;
ALTER TABLE intake_documents DROP COLUMN version_group;
ALTER TABLE intake_documents DROP COLUMN typewriter_version_id;
DROP TABLE typewriter_versions;
DROP FUNCTION typewriter_versions_immutable();
DROP TABLE typewriter_documents;
