-- +goose Up
-- The runs page lists an org's runs by their last change.
CREATE INDEX runs_org_updated_idx ON runs (org_id, updated_at DESC, id);

-- greatbook runs short statements. The planner's estimate for the desk's
-- recursive group summary is high enough to trigger JIT compilation, which
-- costs tens of milliseconds and saves nothing. Set for the database (not
-- per connection, which pgbouncer would refuse as a startup parameter);
-- a role that may not alter the database keeps its default, with a notice.
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'greatbook: cannot turn JIT off for database %: set jit = off for it to keep desk pages fast', current_database();
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
BEGIN
    EXECUTE format('ALTER DATABASE %I RESET jit', current_database());
EXCEPTION WHEN insufficient_privilege THEN
    NULL;
END
$$;
-- +goose StatementEnd
DROP INDEX runs_org_updated_idx;
