package review_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/jobs"
	"greatbook/internal/review"
	"greatbook/internal/runs"
)

// TestStatementsAreWhatApproveSends proves that the benchmark measures the
// product: review.Statements and jobs.Statements (which make bench runs
// through pgbench) are, statement for statement, what an approve and its
// launch, and a sweep's launch, send to the server.
func TestStatementsAreWhatApproveSends(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	pool, log := w.DB.TracedPool(t)
	outbox := &jobs.Outbox{Pool: pool, Starter: w.App.Outbox.Starter, Logger: w.App.Outbox.Logger}
	s, j := review.Statements, jobs.Statements
	ctx := context.Background()

	t.Run("approve and launch", func(t *testing.T) {
		id := w.Doc(t, 0)
		d := review.NewDecisions(pool, outbox, nil)
		log.Take()
		a, err := d.Approve(ctx, w.Org.ID, id, w.Actor)
		if err != nil {
			t.Fatal(err)
		}
		if a.Launch.Outcome != "launched" {
			t.Fatalf("launch: %+v", a.Launch)
		}
		want := []string{"BEGIN", s.LockGroup, s.Recheck, s.RecordApproval, s.Activate, audit.InsertSQL, j.InsertJob, "COMMIT",
			"BEGIN", j.LockJob, runs.InsertSQL, j.MarkLaunched, j.InsertAttempt, audit.InsertSQL, "COMMIT"}
		if got := log.Take(); !slices.Equal(got, want) {
			t.Errorf("approve sent\n%s\nthe benchmark runs\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
		}
	})

	t.Run("sweep launch", func(t *testing.T) {
		id := w.Doc(t, 0)
		if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET status = 'active' WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
		if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO jobs (org_id, intake_id, created_by, max_attempts) VALUES ($1, $2, 'test', 5)`,
			w.Org.ID, id); err != nil {
			t.Fatal(err)
		}
		log.Take()
		res, err := outbox.Sweep(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Launched) != 1 {
			t.Fatalf("sweep: %+v", res)
		}
		got := log.Take()
		// The sweep's pass around the launch (its search for due jobs, which
		// pgbench replaces by its target table, and its record of the pass)
		// is not the launch.
		if len(got) >= 2 {
			got = got[1 : len(got)-1]
		}
		want := []string{"BEGIN", j.LockJobSkipLocked, runs.InsertSQL, j.MarkLaunched, j.InsertAttempt, audit.InsertSQL, "COMMIT"}
		if !slices.Equal(got, want) {
			t.Errorf("the sweep's launch sent\n%s\nthe benchmark runs\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
		}
	})
}
