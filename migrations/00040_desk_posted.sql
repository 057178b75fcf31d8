-- +goose Up
-- The desk's Posted tab leaves out documents whose entry was reversed, a
-- check on the row's result_entry_id. With the entry id in intake_desk_idx
-- the tab finds its page's ids by an index-only scan, as the other tabs
-- do, instead of walking the primary key backwards past every newer row of
-- another status (hundreds of thousands of duplicates at a million
-- documents). The entry id is set with the posted status, in an update
-- that changes the status anyway, so it costs no HOT update.
DROP INDEX intake_desk_idx;
CREATE INDEX intake_desk_idx ON intake_documents (org_id, status, id) INCLUDE (result_entry_id);

-- +goose Down
DROP INDEX intake_desk_idx;
CREATE INDEX intake_desk_idx ON intake_documents (org_id, status, id);
