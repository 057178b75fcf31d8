-- +goose Up
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- What the desk lists and searches, kept beside the fields they come from.
ALTER TABLE intake_documents
    ADD COLUMN supplier_name text GENERATED ALWAYS AS (fields #>> '{seller,name}') STORED,
    ADD COLUMN doc_number    text GENERATED ALWAYS AS (fields ->> 'number') STORED,
    ADD COLUMN currency      text GENERATED ALWAYS AS (fields ->> 'currency') STORED,
    ADD COLUMN payable       numeric GENERATED ALWAYS AS ((fields #>> '{totals,payable}')::numeric) STORED;

DROP INDEX intake_status_idx;
CREATE INDEX intake_desk_idx ON intake_documents (org_id, status, id);
CREATE INDEX intake_desk_all_idx ON intake_documents (org_id, id);
CREATE INDEX intake_supplier_trgm_idx ON intake_documents USING gin (lower(supplier_name) gin_trgm_ops);
CREATE INDEX intake_number_idx ON intake_documents (org_id, upper(doc_number) text_pattern_ops);
CREATE INDEX intake_payable_idx ON intake_documents (org_id, payable);

-- What the ledger saw, for the source-key explorer: every post, replay and
-- conflict. Written after the post's transaction, never in it: a replay
-- writes nothing to the ledger.
CREATE TABLE ledger_observations (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id      bigint NOT NULL REFERENCES orgs (id),
    source_type text NOT NULL,
    source_id   text NOT NULL,
    entry_set   text NOT NULL,
    outcome     text NOT NULL CHECK (outcome IN ('created', 'replayed', 'conflict', 'invalid')),
    entry_id    bigint,
    fingerprint bytea,
    detail      jsonb NOT NULL DEFAULT '{}',
    actor       text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_observations_key_idx ON ledger_observations (org_id, source_type, source_id, entry_set, id);

-- +goose Down
DROP TABLE ledger_observations;
DROP INDEX intake_payable_idx;
DROP INDEX intake_number_idx;
DROP INDEX intake_supplier_trgm_idx;
DROP INDEX intake_desk_all_idx;
DROP INDEX intake_desk_idx;
CREATE INDEX intake_status_idx ON intake_documents (status, org_id, id);
ALTER TABLE intake_documents DROP COLUMN payable, DROP COLUMN currency, DROP COLUMN doc_number, DROP COLUMN supplier_name;
