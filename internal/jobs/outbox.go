// Package jobs is the approve outbox: the bookkeeping job an approval
// writes in its own transaction, launched after the commit; the sweep that
// launches what was left pending or failed; an operator's retry, one at a
// time or in bulk; the dead letters; and the stranded-work check.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/failpoint"
	"greatbook/internal/queue"
	"greatbook/internal/retry"
)

// Status is where an outbox job stands.
type Status string

// The statuses of a job.
const (
	Pending   Status = "pending"   // written by approve; not launched yet
	Launched  Status = "launched"  // its bookkeeper run exists and is running
	Failed    Status = "failed"    // a launch or its run failed; the sweep retries it
	Abandoned Status = "abandoned" // a dead letter: only an operator's retry revives it
	Done      Status = "done"      // the document is posted
)

// Job is an outbox job: the bookkeeping a document's approval owes.
type Job struct {
	ID            int64      `json:"id"`
	OrgID         int64      `json:"-"`
	IntakeID      int64      `json:"intake_id"`
	Status        Status     `json:"status"`
	Attempts      int        `json:"attempts"`
	MaxAttempts   int        `json:"max_attempts"`
	LastError     string     `json:"last_error,omitempty"`
	ErrorClass    string     `json:"error_class,omitempty"`
	RunID         string     `json:"run_id,omitempty"`
	LaunchedAt    *time.Time `json:"launched_at,omitempty"`
	NextAttemptAt time.Time  `json:"next_attempt_at"`
	CreatedBy     string     `json:"created_by"`
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
}

// LaunchOutcome is what a launch did (docs/api.md, `POST /api/v1/intake/{id}/approve`: outcome launched or failed).
type LaunchOutcome struct {
	Outcome string `json:"outcome"`
	JobID   int64  `json:"job_id"`
	RunID   string `json:"run_id,omitempty"`
	Error   string `json:"error,omitempty"`
	// Class is the failure's class: transient (the sweep retries) or
	// permanent (a dead letter at once).
	Class string `json:"error_class,omitempty"`
	// Status is the job's status after the launch.
	Status Status `json:"job_status"`
}

// RunStarter creates the run a job launches and hands it to the workers:
// the bookkeeper implements it.
type RunStarter interface {
	// CreateRun creates the job's run in the launch's transaction.
	CreateRun(ctx context.Context, tx pgx.Tx, job Job) (runID string, err error)
	// Start hands a created run to the workers, after the commit; it may
	// wait, bounded, for a worker to be free (back-pressure). Its failure
	// is not the launch's: the run exists, and the resume pass starts it.
	Start(ctx context.Context, runID string) error
}

// Outbox launches, retries and sweeps jobs.
type Outbox struct {
	Pool    database.Executor
	Starter RunStarter
	Logger  *slog.Logger
	// MaxAttempts is the number of launches before a job is abandoned (5).
	MaxAttempts int
	// Backoff is the first wait before the sweep retries a failed job; each
	// further wait doubles, up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// Failpoints act at FailpointLaunch (nil: failpoint.Env).
	Failpoints failpoint.Injector
}

// FailpointLaunch is inside a launch's transaction, once the job is locked
// and found launchable, before its run is created: an error there fails the
// launch as the error says (transient or permanent).
const FailpointLaunch = "intake/launch"

func (o *Outbox) failpoints() failpoint.Injector {
	if o.Failpoints == nil {
		return failpoint.Env{}
	}
	return o.Failpoints
}

func (o *Outbox) maxAttempts() int {
	if o.MaxAttempts <= 0 {
		return 5
	}
	return o.MaxAttempts
}

func (o *Outbox) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// maxRetryAfter caps how long a Retry-After carried by a launch's or a
// run's error puts off the job's next attempt.
const maxRetryAfter = 10 * time.Minute

// policy is the retry policy of a job allowed maxAttempts launches: the
// queue decides by it whether a failed launch is tried again, and when.
func (o *Outbox) policy(maxAttempts int) retry.Policy {
	base, ceiling := o.Backoff, o.MaxBackoff
	if base <= 0 {
		base = 10 * time.Second
	}
	if ceiling <= 0 {
		ceiling = 10 * time.Minute
	}
	return retry.Policy{Attempts: maxAttempts, Base: base, Max: ceiling, MaxRetryAfter: maxRetryAfter}
}

func scanJob(row pgx.Row) (Job, error) {
	var j Job
	err := row.Scan(&j.ID, &j.OrgID, &j.IntakeID, &j.Status, &j.Attempts, &j.MaxAttempts, &j.LastError, &j.ErrorClass,
		&j.RunID, &j.LaunchedAt, &j.NextAttemptAt, &j.CreatedBy, &j.CreatedAt, &j.UpdatedAt)
	return j, err
}

// ForDocument returns a document's job, if it has one.
func ForDocument(ctx context.Context, q database.Executor, orgID, intakeID int64) (Job, bool, error) {
	j, err := scanJob(q.QueryRow(ctx, jobForDocumentSQL, orgID, intakeID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Job{}, false, nil
	}
	if err != nil {
		return Job{}, false, fmt.Errorf("jobs: job of %d: %w", intakeID, err)
	}
	return j, true, nil
}

// ForDocuments are the jobs of the documents ids that have one, by
// document, read in one statement.
func ForDocuments(ctx context.Context, q database.Executor, orgID int64, ids []int64) (map[int64]Job, error) {
	rows, err := q.Query(ctx, jobsForDocumentsSQL, orgID, ids)
	if err != nil {
		return nil, fmt.Errorf("jobs: jobs of documents: %w", err)
	}
	defer rows.Close()
	out := map[int64]Job{}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("jobs: jobs of documents: %w", err)
		}
		out[j.IntakeID] = j
	}
	return out, rows.Err()
}

// Get returns a job of an org.
func Get(ctx context.Context, q database.Executor, orgID, id int64) (Job, error) {
	j, err := scanJob(q.QueryRow(ctx, getJobSQL, orgID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Job{}, apperr.New(apperr.NotFound, "no job %d", id)
	}
	if err != nil {
		return Job{}, fmt.Errorf("jobs: job %d: %w", id, err)
	}
	return j, nil
}

// InsertTx writes the job a document's approval owes, in the approval's
// transaction tx, so that the approval and its job commit together; it is
// launched after the commit (Launch). A document has one job at most: a
// second is invalid_state.
func (o *Outbox) InsertTx(ctx context.Context, tx pgx.Tx, orgID, documentID int64, createdBy string) (int64, error) {
	var jobID int64
	if err := tx.QueryRow(ctx, insertJobSQL, orgID, documentID, createdBy, o.maxAttempts()).Scan(&jobID); err != nil {
		if database.IsUniqueViolation(err, "jobs_one_per_document") {
			return 0, apperr.New(apperr.InvalidState, "document %d has a bookkeeping job already", documentID)
		}
		return 0, fmt.Errorf("jobs: write job of document %d: %w", documentID, err)
	}
	return jobID, nil
}

// lockMode says how a launch waits for a job another launcher holds.
type lockMode int

const (
	lockWait lockMode = iota // approve, an operator: wait, then see what the other did
	lockSkip                 // the sweep: leave it to whoever holds it
)

// errNotLaunchable is a launch of a job in a state that cannot be launched.
type errNotLaunchable struct{ job Job }

func (e errNotLaunchable) Error() string {
	return fmt.Sprintf("jobs: job %d is %s", e.job.ID, e.job.Status)
}

var errSkipped = errors.New("jobs: job is being launched by another")

// launch launches a job: under the job's row lock (so that no job is ever
// launched twice at once) it creates the run and marks the job launched, in
// one transaction; after the commit it hands the run to the workers. It
// raises on failure; Launch owns that failure.
func (o *Outbox) launch(ctx context.Context, jobID int64, trigger string, actor audit.Actor, mode lockMode, allowed ...Status) (string, error) {
	lockJob := lockJobSQL
	if mode == lockSkip {
		lockJob = lockJobSkipLockedSQL
	}
	runID, err := database.WithTxV(ctx, o.Pool, func(tx pgx.Tx) (string, error) {
		job, err := scanJob(tx.QueryRow(ctx, lockJob, jobID))
		if errors.Is(err, pgx.ErrNoRows) {
			return "", errSkipped
		}
		if err != nil {
			return "", fmt.Errorf("jobs: lock job %d for launch: %w", jobID, err)
		}
		ok := false
		for _, s := range allowed {
			ok = ok || job.Status == s
		}
		if !ok {
			return "", errNotLaunchable{job: job}
		}
		if err := o.failpoints().Inject(ctx, FailpointLaunch); err != nil {
			return "", err
		}
		runID, err := o.Starter.CreateRun(ctx, tx, job)
		if err != nil {
			return "", fmt.Errorf("jobs: create run of job %d: %w", jobID, err)
		}
		var attempt int
		if err := tx.QueryRow(ctx, markLaunchedSQL, jobID, runID).Scan(&attempt); err != nil {
			return "", fmt.Errorf("jobs: mark job %d launched: %w", jobID, err)
		}
		if _, err := tx.Exec(ctx, insertAttemptSQL, jobID, attempt, trigger, actor.Label, runID); err != nil {
			return "", fmt.Errorf("jobs: record launch of job %d: %w", jobID, err)
		}
		return runID, audit.Record(ctx, tx, audit.Event{OrgID: job.OrgID, Actor: actor, Action: "job_launched", SubjectType: "intake",
			SubjectID: job.IntakeID, FromStatus: string(job.Status), ToStatus: string(Launched),
			Detail: map[string]any{"job_id": jobID, "run_id": runID, "attempt": attempt, "trigger": trigger}})
	})
	if err != nil {
		return "", err
	}
	if err := o.Starter.Start(ctx, runID); err != nil {
		// The run is in the database; the workers' resume pass starts it.
		o.logger().Warn("bookkeeper run created but not handed to a worker; the resume pass will start it", "run_id", runID, "error", err)
	}
	return runID, nil
}

// recordFailure records a failed launch on the job (attempts, last error,
// its class, when to try again), in its history and in the audit trail. A
// permanent failure, or the last attempt, abandons the job.
func (o *Outbox) recordFailure(ctx context.Context, jobID int64, trigger string, actor audit.Actor, cause error) (Job, error) {
	class := retry.ClassOf(cause)
	return database.WithTxV(ctx, o.Pool, func(tx pgx.Tx) (Job, error) {
		job, err := scanJob(tx.QueryRow(ctx, lockJobSQL, jobID))
		if err != nil {
			return Job{}, fmt.Errorf("jobs: lock job %d to record its failure: %w", jobID, err)
		}
		attempt := job.Attempts + 1
		verdict := queue.Decide(o.policy(job.MaxAttempts), attempt, cause)
		status := Failed
		if verdict.Dead {
			status = Abandoned
		}
		job, err = scanJob(tx.QueryRow(ctx, recordFailureSQL,
			jobID, status, attempt, cause.Error(), class.String(), verdict.Wait.Seconds()))
		if err != nil {
			return Job{}, fmt.Errorf("jobs: record failure of job %d: %w", jobID, err)
		}
		if _, err := tx.Exec(ctx, insertFailedAttemptSQL, jobID, attempt, trigger, actor.Label, cause.Error(), class.String()); err != nil {
			return Job{}, fmt.Errorf("jobs: record failed attempt of job %d: %w", jobID, err)
		}
		return job, audit.Record(ctx, tx, audit.Event{OrgID: job.OrgID, Actor: actor, Action: "launch_failed", SubjectType: "intake",
			SubjectID: job.IntakeID, ToStatus: string(status),
			Detail: map[string]any{"job_id": jobID, "attempt": attempt, "error": cause.Error(), "error_class": class.String(), "trigger": trigger}})
	})
}

// Launch launches a job and owns the outcome: a failure is recorded and
// returned as the outcome, never raised.
func (o *Outbox) Launch(ctx context.Context, jobID int64, trigger string, actor audit.Actor) LaunchOutcome {
	return o.launchAndRecord(ctx, jobID, trigger, actor, lockWait, Pending, Failed)
}

func (o *Outbox) launchAndRecord(ctx context.Context, jobID int64, trigger string, actor audit.Actor, mode lockMode, allowed ...Status) LaunchOutcome {
	ctx, cancel := launchContext(ctx)
	defer cancel()
	runID, err := o.launch(ctx, jobID, trigger, actor, mode, allowed...)
	if err == nil {
		return LaunchOutcome{Outcome: "launched", JobID: jobID, RunID: runID, Status: Launched}
	}
	var nl errNotLaunchable
	if errors.As(err, &nl) {
		// Launched meanwhile by someone else (the sweep): that is this
		// launch's outcome too.
		out := LaunchOutcome{Outcome: "launched", JobID: jobID, RunID: nl.job.RunID, Status: nl.job.Status}
		if nl.job.Status != Launched && nl.job.Status != Done {
			out.Outcome, out.Error, out.Class = "failed", nl.job.LastError, nl.job.ErrorClass
		}
		return out
	}
	if errors.Is(err, errSkipped) {
		return LaunchOutcome{Outcome: "skipped", JobID: jobID}
	}
	// The request may be gone; the failure must still be recorded.
	recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	job, rerr := o.recordFailure(recordCtx, jobID, trigger, actor, err)
	if rerr != nil {
		o.logger().Error("launch failed and the failure could not be recorded; the sweep will find the job", "job_id", jobID, "error", err, "record_error", rerr)
		return LaunchOutcome{Outcome: "failed", JobID: jobID, Error: err.Error(), Class: retry.ClassOf(err).String(), Status: Pending}
	}
	return LaunchOutcome{Outcome: "failed", JobID: jobID, Error: err.Error(), Class: job.ErrorClass, Status: job.Status}
}

// launchContext is the context a launch runs in: a launch decided (an
// approval committed, an operator's retry) goes ahead when its caller goes
// away — a reviewer closing the tab must not turn into a failed attempt —
// bounded by a timeout of its own.
func launchContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
}

// Retry is an operator's retry of a job that failed or was abandoned (or is
// still pending), with a reason; it launches the job now. Several operators
// retrying at the same moment launch it once: the others see it launched.
func (o *Outbox) Retry(ctx context.Context, orgID, jobID int64, reason string, actor audit.Actor) (LaunchOutcome, error) {
	if err := audit.CheckReason(reason); err != nil {
		return LaunchOutcome{}, err
	}
	// The tenancy check: the launch below locks the job by id alone, so
	// the job must be the caller's org's first; another org's is not found.
	job, err := Get(ctx, o.Pool, orgID, jobID)
	if err != nil {
		return LaunchOutcome{}, err
	}
	if job.OrgID != orgID {
		return LaunchOutcome{}, apperr.New(apperr.NotFound, "no job %d", jobID)
	}
	trigger := "operator: " + reason
	ctx, cancel := launchContext(ctx)
	defer cancel()
	runID, err := o.launch(ctx, jobID, trigger, actor, lockWait, Pending, Failed, Abandoned)
	var nl errNotLaunchable
	if errors.As(err, &nl) {
		return LaunchOutcome{}, apperr.New(apperr.InvalidState, "job %d is %s; only a pending, failed or abandoned job can be retried", jobID, nl.job.Status)
	}
	if err != nil {
		recordCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		failed, rerr := o.recordFailure(recordCtx, jobID, trigger, actor, err)
		if rerr != nil {
			return LaunchOutcome{}, rerr
		}
		return LaunchOutcome{Outcome: "failed", JobID: jobID, Error: err.Error(), Class: failed.ErrorClass, Status: failed.Status}, nil
	}
	return LaunchOutcome{Outcome: "launched", JobID: jobID, RunID: runID, Status: Launched}, nil
}

// SweepResult is what one sweep pass did.
type SweepResult struct {
	Launched []LaunchOutcome
	Failed   []LaunchOutcome
}

// Sweep is one recovery pass: it launches every job left pending (a crash
// between approve's commit and its launch) or failed (a failed launch or
// run, when its backoff has passed), at most limit of them. It skips jobs
// another launcher holds (FOR UPDATE SKIP LOCKED), so several processes
// sweep safely together, and it never touches an abandoned job.
func (o *Outbox) Sweep(ctx context.Context, limit int) (SweepResult, error) {
	var res SweepResult
	if limit <= 0 {
		limit = 1000
	}
	actor := audit.System("sweep")
	for len(res.Launched)+len(res.Failed) < limit {
		batch := min(100, limit-len(res.Launched)-len(res.Failed))
		// Each job bounds its own attempts (max_attempts): no policy's bound.
		ids, err := jobQueue.Due(ctx, o.Pool, retry.Policy{}, batch)
		if err != nil {
			return res, fmt.Errorf("jobs: sweep: %w", err)
		}
		progressed := false
		for _, id := range ids {
			out := o.launchAndRecord(ctx, id, "sweep", actor, lockSkip, Pending, Failed)
			switch out.Outcome {
			case "launched":
				res.Launched = append(res.Launched, out)
				progressed = true
			case "failed":
				res.Failed = append(res.Failed, out)
				progressed = true
			}
		}
		if len(ids) < batch || !progressed {
			break
		}
	}
	if _, err := o.Pool.Exec(ctx, recordSweepPassSQL, len(res.Launched), len(res.Failed)); err != nil {
		return res, fmt.Errorf("jobs: sweep: %w", err)
	}
	return res, nil
}

// RunFailed records that a job's run failed: the job is retried by the
// sweep after backoff (a transient failure with attempts left; the run's
// launch counted the attempt already) or abandoned. It runs in the
// transaction that marks the run failed.
func RunFailed(ctx context.Context, tx pgx.Tx, jobID int64, backoff time.Duration, cause error) error {
	class := retry.ClassOf(cause)
	var job Job
	job, err := scanJob(tx.QueryRow(ctx, lockJobSQL, jobID))
	if err != nil {
		return fmt.Errorf("jobs: lock job %d to record its failed run: %w", jobID, err)
	}
	verdict := queue.Decide(retry.Policy{Attempts: job.MaxAttempts, Base: backoff, Max: backoff, MaxRetryAfter: maxRetryAfter},
		job.Attempts, cause)
	status := Failed
	if verdict.Dead {
		status = Abandoned
	}
	if _, err := tx.Exec(ctx, recordRunFailedSQL,
		jobID, status, cause.Error(), class.String(), verdict.Wait.Seconds()); err != nil {
		return fmt.Errorf("jobs: record failed run of job %d: %w", jobID, err)
	}
	if _, err := tx.Exec(ctx, insertRunFailedAttemptSQL,
		jobID, job.Attempts, cause.Error(), class.String(), job.RunID); err != nil {
		return fmt.Errorf("jobs: record failed run attempt of job %d: %w", jobID, err)
	}
	return audit.Record(ctx, tx, audit.Event{OrgID: job.OrgID, Actor: audit.System("bookkeeper"), Action: "run_failed",
		SubjectType: "intake", SubjectID: job.IntakeID, FromStatus: string(job.Status), ToStatus: string(status),
		Detail: map[string]any{"job_id": jobID, "run_id": job.RunID, "error": cause.Error(), "error_class": class.String()}})
}

// GetAnyOrg returns a job whatever its org (the operator's command line).
func GetAnyOrg(ctx context.Context, q database.Executor, id int64) (Job, error) {
	j, err := scanJob(q.QueryRow(ctx, getJobAnyOrgSQL, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Job{}, apperr.New(apperr.NotFound, "no job %d", id)
	}
	if err != nil {
		return Job{}, fmt.Errorf("jobs: job %d: %w", id, err)
	}
	return j, nil
}
