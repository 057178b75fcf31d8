package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"greatbook/internal/app"
	"greatbook/internal/jobs"
	"greatbook/internal/org"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// A bulk retry above SyncBulkRetryMax is a durable run: stopped in the
// middle of a batch (its engine gone, as in a restart) and resumed by a new
// engine, it retries exactly the letters that matched when it started, each
// once, even those whose retry failed again and so are dead letters still.
func TestDurableBulkRetryResumesAfterARestartAndRetriesEachLetterOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The world's app has no workers: its resume loop would otherwise take
	// the run over whenever no engine of the test holds its lease.
	w := newWorld(t, app.Config{Workers: -1})
	const matching, batch = 35, 10
	deadLetter := func(orgID int64, supplier, number string) (job int64) {
		t.Helper()
		id := w.Doc(t, 0)
		w.Named(t, id, supplier, number, "")
		if err := w.DB.Pool.QueryRow(ctx, `UPDATE intake_documents SET org_id = $2 WHERE id = $1 RETURNING id`, id, orgID).Scan(&id); err != nil {
			t.Fatal(err)
		}
		if err := w.DB.Pool.QueryRow(ctx, `INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts, last_error,
			error_class, created_by) VALUES ($1, $2, 'abandoned', 5, 5, 'posting service unavailable', 'transient', 'test')
			RETURNING id`, orgID, id).Scan(&job); err != nil {
			t.Fatal(err)
		}
		return job
	}
	var want []int64
	for i := range matching {
		want = append(want, deadLetter(w.Org.ID, "Acme Oy", fmt.Sprintf("N-%d", i)))
	}
	other := deadLetter(w.Org.ID, "Globex", "G-1") // another supplier: not matched
	acme := jobs.DeadLetterFilter{Supplier: "acme"}

	// Every retry's launch fails again (the posting service is still
	// down), so each retried letter is a dead letter once more: only the
	// run's own guards keep it from retrying one twice. The 15th launch
	// stops the first engine: the second batch is half done, unrecorded.
	engineCtx, stopEngine := context.WithCancel(ctx)
	var launches atomic.Int64
	w.Failpoints.Set(jobs.FailpointLaunch, func(context.Context) error {
		if launches.Add(1) == 15 {
			stopEngine()
		}
		return errors.New("posting service unavailable")
	})
	first := runs.NewEngine(w.DB.Pool, runs.Options{Logger: testkit.Logger(t), LeaseTTL: time.Minute})
	bulk := jobs.NewBulkRetries(w.DB.Pool, first, w.App.Outbox)
	bulk.Batch = batch
	first.Start(engineCtx, 1)

	dry, err := jobs.DryRunRetryIn(ctx, w.DB.Pool, org.Only(w.Org.ID), acme)
	if err != nil || dry.Count != matching {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	ids, err := bulk.Start(ctx, org.Only(w.Org.ID), acme, "posting service back", dry, w.Actor)
	if err != nil || len(ids) != 1 {
		t.Fatalf("start: %v %v", ids, err)
	}
	runID := ids[0]
	first.Wait() // the first engine stopped in the middle of the run
	info, err := runs.Get(ctx, w.DB.Pool, w.Org.ID, runID)
	if err != nil || info.Status != runs.Running {
		t.Fatalf("after the stop the run must still be running: %+v %v", info.Status, err)
	}
	progress, err := jobs.BulkRetryRuns(ctx, w.DB.Pool, org.Only(w.Org.ID))
	if err != nil || len(progress) != 1 || progress[0].Done != batch || progress[0].Total != matching {
		t.Fatalf("progress after the stop: %+v %v; want %d of %d (one batch checkpointed)", progress, err, batch, matching)
	}
	// The old process is gone: its lease lapses, and a new engine resumes.
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, runID); err != nil {
		t.Fatal(err)
	}
	second := runs.NewEngine(w.DB.Pool, runs.Options{Logger: testkit.Logger(t), LeaseTTL: time.Minute})
	resumed := jobs.NewBulkRetries(w.DB.Pool, second, w.App.Outbox)
	resumed.Batch = batch
	secondCtx, stopSecond := context.WithCancel(ctx)
	t.Cleanup(func() { stopSecond(); second.Wait() })
	second.Start(secondCtx, 1)
	if n, err := second.ResumeAll(ctx); err != nil || n != 1 {
		t.Fatalf("resume: %d %v", n, err)
	}
	testkit.Eventually(t, 30*time.Second, "the resumed bulk retry finishes", func() (bool, error) {
		info, err := runs.Get(ctx, w.DB.Pool, w.Org.ID, runID)
		return info.Status == runs.Done, err
	})

	for _, id := range want {
		if n := testkit.Count(t, w.DB, `SELECT count(*) FROM job_attempts WHERE job_id = $1 AND trigger LIKE '%' || $2 || '%'`, id, runID); n != 1 {
			t.Errorf("job %d retried %d times by the bulk run, want once", id, n)
		}
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM job_attempts WHERE job_id = $1`, other); n != 0 {
		t.Errorf("a letter the filter does not match was retried %d times", n)
	}
	if got := launches.Load(); got != matching {
		t.Errorf("%d launches, want %d (each matching letter once)", got, matching)
	}
	progress, err = jobs.BulkRetryRuns(ctx, w.DB.Pool, org.Only(w.Org.ID))
	if err != nil || len(progress) != 1 || progress[0].Done != matching || progress[0].Failed+progress[0].Launched+progress[0].Skipped < matching-5 {
		t.Fatalf("final progress: %+v %v", progress, err)
	}
}
