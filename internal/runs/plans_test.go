package runs_test

import (
	"context"
	"testing"

	"greatbook/internal/org"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// The runs page reads what it shows, however long the history: on an org
// with 100,000 runs (nearly all done, a few failed, running, paused and
// bulk retries), its list, each filter of it and its counts plan on the
// indexes by org and state (or kind and state), and none reads runs in full,
// which the planner would rather do without them.
func TestTheRunsPagePlansOnIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	other := testkit.Org(t, db)
	_, err := db.Pool.Exec(ctx, `INSERT INTO runs (id, org_id, kind, subject_id, state, next_node, data, question,
			lease_owner, lease_expires_at, created_at, updated_at, finished_at)
		SELECT gen_random_uuid(), CASE WHEN i % 10 = 0 THEN $2::bigint ELSE $1::bigint END,
		       CASE WHEN i % 5000 = 0 THEN 'bulk_retry' WHEN i % 2 = 0 THEN 'pipeline' ELSE 'bookkeeper' END, i, s.state,
		       CASE WHEN s.state IN ('running', 'paused') THEN 'extract' END, '{}',
		       CASE WHEN s.state = 'paused' THEN '{"kind": "expense_account"}'::jsonb END,
		       CASE WHEN s.state = 'running' THEN 'worker' END, CASE WHEN s.state = 'running' THEN now() + interval '1 minute' END,
		       t, t, CASE WHEN s.state IN ('done', 'failed') THEN t END
		FROM generate_series(1, 100000) i
		CROSS JOIN LATERAL (SELECT now() - (100000 - i) * interval '1 minute' AS t) tm
		CROSS JOIN LATERAL (SELECT CASE WHEN i % 1000 = 1 THEN 'running' WHEN i % 1000 = 2 THEN 'paused'
		                                WHEN i % 50 = 3 THEN 'failed' ELSE 'done' END AS state) s`, o.ID, other.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `VACUUM ANALYZE runs`); err != nil {
		t.Fatal(err)
	}
	conn := db.Conn(t)
	scope := org.Only(o.ID)
	list := func(f runs.ListFilter) func() (string, []any) {
		return func() (string, []any) { return runs.ListQuery(scope, f) }
	}
	for _, c := range []struct {
		what  string
		query func() (string, []any)
		index string
	}{
		{"the list", list(runs.ListFilter{Limit: 100}), "runs_org_state_updated_idx"},
		{"the failed runs", list(runs.ListFilter{State: "failed", Limit: 100}), "runs_org_state_updated_idx"},
		{"the bulk retries", list(runs.ListFilter{Kind: "bulk_retry", Limit: 10}), "runs_org_kind_state_updated_idx"},
		{"the done bookkeeper runs", list(runs.ListFilter{Kind: "bookkeeper", State: "done", Limit: 100}), "runs_org_kind_state_updated_idx"},
		{"the counts", func() (string, []any) { return runs.CountsQuery(scope) }, "runs_org_state_updated_idx"},
	} {
		sql, args := c.query()
		testkit.GenericPlan(t, conn, sql, args...).RequireIndexes(t, c.what, []string{"runs"}, c.index)
	}

	// The capped counts stop at the cap, and say so.
	got, err := runs.Counts(ctx, db.Pool, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Done != runs.CountCap || !got.DoneMore || got.Failed != runs.CountCap || !got.FailedMore || got.Running != 100 || got.Paused != 100 {
		t.Fatalf("counts %+v", got)
	}
}
