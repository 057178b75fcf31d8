-- +goose Up
-- Every write of an intake row adds an entry to each of its indexes whose
-- predicate the row meets (a status change is never a HOT update: status is
-- in the desk's keys and the natural key's predicate), so the table keeps
-- only the indexes its queries read.

-- The supplier's posted invoices (the AP bank-account check) are among its
-- approved documents: one index serves both, the check skipping the few
-- approved documents not posted yet and the credit notes.
DROP INDEX intake_posted_supplier_idx;

-- The desk's All tab merges one ordered scan of intake_desk_idx per status,
-- as the other tabs do, and so does the API's listing of every status.
DROP INDEX intake_desk_all_idx;

-- The desk's sorted orders read filed documents: a row at received (the
-- pipeline is reading it; it has no fields yet) is in none of their
-- indexes, so ingest writes four index entries fewer. The All tab's few
-- received rows are read through intake_desk_idx and sorted.
DROP INDEX intake_desk_issued_idx;
DROP INDEX intake_desk_due_idx;
DROP INDEX intake_desk_base_amount_idx;
DROP INDEX intake_desk_base_amount_desc_idx;
CREATE INDEX intake_desk_issued_idx ON intake_documents (org_id, status, (fields->>'issue_date'), id) WHERE status <> 'received';
CREATE INDEX intake_desk_due_idx ON intake_documents (org_id, status, (fields->>'due_date'), id) WHERE status <> 'received';
CREATE INDEX intake_desk_base_amount_idx ON intake_documents (org_id, status, payable_base, id) WHERE status <> 'received';
CREATE INDEX intake_desk_base_amount_desc_idx ON intake_documents (org_id, status, payable_base DESC NULLS LAST, id DESC)
    WHERE status <> 'received';

-- Room on each page for a row's next version: an update that changes no
-- indexed column (a HOT update) needs it on the same page, and any other
-- update that finds it there dirties one heap page instead of two. Pages
-- written before this keep their fill until rewritten (VACUUM FULL,
-- CLUSTER or pg_repack); new pages get it.
ALTER TABLE intake_documents SET (fillfactor = 90);

-- +goose Down
ALTER TABLE intake_documents RESET (fillfactor);
DROP INDEX intake_desk_base_amount_desc_idx;
DROP INDEX intake_desk_base_amount_idx;
DROP INDEX intake_desk_due_idx;
DROP INDEX intake_desk_issued_idx;
CREATE INDEX intake_desk_issued_idx ON intake_documents (org_id, status, (fields->>'issue_date'), id);
CREATE INDEX intake_desk_due_idx ON intake_documents (org_id, status, (fields->>'due_date'), id);
CREATE INDEX intake_desk_base_amount_idx ON intake_documents (org_id, status, payable_base, id);
CREATE INDEX intake_desk_base_amount_desc_idx ON intake_documents (org_id, status, payable_base DESC NULLS LAST, id DESC);
CREATE INDEX intake_desk_all_idx ON intake_documents (org_id, id);
CREATE INDEX intake_posted_supplier_idx ON intake_documents (org_id, (split_part(source_ref, '/', 1)), id DESC)
    WHERE status = 'posted' AND doc_type = 'invoice';
