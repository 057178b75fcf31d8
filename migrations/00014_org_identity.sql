-- +goose Up
-- The org's own identity as a buyer, for the AP check that an invoice is
-- addressed to this org (empty: not set, and the check says nothing), and
-- the age past which an issue date is "far in the past".
ALTER TABLE orgs
    ADD COLUMN legal_name text NOT NULL DEFAULT '' CHECK (length(legal_name) <= 200),
    ADD COLUMN vat_id text NOT NULL DEFAULT '' CHECK (length(vat_id) <= 40),
    ADD COLUMN max_issue_age_months integer NOT NULL DEFAULT 18 CHECK (max_issue_age_months BETWEEN 1 AND 120);

-- +goose Down
ALTER TABLE orgs DROP COLUMN max_issue_age_months, DROP COLUMN vat_id, DROP COLUMN legal_name;
