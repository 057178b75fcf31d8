package intake_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"greatbook/internal/intake"
	"greatbook/internal/testkit"
)

// A run that fails the same node twice is visible as stranded work, with its
// last error, even while a worker holds it (it may retry for minutes).
func TestARunThatFailsTheSameNodeTwiceIsStranded(t *testing.T) {
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
	stranded := func() []intake.Stranded {
		t.Helper()
		s, _, err := intake.StrandedWork(ctx, db.Pool, o.ID, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	checkpoint(1, "ok", "classified")
	checkpoint(2, "retry", "attempt 1 failed")
	if s := stranded(); len(s) != 0 {
		t.Fatalf("one failure is not stranded yet: %+v", s)
	}
	checkpoint(3, "retry", "attempt 2 failed")
	s := stranded()
	if len(s) != 1 || s[0].RunID != id || !strings.Contains(s[0].Error, "22003") || !strings.Contains(s[0].Why, "more than once") {
		t.Fatalf("stranded: %+v", s)
	}
	checkpoint(4, "ok", "extracted")
	if s := stranded(); len(s) != 0 {
		t.Fatalf("a run that moved on is not stranded: %+v", s)
	}
}
