package jobs

import (
	"greatbook/internal/queue"
	"greatbook/internal/runs"
)

// The statements of the jobs, by what they do. Each runs through a
// database.Executor, or in the transaction database.WithTxV opened.

// jobQueue is the jobs' table as the background-work queue sees it: a job
// is ready while pending or failed, a dead letter once abandoned. The
// queue's rules reach the jobs through it: the locks of a launch, the
// sweep's due jobs, the decision after a failure, the dry run of a bulk
// retry and the stranded checks. Four of its parts the jobs do not use:
//   - Claim and Record: a launch counts its attempt in the transaction
//     that locks the job and creates its run (markLaunchedSQL), so that
//     the run and the attempt commit together; a claim that committed
//     first would count an attempt for a run never created.
//   - Revive: an operator's retry launches the job at once, in its own
//     transaction, rather than making it due for the sweep.
//   - Matching and ReviveMatching: the dead-letter page lists failed
//     jobs too, not only abandoned ones (deadLetterStatusesSQL), and a
//     bulk retry launches each job as a single retry does.
//   - BurySpent: the sweep leaves a job out of attempts as it is, so that
//     the stranded-work check lists it for an operator to look at.
var jobQueue = queue.New(queue.Table{
	Name: "jobs", Alias: "j", Key: "id", Org: "org_id", Status: "status",
	Ready: []string{string(Pending), string(Failed)}, Done: string(Done), Dead: string(Abandoned),
	Attempts: "attempts", MaxAttempts: "max_attempts", DueAt: "next_attempt_at", UpdatedAt: "updated_at",
	LastError: "last_error", Item: "job", DeadLetters: "dead letters",
})

// jobColumns are the columns of a job, in the order scanJob reads them.
const jobColumns = `j.id, j.org_id, j.intake_id, j.status, j.attempts, j.max_attempts, coalesce(j.last_error, ''),
	coalesce(j.error_class, ''), coalesce(j.run_id::text, ''), j.launched_at, j.next_attempt_at, j.created_by, j.created_at, j.updated_at`

// Reading jobs.
const (
	getJobSQL           = `SELECT ` + jobColumns + ` FROM jobs j WHERE j.org_id = $1 AND j.id = $2`
	getJobAnyOrgSQL     = `SELECT ` + jobColumns + ` FROM jobs j WHERE j.id = $1`
	jobForDocumentSQL   = `SELECT ` + jobColumns + ` FROM jobs j WHERE j.org_id = $1 AND j.intake_id = $2`
	jobsForDocumentsSQL = `SELECT ` + jobColumns + ` FROM jobs j WHERE j.org_id = $1 AND j.intake_id = ANY($2::bigint[])`
	jobAttemptsSQL      = `SELECT attempt, trigger, actor, outcome, coalesce(error, ''), coalesce(error_class, ''),
		coalesce(run_id::text, ''), created_at FROM job_attempts WHERE job_id = $1 ORDER BY created_at, attempt`
)

// insertJobSQL writes the job an approval owes, in the approval's
// transaction.
const insertJobSQL = `INSERT INTO jobs (org_id, intake_id, created_by, max_attempts) VALUES ($1, $2, $3, $4) RETURNING id`

// The statements of a launch, in the order launch sends them; Statements
// hands these very strings to the benchmark. The locks are the queue's,
// rendered for the jobs' columns: an approver or an operator waits for a
// job another launcher holds (lockJobSQL); the sweep leaves it to them
// (lockJobSkipLockedSQL).
var (
	lockJobSQL           = jobQueue.LockSQL(jobColumns, false)
	lockJobSkipLockedSQL = jobQueue.LockSQL(jobColumns, true)
)

const (
	markLaunchedSQL  = `UPDATE jobs SET status = 'launched', attempts = attempts + 1, launched_at = now(), run_id = $2::uuid, last_error = NULL, error_class = NULL, updated_at = now() WHERE id = $1 RETURNING attempts`
	insertAttemptSQL = `INSERT INTO job_attempts (job_id, attempt, trigger, actor, outcome, run_id) VALUES ($1, $2, $3, $4, 'launched', $5::uuid)`
)

// Statements are the SQL of writing a job and of a launch, in order, for
// the benchmark that runs the same statements through pgbench: the very
// strings InsertTx and a launch send (TestStatementsAreWhatApproveSends
// compares them with what reaches the server).
var Statements = struct {
	InsertJob, LockJob, LockJobSkipLocked, MarkLaunched, InsertAttempt string
}{insertJobSQL, lockJobSQL, lockJobSkipLockedSQL, markLaunchedSQL, insertAttemptSQL}

// Recording a failed launch (the job locked with lockJobSQL first).
const (
	recordFailureSQL = `UPDATE jobs j SET status = $2, attempts = $3, last_error = $4, error_class = $5,
			next_attempt_at = now() + make_interval(secs => $6), updated_at = now() WHERE j.id = $1 RETURNING ` + jobColumns
	insertFailedAttemptSQL = `INSERT INTO job_attempts (job_id, attempt, trigger, actor, outcome, error, error_class)
			VALUES ($1, $2, $3, $4, 'failed', $5, $6)`
)

// Recording a failed run (the job locked with lockJobSQL first), in the
// transaction that marks the run failed.
const (
	recordRunFailedSQL = `UPDATE jobs SET status = $2, last_error = $3, error_class = $4,
		next_attempt_at = now() + make_interval(secs => $5), updated_at = now() WHERE id = $1`
	insertRunFailedAttemptSQL = `INSERT INTO job_attempts (job_id, attempt, trigger, actor, outcome, error, error_class, run_id)
		VALUES ($1, $2, 'run', 'system:bookkeeper', 'run_failed', $3, $4, $5::uuid) ON CONFLICT DO NOTHING`
)

// The sweep's record of its pass (the jobs due come from jobQueue.Due).
const (
	recordSweepPassSQL = `INSERT INTO sweep_passes (id, last_pass_at, launched, failed) VALUES (1, now(), $1, $2)
		ON CONFLICT (id) DO UPDATE SET last_pass_at = now(), launched = $1, failed = $2`
	sweepStateSQL = `SELECT last_pass_at, launched, failed FROM sweep_passes WHERE id = 1`
)

// Dead letters: the statements a DeadLetterFilter completes with its
// conditions on the jobs j (DeadLetterFilter.where).
const (
	// deadLetterStatusesSQL keeps both kinds of dead letter.
	deadLetterStatusesSQL = `j.status IN ('abandoned', 'failed')`
	// supplierMatchesSQL is true of a dead letter whose document's
	// supplier matches the LIKE pattern %s (lower-cased): the name the
	// job took when it became one (migration 00042), found through the
	// dead letters' trigram index, so that a filter reads the dead letters
	// it matches rather than every one's document.
	supplierMatchesSQL = `j.supplier LIKE %s`
	// deadLettersSQL lists them with their documents and orgs, the most
	// recently failed first, and how many match when the statement counts
	// them: the dead letters (deadLettersWalkSQL or deadLettersCountedSQL),
	// then limitSQL when a page (or nothing). The page's dead letters are
	// chosen before their documents are read, so that a filter whose
	// matches are read to be sorted (a supplier's) reads a page's
	// documents, not every match's.
	deadLettersSQL = `SELECT ` + jobColumns + `, coalesce(d.supplier_name, ''), coalesce(d.doc_number, ''), o.slug, j.matches
		FROM (%s ORDER BY j.updated_at DESC, j.id DESC%s) j
		JOIN intake_documents d ON d.id = j.intake_id JOIN orgs o ON o.id = j.org_id ORDER BY j.updated_at DESC, j.id DESC`
	// deadLettersWalkSQL reads the dead letters in the index's order from
	// the cursor on, without counting them: conditions (the cursor's too).
	deadLettersWalkSQL = `SELECT j.*, -1::bigint AS matches FROM jobs j WHERE %s`
	// deadLettersCountedSQL counts every match as it reads them, where they
	// are all read to be sorted anyway (a supplier's, from the trigram
	// index), so that a page needs no second statement to say how many:
	// conditions, then the cursor's (after the count).
	deadLettersCountedSQL = `SELECT * FROM (SELECT j.*, count(*) OVER () AS matches FROM jobs j WHERE %s) j WHERE true%s`
	limitSQL              = ` LIMIT %d`
	// afterCursorSQL keeps the dead letters after a page's cursor, in
	// deadLettersSQL's order, which the dead letters' index reads from the
	// cursor on: the numbers of its last change and id parameters.
	afterCursorSQL = ` AND (j.updated_at, j.id) < ($%d, $%d)`
	// dryRunSQL: conditions.
	// countDeadLettersUpToSQL: conditions, limit.
	countDeadLettersUpToSQL = `SELECT count(*) FROM (SELECT 1 FROM jobs j WHERE %s LIMIT %d) x`
	dryRunSQL               = `SELECT j.id, j.attempts FROM jobs j WHERE %s`
	// selectedJobsSQL finds the ticked jobs ($1) within a scope's condition.
	selectedJobsSQL = `SELECT id, org_id FROM jobs WHERE id = ANY($1) AND %s ORDER BY id`
)

// A durable bulk retry: the database's clock for its cutoff, and its next
// batch (a format: the filter's conditions, then the numbers of the cutoff,
// position, trigger and batch size parameters).
const (
	nowSQL            = `SELECT now()`
	bulkRetryBatchSQL = `SELECT j.id FROM jobs j WHERE %s AND j.updated_at <= $%d AND j.id > $%d
		AND NOT EXISTS (SELECT 1 FROM job_attempts a WHERE a.job_id = j.id AND a.trigger = $%d)
		ORDER BY j.id LIMIT $%d`
)

// The stranded-work checks: each selects subject, link, since, error and
// run id, for the org $1 (an operator's scope replaces "x.org_id = $1").
// A job out of attempts is the queue's spent job; a running run no worker
// has held for the lease grace ($2, in seconds) is the runs' lapsed run.
var (
	strandedOutOfAttemptsSQL = `SELECT 'job ' || j.id, '/admin/jobs/' || j.id, j.updated_at, coalesce(j.last_error, ''), '' FROM jobs j
			 WHERE j.org_id = $1 AND ` + jobQueue.Spent("")
	strandedRunSQL = `SELECT r.kind || ' run ' || r.id, '/admin/runs/' || r.id, coalesce(r.lease_expires_at, r.updated_at), coalesce(r.last_error, ''),
			        CASE r.kind WHEN 'pipeline' THEN r.id::text ELSE '' END FROM runs r
			 WHERE r.org_id = $1 AND ` + runs.Lapsed("$2")
)

const (
	strandedLaunchedSQL = `SELECT 'job ' || j.id, '/admin/jobs/' || j.id, j.updated_at, coalesce(r.last_error, j.last_error, ''), '' FROM jobs j LEFT JOIN runs r ON r.id = j.run_id
			 WHERE j.org_id = $1 AND j.status = 'launched' AND (r.id IS NULL OR r.state IN ('done', 'failed'))`
	// strandedApprovedSQL reads the approvals noted without a job when they
	// committed (approvals_without_job), not every approved document of the
	// history: an approval writes its job in its own transaction.
	strandedApprovedSQL = `SELECT 'document ' || d.id, '/intake/' || d.id, d.decided_at, '', '' FROM approvals_without_job n
			 JOIN intake_documents d ON d.id = n.document_id
			 WHERE d.org_id = $1 AND d.status = 'active' AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.intake_id = d.id)`
	strandedReceivedSQL = `SELECT 'document ' || d.id, '/intake/' || d.id, d.received_at, coalesce(r.last_error, ''), coalesce(r.id::text, '') FROM intake_documents d
			 LEFT JOIN runs r ON r.id = d.pipeline_run_id
			 WHERE d.org_id = $1 AND d.status = 'received' AND (r.id IS NULL OR r.state IN ('done', 'failed'))`
	strandedLimitSQL = ` LIMIT 200`
)
