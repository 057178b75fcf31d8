package jobs_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/retry"
	"greatbook/internal/review"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

func TestAFaultBeforeTheCommitLeavesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	id := w.Doc(t, 0)
	w.Failpoints.Set(review.FailpointBeforeCommit, func(context.Context) error { return errors.New("injected fault") })
	if _, err := w.App.Decisions.Approve(context.Background(), w.Org.ID, id, w.Actor); err == nil {
		t.Fatal("the fault did not fail the approve")
	}
	doc, _ := intake.NewPGStore(w.DB.Pool).Get(context.Background(), w.Org.ID, id)
	if doc.Status != intake.Pending || doc.DecidedBy != "" {
		t.Fatalf("status changed: %+v", doc)
	}
	for _, q := range []string{`SELECT count(*) FROM jobs`, `SELECT count(*) FROM audit_events WHERE action = 'approve'`, `SELECT count(*) FROM runs WHERE kind = 'bookkeeper'`} {
		if n := testkit.Count(t, w.DB, q); n != 0 {
			t.Fatalf("%s = %d after a fault before the commit", q, n)
		}
	}
}

// afterCommitStarter checks, when asked to create a run, that the approval
// it launches for is committed: another connection sees it.
type afterCommitStarter struct {
	jobs.RunStarter
	db   *testkit.DB
	t    *testing.T
	seen chan intake.Status
}

func (s *afterCommitStarter) CreateRun(ctx context.Context, tx pgx.Tx, job jobs.Job) (string, error) {
	conn := s.db.Conn(s.t)
	var status string
	var jobs int
	if err := conn.QueryRow(ctx, `SELECT status, (SELECT count(*) FROM jobs WHERE intake_id = $1) FROM intake_documents WHERE id = $1`, job.IntakeID).Scan(&status, &jobs); err != nil {
		return "", err
	}
	if jobs != 1 {
		status = "no committed job"
	}
	s.seen <- intake.Status(status)
	return s.RunStarter.CreateRun(ctx, tx, job)
}

func TestTheLaunchHappensAfterTheCommit(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	starter := &afterCommitStarter{RunStarter: w.App.Bookkeeper, db: w.DB, t: t, seen: make(chan intake.Status, 1)}
	w.App.Outbox.Starter = starter
	id := w.Doc(t, 0)
	a, err := w.App.Decisions.Approve(context.Background(), w.Org.ID, id, w.Actor)
	if err != nil {
		t.Fatal(err)
	}
	if seen := <-starter.seen; seen != intake.Active {
		t.Fatalf("at launch, another connection saw the document %s: the launch ran before the commit", seen)
	}
	if a.Launch.Outcome != "launched" || a.Launch.RunID == "" || a.Launch.JobID == 0 {
		t.Fatalf("launch: %+v", a.Launch)
	}
	// The run read the row on its own connection and posted it.
	doc := w.WaitPosted(t, id)
	if doc.ResultEntryID == 0 || w.Entries(t, id) != 1 {
		t.Fatalf("posted: %+v", doc)
	}
	job, _, _ := jobs.ForDocument(context.Background(), w.DB.Pool, w.Org.ID, id)
	if job.Status != jobs.Done {
		t.Fatalf("job: %+v", job)
	}
}

func TestALaunchFailureIsRecordedAndRecovered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{RetryBackoff: time.Millisecond})
	fix := w.FailLaunches("worker pool unreachable")
	id := w.Doc(t, 0)
	a, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, w.Actor)
	if err != nil {
		t.Fatalf("a launch failure must not fail the approve: %v", err)
	}
	if a.Status != intake.Active || a.Launch.Outcome != "failed" || a.Launch.Error == "" || a.Launch.Class != "transient" {
		t.Fatalf("approval: %+v", a)
	}
	job, _, _ := jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, id)
	if job.Status != jobs.Failed || job.Attempts != 1 || job.LastError == "" || job.ErrorClass != "transient" {
		t.Fatalf("job row: %+v", job)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE action = 'launch_failed' AND subject_id = $1
		AND detail->>'error' LIKE '%worker pool unreachable%'`, id); n != 1 {
		t.Fatal("the failure is not in the audit trail")
	}
	// Recovery: the sweep launches it once its backoff has passed.
	fix()
	sweepUntil(t, w, id, func(j jobs.Job) bool { return j.Status != jobs.Failed })
	w.WaitPosted(t, id)
}

// A launch that failed with a Retry-After is due again when the Retry-After
// says, not after the job's own backoff; a Retry-After beyond ten minutes
// is capped there, and the sweep leaves the job alone until then.
func TestALaunchFailureWaitsOutItsRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		retryAfter, want time.Duration
	}{
		{"five minutes", 5 * time.Minute, 5 * time.Minute},
		{"an hour, capped", time.Hour, 10 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := newWorld(t, app.Config{RetryBackoff: time.Millisecond})
			w.Failpoints.Set(jobs.FailpointLaunch, func(context.Context) error {
				return retry.MarkTransient(errors.New("rate limited"), tc.retryAfter)
			})
			id := w.Doc(t, 0)
			if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, w.Actor); err != nil {
				t.Fatal(err)
			}
			job, _, _ := jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, id)
			if job.Status != jobs.Failed {
				t.Fatalf("job row: %+v", job)
			}
			if wait := job.NextAttemptAt.Sub(job.UpdatedAt); wait < tc.want-time.Second || wait > tc.want+time.Second {
				t.Fatalf("due again %s after the failure, want %s", wait, tc.want)
			}
			if res, err := w.App.Outbox.Sweep(ctx, 100); err != nil || len(res.Launched)+len(res.Failed) != 0 {
				t.Fatalf("the sweep launched a job before its Retry-After: %+v %v", res, err)
			}
		})
	}
}

// approvedJobThatFailed approves a new document while its launch fails with
// cause, then lets launches succeed again: its job is left failed.
func approvedJobThatFailed(t *testing.T, w *world, cause string) (id int64, job jobs.Job) {
	t.Helper()
	ctx := context.Background()
	fix := w.FailLaunches(cause)
	id = w.Doc(t, 0)
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, w.Actor); err != nil {
		t.Fatal(err)
	}
	fix()
	job, _, err := jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, id)
	if err != nil || job.Status != jobs.Failed {
		t.Fatalf("the job of an approve whose launch failed: %+v %v", job, err)
	}
	return id, job
}

// sweepUntil sweeps until the job of document id is as done wants it.
func sweepUntil(t *testing.T, w *world, id int64, done func(jobs.Job) bool) {
	t.Helper()
	ctx := context.Background()
	testkit.Eventually(t, 20*time.Second, "the sweep never got there", func() (bool, error) {
		job, _, err := jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, id)
		if err != nil || done(job) {
			return err == nil, err
		}
		_, err = w.App.Outbox.Sweep(ctx, 100)
		return false, err
	})
}

func TestAbandonedJobsAreLeftAloneUntilAnOperatorRetries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{RetryBackoff: time.Millisecond, MaxAttempts: 3})
	fix := w.FailLaunches("launch refused")
	id := w.Doc(t, 0)
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, w.Actor); err != nil {
		t.Fatal(err)
	}
	sweepUntil(t, w, id, func(j jobs.Job) bool { return j.Status == jobs.Abandoned })
	job, _, _ := jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, id)
	if job.Attempts != 3 {
		t.Fatalf("abandoned after %d attempts, want 3", job.Attempts)
	}
	fix() // the cause is fixed; only an operator may revive the job
	for range 10 {
		res, err := w.App.Outbox.Sweep(ctx, 100)
		if err != nil || len(res.Launched)+len(res.Failed) != 0 {
			t.Fatalf("a sweep touched the dead letter: %+v %v", res, err)
		}
	}
	if j, _, _ := jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, id); j.Status != jobs.Abandoned || j.Attempts != 3 {
		t.Fatalf("after ten sweeps: %+v", j)
	}

	// Eight operators press retry at the same moment: one launch.
	admin := w.Actor
	admin.Label = "admin@example.test"
	var wg sync.WaitGroup
	outcomes := make([]jobs.LaunchOutcome, 8)
	errs := make([]error, 8)
	start := make(chan struct{})
	for i := range outcomes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			outcomes[i], errs[i] = w.App.Outbox.Retry(ctx, w.Org.ID, job.ID, "supplier account fixed", admin)
		}()
	}
	close(start)
	wg.Wait()
	launched := 0
	for i := range outcomes {
		switch {
		case errs[i] == nil && outcomes[i].Outcome == "launched":
			launched++
		case apperr.Is(errs[i], apperr.InvalidState):
		default:
			t.Fatalf("retry %d: %+v %v", i, outcomes[i], errs[i])
		}
	}
	if launched != 1 {
		t.Fatalf("%d retries launched the job, want 1", launched)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM runs WHERE kind = 'bookkeeper' AND subject_id = $1`, id); n != 1 {
		t.Fatalf("%d runs for one revived job", n)
	}
	w.WaitPosted(t, id)
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE action = 'job_launched' AND subject_id = $1
		AND detail->>'trigger' = 'operator: supplier account fixed'`, id); n != 1 {
		t.Fatal("the operator's retry is not audited with its reason")
	}
	if _, err := w.App.Outbox.Retry(ctx, w.Org.ID, job.ID, "", admin); !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("a retry without a reason: %v", err)
	}
}

// A job is launched by one launcher at a time, under its row lock. The
// first launcher is held inside its launch while a second comes: an
// operator's retry waits for the lock and then finds the job launched; the
// sweep skips the held job rather than wait (FOR UPDATE SKIP LOCKED), so
// that several sweepers never queue behind one launch.
func TestAJobIsLaunchedByOneLauncherAtATime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		second string
		want   string // what the second launcher does while the first holds the job
	}{
		{"an operator's retry", "waits"},
		{"the sweep", "skips"},
	} {
		t.Run(tc.second, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := newWorld(t, app.Config{RetryBackoff: time.Millisecond})
			id, job := approvedJobThatFailed(t, w, "worker pool unreachable")
			// Due now, so that the sweep certainly reaches it.
			if _, err := w.DB.Pool.Exec(ctx, `UPDATE jobs SET next_attempt_at = now() - interval '1 minute' WHERE id = $1`, job.ID); err != nil {
				t.Fatal(err)
			}
			var calls atomic.Int32
			inside, release := make(chan struct{}), make(chan struct{})
			var releaseOnce sync.Once
			free := func() { releaseOnce.Do(func() { close(release) }) }
			defer free() // never leave the first launcher parked, holding the job
			w.Failpoints.Set(jobs.FailpointLaunch, func(context.Context) error {
				if calls.Add(1) == 1 {
					close(inside)
					<-release
				}
				return nil
			})
			admin := w.Actor
			admin.Label = "admin@example.test"
			first := make(chan error, 1)
			go func() {
				_, err := w.App.Outbox.Retry(ctx, w.Org.ID, job.ID, "first", admin)
				first <- err
			}()
			select {
			case <-inside:
			case err := <-first:
				t.Fatalf("the first retry never got inside its launch: %v", err)
			}
			second := make(chan error, 1)
			var swept jobs.SweepResult
			go func() {
				var err error
				if tc.want == "waits" {
					_, err = w.App.Outbox.Retry(ctx, w.Org.ID, job.ID, "second", admin)
				} else {
					swept, err = w.App.Outbox.Sweep(ctx, 100)
				}
				second <- err
			}()
			// The second launcher waits for the job's lock, skips the job
			// (and finishes), or gets inside the launch too.
			got := "hangs"
			var secondErr error
			_ = testkit.Poll(10*time.Second, func() (bool, error) { // on timeout: it hangs
				select {
				case secondErr = <-second:
					got = "skips"
					return true, nil
				default:
				}
				if calls.Load() > 1 {
					got = "launches it too"
					return true, nil
				}
				waiters, err := testkit.LockWaiters(ctx, w.DB.Pool)
				if err != nil {
					t.Fatal(err)
				}
				if waiters > 0 {
					got = "waits"
				}
				return waiters > 0, nil
			})
			free()
			if err := <-first; err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("while another launcher held the job, %s %s; want %s", tc.second, got, tc.want)
			}
			if tc.want == "waits" {
				secondErr = <-second
				if !apperr.Is(secondErr, apperr.InvalidState) {
					t.Fatalf("the waiting retry, after the first launched the job: %v", secondErr)
				}
			} else if secondErr != nil || len(swept.Launched)+len(swept.Failed) != 0 {
				t.Fatalf("the sweep beside a held job: %+v %v", swept, secondErr)
			}
			if n := testkit.Count(t, w.DB, `SELECT count(*) FROM runs WHERE kind = 'bookkeeper' AND subject_id = $1`, id); n != 1 {
				t.Fatalf("%d runs for one job", n)
			}
			w.WaitPosted(t, id)
		})
	}
}

func TestAPermanentRunFailureIsADeadLetter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	// Input VAT is closed: the ledger refuses the entry, which no retry can fix.
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE accounts SET active = false WHERE org_id = $1 AND code = '1400'`, w.Org.ID); err != nil {
		t.Fatal(err)
	}
	id := w.Doc(t, 0)
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, w.Actor); err != nil {
		t.Fatal(err)
	}
	var job jobs.Job
	testkit.Eventually(t, 20*time.Second, "the job never became a dead letter", func() (bool, error) {
		var err error
		job, _, err = jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, id)
		return job.Status == jobs.Abandoned, err
	})
	if job.ErrorClass != "permanent" || job.LastError == "" {
		t.Fatalf("dead letter: %+v", job)
	}
	doc, _ := intake.NewPGStore(w.DB.Pool).Get(ctx, w.Org.ID, id)
	if doc.Status != intake.Active || w.Entries(t, id) != 0 {
		t.Fatalf("the approval stands, nothing posted: %+v", doc)
	}
}

// An operator's retry reaches only the operator's org's jobs: another org's
// job, however retryable, is not found, and nothing about it changes.
func TestARetryOfAnotherOrgsJobIsNotFound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{RetryBackoff: time.Hour})
	id, job := approvedJobThatFailed(t, w, "launch refused")
	other := testkit.Org(t, w.DB)
	if out, err := w.App.Outbox.Retry(ctx, other.ID, job.ID, "not my job", w.Actor); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("another org's retry: %+v %v, want not found", out, err)
	}
	after, _, _ := jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, id)
	if after.Status != job.Status || after.Attempts != job.Attempts || after.RunID != "" {
		t.Fatalf("another org's retry changed the job: %+v", after)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM job_attempts WHERE job_id = $1`, job.ID); n != 1 {
		t.Fatalf("%d attempts recorded, want the one failed launch", n)
	}
	// The job was retryable all along: its own org's operator launches it.
	if out, err := w.App.Outbox.Retry(ctx, w.Org.ID, job.ID, "supplier account fixed", w.Actor); err != nil || out.Outcome != "launched" {
		t.Fatalf("own org's retry: %+v %v", out, err)
	}
}

// queueFullStarter creates runs as the bookkeeper does, and hands none to
// the workers: every Start gives up as a launch does whose wait for a slot
// in the workers' queue ran out.
type queueFullStarter struct{ jobs.RunStarter }

func (queueFullStarter) Start(context.Context, string) error { return runs.ErrLaunchQueueFull }

func TestALaunchThatFoundNoWorkerIsNoFailureAndIsResumed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	w.App.Outbox.Starter = queueFullStarter{w.App.Bookkeeper}
	id := w.Doc(t, 0)
	a, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, w.Actor)
	if err != nil {
		t.Fatal(err)
	}
	// The run exists and the job is launched: a wait for a worker is not a
	// failed launch, and the reviewer is not told of one.
	if a.Launch.Outcome != "launched" || a.Launch.RunID == "" || a.Launch.Error != "" {
		t.Fatalf("launch: %+v", a.Launch)
	}
	// (Done too: the world's resume pass may already have posted it.)
	job, _, _ := jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, id)
	if (job.Status != jobs.Launched && job.Status != jobs.Done) || job.Attempts != 1 || job.LastError != "" {
		t.Fatalf("job row: %+v", job)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE action = 'launch_failed'`); n != 0 {
		t.Fatalf("%d launch failures recorded for a launch that waited", n)
	}
	// The resume pass hands the run to a worker, which posts it once.
	doc := w.WaitPosted(t, id)
	if doc.ResultEntryID == 0 || w.Entries(t, id) != 1 {
		t.Fatalf("posted: %+v", doc)
	}
}
