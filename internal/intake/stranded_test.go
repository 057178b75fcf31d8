package intake_test

import (
	"context"
	"testing"
	"time"

	"greatbook/internal/intake"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// A run that fails the same node twice while a live worker holds it is
// waiting out its backoff: not stranded (its retries are bounded, so that would be a false alarm),
// counted as in backoff on the runs page, and counted as running again
// once it moves on.
func TestARunWaitingItsBackoffIsNotStranded(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	ctx := context.Background()
	const id = "6f1d2c3b-0000-4000-8000-000000000001"
	if _, err := db.Pool.Exec(ctx, `INSERT INTO runs (id, org_id, kind, subject_id, next_node, data, last_error, lease_owner, lease_expires_at)
		VALUES ($1, $2, 'pipeline', 1, 'extract', '{}', 'ERROR: numeric field overflow (SQLSTATE 22003)', 'live', now() + interval '1 minute')`, id, o.ID); err != nil {
		t.Fatal(err)
	}
	checkpoint := func(seq int, outcome, note string) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, `INSERT INTO run_checkpoints (run_id, seq, node, outcome, data, note, worker)
			VALUES ($1, $2, 'extract', $3, '{}', $4, 'w')`, id, seq, outcome, note); err != nil {
			t.Fatal(err)
		}
	}
	check := func(wantRunning, wantBackoff int) {
		t.Helper()
		s, _, err := intake.StrandedWork(ctx, db.Pool, o.ID, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != 0 {
			t.Errorf("a run its worker holds is not stranded: %+v", s)
		}
		c, err := runs.Counts(ctx, db.Pool, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Running != wantRunning || c.InBackoff != wantBackoff || c.Total() != 1 {
			t.Errorf("counts %+v, want running %d, in backoff %d", c, wantRunning, wantBackoff)
		}
	}
	checkpoint(1, "ok", "classified")
	check(1, 0)
	checkpoint(2, "retry", "attempt 1 failed")
	check(0, 1)
	checkpoint(3, "retry", "attempt 2 failed")
	check(0, 1)
	checkpoint(4, "ok", "extracted")
	check(1, 0)
}
