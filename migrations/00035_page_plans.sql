-- +goose Up
-- The runs page reads each state's newest runs in the order of these
-- indexes, merged (the list), and counts the finished ones up to a cap from
-- them; a filter on a kind (the bulk retries the dead-letter page shows) reads
-- the second. Each page reads what it shows, however long the history. They
-- replace the index on (org_id, updated_at), whose scan had to pass over every
-- run of another state or kind to fill a filtered page.
CREATE INDEX runs_org_state_updated_idx ON runs (org_id, state, updated_at DESC, id);
CREATE INDEX runs_org_kind_state_updated_idx ON runs (org_id, kind, state, updated_at DESC, id);
DROP INDEX runs_org_updated_idx;

-- +goose Down
CREATE INDEX runs_org_updated_idx ON runs (org_id, updated_at DESC, id);
DROP INDEX runs_org_kind_state_updated_idx;
DROP INDEX runs_org_state_updated_idx;
