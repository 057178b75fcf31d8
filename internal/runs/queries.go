package runs

import (
	"fmt"

	"greatbook/internal/queue"
)

// The statements of the runs engine, by what they do. Each runs through a
// database.Executor, in the transaction database.WithTx opened, or in a
// batch (a checkpoint between pure nodes is one round trip).

// runQueue is the runs' table as the background-work queue sees it: the
// engine takes its leases through it (a run is ready while running, a dead
// letter once failed). It neither claims nor backs off through it: a run is
// handed to a worker by its id, and retries its node within one execution
// (see the queue's package doc).
var runQueue = queue.New(queue.Table{
	Name: "runs", Alias: "r", Key: "id", KeyType: "uuid", Org: "org_id", Status: "state",
	Ready: []string{string(Running)}, Done: string(Done), Dead: string(Failed),
	UpdatedAt: "updated_at", LastError: "last_error", Order: "created_at", Item: "run",
	Lease: &queue.Lease{Holder: "lease_owner", Until: "lease_expires_at"},
})

// Lapsed is the condition (on the alias r) of a running run whose lease
// lapsed, or that no worker ever held, more than grace ago (grace: the SQL
// of a parameter in seconds, such as "$2"): no worker runs it, and the
// stranded-work check lists it.
func Lapsed(grace string) string { return runQueue.Lapsed(grace) }

// heldByNoOne is true of a run (r) no live worker holds (its lease is free
// or expired); a run a worker holds now is that worker's.
var heldByNoOne = runQueue.Free()

// inBackoffSQL is true for a running run held by a live worker whose last
// checkpoint is a retry: the worker is sleeping its backoff. It is false,
// never NULL, for a run with no checkpoint yet (its first node running).
var inBackoffSQL = `r.state = 'running' AND ` + runQueue.Held() + `
	AND coalesce((SELECT c.outcome FROM run_checkpoints c WHERE c.run_id = r.id ORDER BY c.seq DESC LIMIT 1), '') = 'retry'`

// countsSQL counts the runs of a scope per state: running, in backoff and
// paused (the unfinished runs, few at any time), then done and failed, each
// counted up to $1 rows (finished runs are the history: counting them all
// would cost more than the page). The three %s are the scope's condition.
// The capped counts read in the order of the index on (org_id, state,
// updated_at DESC, id), so that they read the scope's rows from it and not
// the table's first pages, which may hold other orgs' runs.
var countsSQL = `SELECT
			count(*) FILTER (WHERE r.state = 'running' AND NOT (` + inBackoffSQL + `)),
			count(*) FILTER (WHERE ` + inBackoffSQL + `),
			count(*) FILTER (WHERE r.state = 'paused'),
			(SELECT count(*) FROM (SELECT 1 FROM runs r WHERE r.state = 'done' AND %s ORDER BY r.updated_at DESC LIMIT $1) x),
			(SELECT count(*) FROM (SELECT 1 FROM runs r WHERE r.state = 'failed' AND %s ORDER BY r.updated_at DESC LIMIT $1) x)
		FROM runs r WHERE r.state IN ('running', 'paused') AND %s`

// A run and its history.

// InsertSQL creates a run (named for the benchmark).
const InsertSQL = `INSERT INTO runs (id, org_id, kind, subject_id, next_node, data) VALUES ($1, $2, $3, $4, $5, $6)`

// infoColumns are the columns of a run, in the order scanInfo reads them.
const infoColumns = `id::text, org_id, kind, subject_id, state, coalesce(next_node, ''), data, question,
	coalesce(last_error, ''), coalesce(lease_owner, ''), lease_expires_at, created_at, updated_at, finished_at`

const (
	// getRunSQL reads a run in a scope (%s).
	getRunSQL        = `SELECT ` + infoColumns + ` FROM runs WHERE id = $1::uuid AND %s`
	runsOfSubjectSQL = `SELECT ` + infoColumns + ` FROM runs WHERE org_id = $1 AND kind = $2 AND subject_id = $3 ORDER BY created_at, id`
	// listRunsSQL lists the most recently changed of the runs its
	// branches (%s, listRunsBranchSQL joined by UNION ALL) found, up to
	// $1. Each branch reads one state's newest runs of a scope, and of a
	// kind when the filter names one (its conditions, %s), in the order of
	// the index on (org_id, state, updated_at DESC, id) or on (org_id,
	// kind, state, updated_at DESC, id): a page is found however many
	// runs of other states or kinds changed since.
	listRunsSQL       = `SELECT ` + infoColumns + ` FROM (%s) r ORDER BY updated_at DESC, id LIMIT $1`
	listRunsBranchSQL = `(SELECT * FROM runs WHERE %s ORDER BY updated_at DESC, id LIMIT $1)`
	checkpointsSQL    = `SELECT seq, node, outcome, coalesce(next_node, ''), data, note, worker, duration_ms, created_at
		FROM run_checkpoints WHERE run_id = $1::uuid ORDER BY seq`
)

// A claim: the lease of a run launched fresh, or taken over.

// claimColumns are what a claim reads of the run it takes.
const claimColumns = ` RETURNING kind, org_id, subject_id, next_node, data, answer`

// claimFreeSQL takes the lease of a running run that no worker holds (or
// this one does): the claim of a run launched fresh, in one statement.
// claimHeldSQL takes it over also from a lease that expired or an owner
// known dead ($4), and reads how far the run's history goes.
var (
	claimFreeSQL = runQueue.TakeSQL(claimColumns)
	claimHeldSQL = runQueue.TakeOverSQL(claimColumns + `, (SELECT coalesce(max(seq), 0) FROM run_checkpoints WHERE run_id = runs.id)`)
)

// asyncCommitSQL, first in a batch, lets the batch's implicit transaction
// commit without waiting for its WAL flush (set_config, not SET LOCAL, which
// warns outside an explicit transaction block).
const asyncCommitSQL = `SELECT set_config('synchronous_commit', 'off', true)`

// asyncCommitLocalSQL lets a takeover's transaction commit without waiting
// for its WAL flush.
const asyncCommitLocalSQL = `SET LOCAL synchronous_commit = off`

// leaseOwnerSQL reads who holds a run's lease (empty: no one).
const leaseOwnerSQL = `SELECT coalesce(lease_owner, '') FROM runs WHERE id = $1::uuid`

// answerRunSQL sets a paused run running again with the answer $2.
const answerRunSQL = `UPDATE runs SET state = 'running', answer = $2, question = NULL, updated_at = now()
			WHERE id = $1::uuid AND state = 'paused' RETURNING next_node, data`

// A step's outcome, written only while this worker ($2) holds the run's
// lease ($1 the run): the update of a fenced checkpoint, or fenced by
// Engine.fencedUpdate.

// advanceRunSQL moves a run this worker holds ($1 the run, $2 the worker)
// on to node $3 with state $4, renewing its lease for $5 seconds.
const advanceRunSQL = `UPDATE runs SET next_node = $3, data = $4, answer = NULL,
	lease_expires_at = now() + make_interval(secs => $5), updated_at = now() WHERE id = $1::uuid AND lease_owner = $2`

const (
	// recordRetrySQL keeps a node's transient error ($3) while the worker
	// waits out its backoff.
	recordRetrySQL = `UPDATE runs SET last_error = $3, updated_at = now()
			WHERE id = $1::uuid AND lease_owner = $2`
	// pauseRunSQL parks a run with its question ($3) and state ($4),
	// releasing the lease.
	pauseRunSQL = `UPDATE runs SET state = 'paused', question = $3, data = $4, answer = NULL,
			lease_owner = NULL, lease_expires_at = NULL, updated_at = now() WHERE id = $1::uuid AND lease_owner = $2`
	// finishRunSQL ends a run done, with its state ($3).
	finishRunSQL = `UPDATE runs SET state = 'done', next_node = NULL, data = $3, answer = NULL,
			last_error = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = now(), finished_at = now()
			WHERE id = $1::uuid AND lease_owner = $2`
	// failRunSQL ends a run failed, with its error ($3).
	failRunSQL = `UPDATE runs SET state = 'failed', next_node = NULL, last_error = $3,
			lease_owner = NULL, lease_expires_at = NULL, updated_at = now(), finished_at = now()
			WHERE id = $1::uuid AND lease_owner = $2`
)

// fencedCheckpointSQL writes the run row with a fenced update (the first
// %s) and, only when it wrote it, the checkpoint rows from the arrays of
// their nodes, outcomes, next nodes, states, notes and durations (the
// other %s, parameters); with no row written it divides by zero.
const fencedCheckpointSQL = `WITH run AS (%s RETURNING id),
		written AS (INSERT INTO run_checkpoints (run_id, seq, node, outcome, next_node, data, note, worker, duration_ms)
		SELECT run.id, (SELECT coalesce(max(seq), 0) FROM run_checkpoints WHERE run_id = $1::uuid) + c.ord,
		       c.node, c.outcome, NULLIF(c.next, ''), c.data::jsonb, c.note, $2, c.ms
		FROM run, unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::int[]) WITH ORDINALITY AS c(node, outcome, next, data, note, ms, ord)
		RETURNING 1)
		SELECT 1 / count(*) FROM written`

// insertCheckpointSQL appends one row to a run's history.
const insertCheckpointSQL = `INSERT INTO run_checkpoints (run_id, seq, node, outcome, next_node, data, note, worker, duration_ms)
		VALUES ($1::uuid, (SELECT coalesce(max(seq), 0) + 1 FROM run_checkpoints WHERE run_id = $1::uuid), $2, $3, NULLIF($4, ''), $5, $6, $7, $8)`

// takeoversAtNodeSQL counts a run's takeovers ($2: the note they start
// with) since its last step forward or an operator's retry ($3: the note
// a retry starts with).
const takeoversAtNodeSQL = `SELECT count(*) FROM run_checkpoints c WHERE c.run_id = $1::uuid AND c.outcome = 'resumed'
		AND c.note LIKE $2 || '%'
		AND c.seq > coalesce((SELECT max(seq) FROM run_checkpoints o WHERE o.run_id = $1::uuid
		                      AND (o.outcome = 'ok' OR o.outcome = 'resumed' AND o.note LIKE $3 || '%')), 0)`

// An operator's retry and abandon of a run (the run locked first).
const (
	lockRunStateSQL    = `SELECT state FROM runs WHERE id = $1::uuid AND org_id = $2 AND kind = $3 FOR UPDATE`
	lockRunInfoSQL     = `SELECT ` + infoColumns + ` FROM runs WHERE id = $1::uuid AND org_id = $2 AND kind = $3 FOR UPDATE`
	reopenFailedRunSQL = `UPDATE runs SET state = 'running', next_node = (SELECT node FROM run_checkpoints
				WHERE run_id = $1::uuid AND outcome = 'failed' ORDER BY seq DESC LIMIT 1),
				data = coalesce((SELECT data FROM run_checkpoints WHERE run_id = $1::uuid AND outcome = 'failed' ORDER BY seq DESC LIMIT 1), data),
				finished_at = NULL, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
			WHERE id = $1::uuid AND state = 'failed' RETURNING coalesce(next_node, ''), data`
	// lastNodeSQL is the node of a run's last checkpoint ('none': none).
	lastNodeSQL = `SELECT coalesce((SELECT node FROM run_checkpoints WHERE run_id = $1::uuid ORDER BY seq DESC LIMIT 1), 'none')`
)

var (
	// freeRunSQL frees the lease of a running run no live worker holds.
	freeRunSQL = `UPDATE runs r SET lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
			WHERE r.id = $1::uuid AND ` + heldByNoOne + ` RETURNING next_node, data`
	// abandonRunSQL marks failed, with the note $2, a running run no live
	// worker holds.
	abandonRunSQL = `UPDATE runs r SET state = 'failed', next_node = NULL, last_error = $2, lease_owner = NULL, lease_expires_at = NULL,
			updated_at = now(), finished_at = now() WHERE r.id = $1::uuid AND ` + heldByNoOne
)

// Statements are the SQL of a run's claim and of its last checkpoint, for
// the benchmark that runs a document's whole sequence through pgbench: the
// claim of a run launched fresh (AsyncCommit then ClaimFree, one batch),
// and the fenced statement that ends a run done with its checkpoint rows
// ($1 the run, $2 the worker, $3 its state, then the rows' nodes,
// outcomes, next nodes, states, notes and durations).
var Statements = struct {
	AsyncCommit, ClaimFree, Finish string
}{asyncCommitSQL, claimFreeSQL, fmt.Sprintf(fencedCheckpointSQL, finishRunSQL, "$4", "$5", "$6", "$7", "$8", "$9")}
