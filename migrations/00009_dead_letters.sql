-- +goose Up
-- The dead-letter page lists an org's abandoned jobs and failed launches,
-- the most recently failed first, 500 at a time: this index hands them over
-- in that order, so the page reads what it shows and sorts nothing (without
-- it, a ledger with many finished jobs made the planner scan them all).
CREATE INDEX jobs_dead_letters_idx ON jobs (org_id, updated_at DESC, id DESC) WHERE status IN ('abandoned', 'failed');

-- +goose Down
DROP INDEX jobs_dead_letters_idx;
