-- +goose Up
-- Documents as they arrive and as the pipeline files them. The pipeline
-- writes a row at exactly two points: at ingest (status received) and at
-- queue (pending or flagged, with what was extracted).
CREATE TABLE intake_documents (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id           bigint NOT NULL REFERENCES orgs (id),
    content_hash     text NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
    media_type       text NOT NULL,
    filename         text NOT NULL DEFAULT '',
    size_bytes       integer NOT NULL CHECK (size_bytes >= 0),
    received_via     text NOT NULL CHECK (received_via IN ('upload', 'api', 'cli', 'typewriter', 'demo')),
    received_by      text NOT NULL,
    pipeline_run_id  uuid,
    status           text NOT NULL DEFAULT 'received'
                     CHECK (status IN ('received', 'pending', 'flagged', 'active', 'posted', 'rejected')),
    doc_type         text CHECK (doc_type IN ('invoice', 'credit_note')),
    source_ref       text,
    content_key      text,
    format           text,
    fields           jsonb,
    findings         jsonb NOT NULL DEFAULT '[]',
    flag_reason      text CHECK (flag_reason IN ('duplicate', 'extraction_failed', 'needs_manual_extraction')),
    -- The edge that makes a duplicate group: this row was filed as a
    -- duplicate of that one, and why.
    duplicate_of     bigint REFERENCES intake_documents (id),
    duplicate_reason text CHECK (duplicate_reason IN ('same_reference', 'same_content', 'newer_version', 'manual')),
    -- An admin said this row is not a duplicate of that one (the edge was
    -- removed). Such a row does not hold the natural key either.
    distinct_from    bigint REFERENCES intake_documents (id),
    result_entry_id  bigint REFERENCES journal_entries (id),
    received_at      timestamptz NOT NULL DEFAULT now(),
    queued_at        timestamptz,
    decided_by       text,
    decided_at       timestamptz,
    decision_reason  text,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- Led by the hash, so that it never competes with the natural key for
    -- an org's lookups (see journal_entries_source_key).
    CONSTRAINT intake_documents_content_key UNIQUE (content_hash, org_id),
    CHECK (duplicate_of IS NULL OR duplicate_of <> id),
    CHECK ((duplicate_of IS NULL) = (duplicate_reason IS NULL)),
    CHECK ((flag_reason IS NOT NULL) = (status = 'flagged') OR status IN ('active', 'posted', 'rejected')),
    CHECK ((status = 'received') = (queued_at IS NULL))
);
-- The natural key. A repeat is never merged: it is filed flagged, as a
-- duplicate of the row holding the key. A rejected row gives the key up.
CREATE UNIQUE INDEX intake_natural_key ON intake_documents (org_id, doc_type, source_ref)
    WHERE duplicate_of IS NULL AND distinct_from IS NULL AND status <> 'rejected' AND source_ref IS NOT NULL;
-- The same facts under another number (a re-sent invoice renumbered).
CREATE INDEX intake_content_key_idx ON intake_documents (content_key, org_id)
    WHERE duplicate_of IS NULL AND distinct_from IS NULL AND status <> 'rejected' AND content_key IS NOT NULL;
CREATE INDEX intake_duplicate_of_idx ON intake_documents (duplicate_of) WHERE duplicate_of IS NOT NULL;
CREATE INDEX intake_status_idx ON intake_documents (status, org_id, id);

-- The bytes as they arrived, apart from the row so the queue stays narrow.
CREATE TABLE intake_originals (
    document_id bigint PRIMARY KEY REFERENCES intake_documents (id),
    content     bytea NOT NULL
);

-- +goose Down
DROP TABLE intake_originals;
DROP TABLE intake_documents;
