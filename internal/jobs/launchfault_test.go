package jobs_test

import (
	"context"
	"testing"
	"time"

	"greatbook/internal/app"
	"greatbook/internal/jobs"
)

// A test may set a launch failpoint of an app whose sweep is running: every
// launch asks the app's failpoints, so setting one must be safe at any
// moment (under -race, an unsynchronized hook was a data race).
func TestInjectingALaunchFaultIntoARunningAppIsSafe(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	ctx := context.Background()
	id := w.Doc(t, 0)
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET status = 'active' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO jobs (org_id, intake_id, created_by, max_attempts) VALUES ($1, $2, 'test', 5)`,
		w.Org.ID, id); err != nil {
		t.Fatal(err)
	}
	swept := make(chan error, 1)
	go func() {
		_, err := w.App.Outbox.Sweep(ctx, 10)
		swept <- err
	}()
	w.Failpoints.Set(jobs.FailpointLaunch, func(context.Context) error { return nil })
	select {
	case err := <-swept:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the sweep did not finish")
	}
	w.WaitPosted(t, id)
}
