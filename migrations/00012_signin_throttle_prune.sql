-- +goose Up
-- The periodic prune (auth.Service.PruneThrottle) deletes the rows last
-- counted more than a day ago: an index on updated_at lets it read only
-- those, not every address guessed at during the day.
CREATE INDEX signin_throttle_updated_at_idx ON signin_throttle (updated_at);

-- +goose Down
DROP INDEX signin_throttle_updated_at_idx;
