-- +goose Up
-- The API's listing filters by supplier (the seller part of source_ref, as
-- the bookkeeper keys suppliers) newest first: one ordered index scan for
-- any status, where intake_posted_supplier_idx serves posted invoices only.
CREATE INDEX intake_supplier_listing_idx ON intake_documents (org_id, (split_part(source_ref, '/', 1)), id DESC)
    WHERE source_ref IS NOT NULL;

-- +goose Down
DROP INDEX intake_supplier_listing_idx;
