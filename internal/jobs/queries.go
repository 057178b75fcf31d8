package jobs

// The statements of the jobs, by what they do. Each runs through a
// database.Executor, or in the transaction database.WithTxV opened.

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
// hands these very strings to the benchmark. An approver or an operator
// waits for a job another launcher holds (lockJobSQL); the sweep leaves it
// to them (lockJobSkipLockedSQL).
const (
	lockJobSQL           = `SELECT ` + jobColumns + ` FROM jobs j WHERE j.id = $1 FOR UPDATE`
	lockJobSkipLockedSQL = lockJobSQL + ` SKIP LOCKED`
	markLaunchedSQL      = `UPDATE jobs SET status = 'launched', attempts = attempts + 1, launched_at = now(), run_id = $2::uuid, last_error = NULL, error_class = NULL, updated_at = now() WHERE id = $1 RETURNING attempts`
	insertAttemptSQL     = `INSERT INTO job_attempts (job_id, attempt, trigger, actor, outcome, run_id) VALUES ($1, $2, $3, $4, 'launched', $5::uuid)`
)

// Statements are the SQL of writing a job and of a launch, in order, for
// the benchmark that runs the same statements through pgbench: the very
// constants InsertTx and a launch send (TestStatementsAreWhatApproveSends
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

// The sweep: the jobs due, and its record of the pass.
const (
	dueJobsSQL = `SELECT id FROM jobs WHERE status IN ('pending', 'failed') AND next_attempt_at <= now()
			AND attempts < max_attempts ORDER BY next_attempt_at, id LIMIT $1`
	recordSweepPassSQL = `INSERT INTO sweep_passes (id, last_pass_at, launched, failed) VALUES (1, now(), $1, $2)
		ON CONFLICT (id) DO UPDATE SET last_pass_at = now(), launched = $1, failed = $2`
	sweepStateSQL = `SELECT last_pass_at, launched, failed FROM sweep_passes WHERE id = 1`
)

// Dead letters: the statements a DeadLetterFilter completes with the FROM
// it reads (jobsFromSQL, or jobsWithDocumentsFromSQL when it asks for a
// supplier) and its conditions (DeadLetterFilter.where).
const (
	// deadLetterStatusesSQL keeps both kinds of dead letter.
	deadLetterStatusesSQL = `j.status IN ('abandoned', 'failed')`
	// deadLettersSQL lists them with their documents and orgs, the most
	// recently failed first: conditions; then limitSQL, when a page.
	deadLettersSQL = `SELECT ` + jobColumns + `, coalesce(d.supplier_name, ''), coalesce(d.doc_number, ''), o.slug
		FROM jobs j JOIN intake_documents d ON d.id = j.intake_id JOIN orgs o ON o.id = j.org_id WHERE %s ORDER BY j.updated_at DESC, j.id DESC`
	limitSQL                 = ` LIMIT %d`
	jobsFromSQL              = `jobs j`
	jobsWithDocumentsFromSQL = `jobs j JOIN intake_documents d ON d.id = j.intake_id`
	// countDeadLettersSQL and dryRunSQL: FROM, conditions.
	countDeadLettersSQL = `SELECT count(*) FROM %s WHERE %s`
	dryRunSQL           = `SELECT j.id, j.attempts FROM %s WHERE %s`
	// selectedJobsSQL finds the ticked jobs ($1) within a scope's condition.
	selectedJobsSQL = `SELECT id, org_id FROM jobs WHERE id = ANY($1) AND %s ORDER BY id`
)

// A durable bulk retry: the database's clock for its cutoff, and its next
// batch (a format: the filter's FROM and conditions, then the numbers of the
// cutoff, position, trigger and batch size parameters).
const (
	nowSQL            = `SELECT now()`
	bulkRetryBatchSQL = `SELECT j.id FROM %s WHERE %s AND j.updated_at <= $%d AND j.id > $%d
		AND NOT EXISTS (SELECT 1 FROM job_attempts a WHERE a.job_id = j.id AND a.trigger = $%d)
		ORDER BY j.id LIMIT $%d`
)

// The stranded-work checks: each selects subject, link, since, error and
// run id, for the org $1 (an operator's scope replaces "x.org_id = $1").
const (
	strandedOutOfAttemptsSQL = `SELECT 'job ' || j.id, '/admin/jobs/' || j.id, j.updated_at, coalesce(j.last_error, ''), '' FROM jobs j
			 WHERE j.org_id = $1 AND j.status IN ('pending', 'failed') AND j.attempts >= j.max_attempts`
	strandedLaunchedSQL = `SELECT 'job ' || j.id, '/admin/jobs/' || j.id, j.updated_at, coalesce(r.last_error, j.last_error, ''), '' FROM jobs j LEFT JOIN runs r ON r.id = j.run_id
			 WHERE j.org_id = $1 AND j.status = 'launched' AND (r.id IS NULL OR r.state IN ('done', 'failed'))`
	strandedApprovedSQL = `SELECT 'document ' || d.id, '/intake/' || d.id, d.decided_at, '', '' FROM intake_documents d
			 WHERE d.org_id = $1 AND d.status = 'active' AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.intake_id = d.id)`
	strandedReceivedSQL = `SELECT 'document ' || d.id, '/intake/' || d.id, d.received_at, coalesce(r.last_error, ''), coalesce(r.id::text, '') FROM intake_documents d
			 LEFT JOIN runs r ON r.id = d.pipeline_run_id
			 WHERE d.org_id = $1 AND d.status = 'received' AND (r.id IS NULL OR r.state IN ('done', 'failed'))`
	// strandedRunSQL's $2 is the lease grace, in seconds.
	strandedRunSQL = `SELECT r.kind || ' run ' || r.id, '/admin/runs/' || r.id, coalesce(r.lease_expires_at, r.updated_at), coalesce(r.last_error, ''),
			        CASE r.kind WHEN 'pipeline' THEN r.id::text ELSE '' END FROM runs r
			 WHERE r.org_id = $1 AND r.state = 'running'
			   AND coalesce(r.lease_expires_at, r.updated_at) < now() - make_interval(secs => $2)`
	strandedLimitSQL = ` LIMIT 200`
)
