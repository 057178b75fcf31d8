-- +goose Up
-- A document's coding is suggested from how its supplier's last approved
-- (active or posted) documents were coded: this index finds them newest
-- first without walking the supplier's documents still in review.
CREATE INDEX intake_approved_supplier_idx ON intake_documents (org_id, (split_part(source_ref, '/', 1)), id DESC)
    WHERE status IN ('active', 'posted') AND source_ref IS NOT NULL;

-- +goose Down
DROP INDEX intake_approved_supplier_idx;
