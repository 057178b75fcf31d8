-- +goose Up
-- The event feed reads the audit trail in commit order. Identity ids are
-- drawn when a row is inserted, not when its transaction commits, so a
-- reader following ids could pass a row whose transaction is still open and
-- never see it. Each row therefore keeps the id of the transaction that
-- wrote it; a reader returns only rows of transactions older than every
-- transaction still running (pg_snapshot_xmin of its snapshot), ordered by
-- (xact, id), so no row can later appear before its cursor.
-- Existing rows take the migration's transaction id (one value, evaluated
-- once: ALTER TABLE does not fire the append-only trigger); within it they
-- keep the order of their ids.
ALTER TABLE audit_events ADD COLUMN xact xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX audit_events_feed_idx ON audit_events (org_id, xact, id);

-- +goose Down
DROP INDEX audit_events_feed_idx;
ALTER TABLE audit_events DROP COLUMN xact;
