-- +goose Up
-- Every page reads a bounded range through an index. When a table is large
-- the planner may still hand such a range to parallel workers (a Gather
-- Merge over the dead letters at a million documents), and starting them
-- costs more than the few hundred rows they read: tens of milliseconds on a
-- busy host. Set for the database, as jit is (migration 00008); a role that
-- may not alter the database keeps its default, with a notice.
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('ALTER DATABASE %I SET max_parallel_workers_per_gather = 0', current_database());
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'greatbook: cannot turn parallel query off for database %: set max_parallel_workers_per_gather = 0 for it to keep pages fast', current_database();
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('ALTER DATABASE %I RESET max_parallel_workers_per_gather', current_database());
EXCEPTION WHEN insufficient_privilege THEN
    NULL;
END
$$;
-- +goose StatementEnd
