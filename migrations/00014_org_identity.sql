-- +goose Up
-- The org's own identity as a buyer, for the AP check that an invoice is
-- addressed to this org (empty: not set, and the check says nothing), and
-- the age past which an issue date is "far in the past".
ALTER TABLE orgs
    ADD COLUMN legal_name text NOT NULL DEFAULT '' CHECK (length(legal_name) <= 200),
    ADD COLUMN vat_id text NOT NULL DEFAULT '' CHECK (length(vat_id) <= 40),
    ADD COLUMN max_issue_age_months integer NOT NULL DEFAULT 18 CHECK (max_issue_age_months BETWEEN 1 AND 120);
-- The AP bank-account check reads a supplier's latest posted invoices on
-- every page view: by the seller identity (source_ref up to its first '/',
-- which the identity escapes), newest first, without scanning the org.
CREATE INDEX intake_posted_supplier_idx ON intake_documents (org_id, (split_part(source_ref, '/', 1)), id DESC)
    WHERE status = 'posted' AND doc_type = 'invoice';

-- +goose Down
DROP INDEX intake_posted_supplier_idx;
ALTER TABLE orgs DROP COLUMN max_issue_age_months, DROP COLUMN vat_id, DROP COLUMN legal_name;
