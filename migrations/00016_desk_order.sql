-- +goose Up
-- The desk sorts a tab by issue date, due date or amount: one index per
-- order, read per status and merged like the default order's
-- (org_id, status, id), with the id as the tie-breaker.
CREATE INDEX intake_desk_issued_idx ON intake_documents (org_id, status, (fields->>'issue_date'), id);
CREATE INDEX intake_desk_due_idx ON intake_documents (org_id, status, (fields->>'due_date'), id);
CREATE INDEX intake_desk_amount_idx ON intake_documents (org_id, status, payable, id);

-- +goose Down
DROP INDEX intake_desk_amount_idx;
DROP INDEX intake_desk_due_idx;
DROP INDEX intake_desk_issued_idx;
