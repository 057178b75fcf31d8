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
	// supplier matches the LIKE pattern %s (lower-cased here): the name the
	// job took when it became one (migration 00042), found through the
	// dead letters' trigram index, so that a filter reads the dead letters
	// it matches rather than every one's document.
	supplierMatchesSQL = `j.supplier LIKE lower(%s)`
	// supplierNamedSQL is true of a dead letter of one of the names found
	// (the keys %s, each the md5 of a name), whose name contains the text
	// (%s, lower-cased here): a key alone decides nothing. The text is tested
	// by strpos, which the trigram index does not answer, so that the
	// plan reads the names' dead letters by their keys.
	supplierNamedSQL = `j.supplier_key = ANY(%s::uuid[]) AND strpos(j.supplier, lower(%s)) > 0`
	// supplierContainsSQL is true of a dead letter whose name contains the
	// text %s (lower-cased here), tested on each dead letter a walk in the
	// page's order reads, where many names contain it: a condition the
	// trigram index does not answer, so that the plan walks rather than
	// reading every match to sort them.
	supplierContainsSQL = `strpos(j.supplier, lower(%s)) > 0`
	// deadLettersSQL lists them with their documents and orgs, the most
	// recently failed first: the dead letters (deadLettersWalkSQL), then
	// limitSQL when a page (or nothing). The page's dead letters are
	// chosen before their documents are read, so that a filter whose
	// matches are read to be sorted reads a page's documents, not every
	// match's.
	deadLettersSQL = `SELECT ` + jobColumns + `, coalesce(d.supplier_name, ''), coalesce(d.doc_number, ''), o.slug, j.matches
		FROM (%s ORDER BY j.updated_at DESC, j.id DESC%s) j
		JOIN intake_documents d ON d.id = j.intake_id JOIN orgs o ON o.id = j.org_id ORDER BY j.updated_at DESC, j.id DESC`
	// deadLettersWalkSQL reads the dead letters in the index's order from
	// the cursor on, without counting them: conditions (the cursor's too).
	deadLettersWalkSQL = `SELECT j.*, -1::bigint AS matches FROM jobs j WHERE %s`
	// deadLettersByNameSQL is a page of a supplier's dead letters read by
	// the names found (supplierNamesSQL): each name's newest after the
	// cursor, a page at most, from jobs_dead_letter_supplier_key_idx in
	// the page's order (an index-only scan), then the newest of those with
	// their documents. A page reads at most a page per name however many
	// dead letters a name has gathered. Each row carries the count of the
	// filter's matches (before the cursor's condition, so that every page
	// says the same), read from the same index up to a bound. The name is
	// tested again on the page's rows: a key (md5) alone decides nothing.
	// Arguments: the numbers of the names' orgs and keys parameters, the
	// conditions, the cursor's, the page's size, the number of the text's
	// parameter, the count's bound.
	deadLettersByNameSQL = `SELECT ` + jobColumns + `, coalesce(d.supplier_name, ''), coalesce(d.doc_number, ''), o.slug,
		(SELECT count(*) FROM (SELECT 1 FROM unnest($%[1]d::bigint[], $%[2]d::uuid[]) s (org_id, key) CROSS JOIN LATERAL (
		    SELECT 1 FROM jobs j WHERE j.org_id = s.org_id AND j.supplier_key = s.key AND %[3]s LIMIT %[7]d) j LIMIT %[7]d) n)
		FROM (SELECT j.id, j.updated_at FROM unnest($%[1]d::bigint[], $%[2]d::uuid[]) s (org_id, key) CROSS JOIN LATERAL (
		        SELECT j.id, j.updated_at FROM jobs j WHERE j.org_id = s.org_id AND j.supplier_key = s.key AND %[3]s%[4]s
		        ORDER BY j.updated_at DESC, j.id DESC LIMIT %[5]d) j
		      ORDER BY j.updated_at DESC, j.id DESC LIMIT %[5]d) p
		JOIN jobs j ON j.id = p.id JOIN intake_documents d ON d.id = j.intake_id JOIN orgs o ON o.id = j.org_id
		WHERE strpos(j.supplier, lower($%[6]d)) > 0 ORDER BY j.updated_at DESC, j.id DESC`
	// supplierNamesSQL finds the names of a scope's suppliers containing a
	// text, and their keys: the scope's condition on org_id, the numbers
	// of the LIKE pattern and limit parameters.
	supplierNamesSQL = `SELECT org_id, md5(name)::uuid::text FROM supplier_names WHERE %s AND name LIKE lower($%d) LIMIT $%d`
	limitSQL         = ` LIMIT %d`
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
