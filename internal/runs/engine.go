package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/failpoint"
	"greatbook/internal/queue"
	"greatbook/internal/retry"
	"greatbook/internal/storable"
)

// Engine executes runs: on demand (Execute), or in the background by a
// fixed number of workers fed through Launch.
type Engine struct {
	// pool is concrete, not a database.Executor: the workers and each
	// run's lease heartbeat use it from goroutines the engine starts, and a
	// run's checkpoints commit on their own, never inside a caller's
	// transaction.
	pool   *pgxpool.Pool
	owner  string
	log    *slog.Logger
	graphs map[string]executor

	// LeaseTTL is how long a lease lasts without renewal.
	LeaseTTL time.Duration
	// Retry bounds the retries of a node's transient errors.
	Retry retry.Policy
	// MaxTakeovers bounds how often a run is taken over from a dead worker
	// at one node without getting past it; then the run fails (a node that
	// kills its worker, by running out of memory say, must not do so for
	// ever, resumed after every restart).
	MaxTakeovers int

	// LaunchWait bounds how long Launch waits for a slot in a full queue
	// before it gives up with ErrLaunchQueueFull.
	LaunchWait time.Duration

	mu        sync.Mutex
	queueSize int
	launches  chan string
	running   bool
	stopped   <-chan struct{}
	wg        sync.WaitGroup

	// executing holds the runs this engine is executing now, each with a
	// channel closed when it stops: a lease is per engine, so two of its
	// goroutines must not both execute a run.
	executing sync.Map

	nodeNanos       atomic.Int64
	checkpointNanos atomic.Int64
	steps           atomic.Int64
	launchesWaited  atomic.Int64
}

// Stats are an engine's cumulative timings: how long nodes ran, and how long
// writing their checkpoints (and the commits that joined them) took; and
// how many launches found the queue full and waited for a slot.
type Stats struct {
	Steps          int64
	Nodes          time.Duration
	Checkpoints    time.Duration
	LaunchesWaited int64
}

// Stats returns the engine's cumulative timings.
func (e *Engine) Stats() Stats {
	return Stats{Steps: e.steps.Load(), Nodes: time.Duration(e.nodeNanos.Load()), Checkpoints: time.Duration(e.checkpointNanos.Load()),
		LaunchesWaited: e.launchesWaited.Load()}
}

// Options configure an Engine.
type Options struct {
	Logger   *slog.Logger
	LeaseTTL time.Duration
	// QueueSize bounds launched runs waiting for a worker; 0 means
	// DefaultQueuePerWorker per worker. A small queue is the back-pressure
	// that keeps launching (approving) from outrunning the workers: a
	// launch waits for a slot instead of piling up work whose latency
	// only grows.
	QueueSize int
	// LaunchWait bounds how long a launch waits for a slot in a full
	// queue; 0 means DefaultLaunchWait.
	LaunchWait time.Duration
}

// The defaults of Options.
const (
	DefaultQueuePerWorker = 2
	DefaultLaunchWait     = 2 * time.Second
)

// ErrLaunchQueueFull is a launch refused because every worker stayed busy
// and the queue full for as long as the launch could wait: transient, the
// run stays in the database and the resume pass (or the sweep) launches it
// later.
var ErrLaunchQueueFull = retry.MarkTransient(errors.New("runs: launch queue is full"), 0)

// ErrNotStarted is a launch on an engine whose workers are not running.
var ErrNotStarted = retry.MarkTransient(errors.New("runs: the engine's workers are not running"), 0)

// DefaultMaxTakeovers is Engine.MaxTakeovers unless set.
const DefaultMaxTakeovers = 3

// ErrLeaseLost stops a worker whose lease another worker took over.
var ErrLeaseLost = errors.New("runs: lease lost to another worker")

// NewEngine returns an engine; Register graphs, then Start the workers.
func NewEngine(pool *pgxpool.Pool, opts Options) *Engine {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.LeaseTTL == 0 {
		opts.LeaseTTL = 30 * time.Second
	}
	if opts.LaunchWait == 0 {
		opts.LaunchWait = DefaultLaunchWait
	}
	return &Engine{pool: pool, owner: newOwner(), log: opts.Logger, graphs: map[string]executor{},
		LeaseTTL: opts.LeaseTTL, Retry: retry.Default, MaxTakeovers: DefaultMaxTakeovers, LaunchWait: opts.LaunchWait, queueSize: opts.QueueSize}
}

// Owner is this engine's lease owner id.
func (e *Engine) Owner() string { return e.owner }

// Register adds a graph to e.
func Register[S any](e *Engine, g Graph[S]) {
	e.graphs[g.Kind] = graphExecutor[S]{g: g}
}

// Start runs workers until ctx is done; Wait waits for them.
func (e *Engine) Start(ctx context.Context, workers int) {
	size := e.queueSize
	if size <= 0 {
		size = DefaultQueuePerWorker * max(workers, 1)
	}
	launches := make(chan string, size)
	e.mu.Lock()
	e.running, e.launches, e.stopped = true, launches, ctx.Done()
	e.mu.Unlock()
	for range workers {
		e.wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case id := <-launches:
					e.executeThroughOutages(ctx, id)
				}
			}
		})
	}
	e.wg.Go(func() {
		<-ctx.Done()
		e.mu.Lock()
		e.running = false
		e.mu.Unlock()
	})
}

// executeThroughOutages executes a run and, when it stopped because the
// database could not be reached, executes it again once the database
// answers, backing off up to a bound, instead of leaving it to the resume
// pass after its lease expires. A worker that waits for the database holds
// no other run back: none could make progress without it.
func (e *Engine) executeThroughOutages(ctx context.Context, id string) {
	wait := outageBackoff
	for {
		err := e.execute(ctx, id, false)
		if err == nil || ctx.Err() != nil {
			return
		}
		if !database.IsUnavailable(err) {
			e.log.Warn("run stopped", "run_id", id, "error", err)
			return
		}
		e.log.Warn("run stopped: the database is unavailable; trying it again", "run_id", id, "in", wait, "error", err)
		if retry.SleepContext(ctx, wait) != nil {
			return
		}
		wait = min(2*wait, maxOutageBackoff)
	}
}

// The waits of a worker whose run met a database outage.
const (
	outageBackoff    = 100 * time.Millisecond
	maxOutageBackoff = 5 * time.Second
)

// Wait blocks until the workers (and every goroutine Start started) have
// stopped.
func (e *Engine) Wait() { e.wg.Wait() }

// Launch hands a run to the workers; see LaunchContext.
func (e *Engine) Launch(runID string) error { return e.LaunchContext(context.Background(), runID) }

// LaunchContext hands a run to the workers. When the queue is full it
// waits for a slot, until ctx is done or LaunchWait has passed: a burst of
// launches is held back to the pace of the workers rather than queued
// without bound. It fails, and says why, when the run cannot be handed
// over (ErrLaunchQueueFull once the wait is over); the run stays in the
// database either way.
func (e *Engine) LaunchContext(ctx context.Context, runID string) error {
	if err := failpoint.Inject("runs/launch"); err != nil {
		return err
	}
	e.mu.Lock()
	running, launches, stopped := e.running, e.launches, e.stopped
	e.mu.Unlock()
	if !running {
		return ErrNotStarted
	}
	select {
	case launches <- runID:
		return nil
	default:
	}
	e.launchesWaited.Add(1)
	wait := time.NewTimer(e.LaunchWait)
	defer wait.Stop()
	select {
	case launches <- runID:
		return nil
	case <-stopped:
		return ErrNotStarted
	case <-ctx.Done():
		return ErrLaunchQueueFull
	case <-wait.C:
		return ErrLaunchQueueFull
	}
}

// ResumeAll launches every running run that no live worker holds: after a
// restart, and periodically so that expired leases are taken over. Paused
// runs wait for their answer. It returns how many it launched.
func (e *Engine) ResumeAll(ctx context.Context) (int, error) {
	held, err := runQueue.Unheld(ctx, e.pool, e.owner)
	if err != nil {
		return 0, fmt.Errorf("runs: %w", err)
	}
	n := 0
	for _, h := range held {
		if h.Live(ownerDead) {
			continue // a live worker holds it
		}
		if err := e.LaunchContext(ctx, h.Key); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Answer answers the question a paused run asked and launches it again.
func (e *Engine) Answer(ctx context.Context, runID string, answer any, actor string) error {
	data, err := json.Marshal(answer)
	if err != nil {
		return fmt.Errorf("runs: encode answer: %w", err)
	}
	err = database.WithTx(ctx, e.pool, func(tx pgx.Tx) error {
		var node string
		var state []byte
		err := tx.QueryRow(ctx, answerRunSQL, runID, data).Scan(&node, &state)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.New(apperr.InvalidState, "run %s is not waiting for an answer", runID)
		}
		if err != nil {
			return fmt.Errorf("runs: answer %s: %w", runID, err)
		}
		return insertCheckpoint(ctx, tx, runID, node, "resumed", node, state, "answered by "+actor, actor, 0)
	})
	if err != nil {
		return err
	}
	if err := e.LaunchContext(ctx, runID); err != nil {
		e.log.Warn("answered run not launched; the next resume pass will", "run_id", runID, "error", err)
	}
	return nil
}

// claim is a run this worker holds the lease of.
type claim struct {
	id, kind, node   string
	orgID, subjectID int64
	data, answer     []byte
	seq              int
	takenFrom        string
}

// Execute runs a run to its end, its next pause, or its failure, here and
// now. When another goroutine of this engine is executing it (a worker
// handed it by a launch), Execute waits for that one to stop and then
// executes what is left, so a caller that executes what it just ingested
// finds it filed. It does nothing when the run is not running or another
// live worker holds it, nor when called from the run's own node.
func (e *Engine) Execute(ctx context.Context, runID string) error {
	return e.execute(ctx, runID, true)
}

// executingKey marks the context of a run's own execution, so that the run
// asking to execute itself does not wait for itself.
type executingKey string

// execute is Execute; a worker does not wait for a run another goroutine
// executes (wait false): it has others to take.
func (e *Engine) execute(ctx context.Context, runID string, wait bool) error {
	stopped := make(chan struct{})
	for {
		other, busy := e.executing.LoadOrStore(runID, stopped)
		if !busy {
			break
		}
		if !wait || ctx.Value(executingKey(runID)) != nil {
			return nil
		}
		select {
		case <-other.(chan struct{}):
			// It stopped: a finished run is not claimed again; one
			// it left running (an outage, a lost lease) is ours.
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() {
		e.executing.Delete(runID)
		close(stopped)
	}()
	ctx = context.WithValue(ctx, executingKey(runID), true)
	c, ok, err := e.claim(ctx, runID)
	if err != nil || !ok {
		return err
	}
	x, found := e.graphs[c.kind]
	if !found {
		e.release(ctx, c.id)
		return fmt.Errorf("runs: no graph registered for kind %q", c.kind)
	}
	return x.execute(ctx, e, c)
}

func (e *Engine) claim(ctx context.Context, runID string) (claim, bool, error) {
	// The common case, a run nobody holds, is one round trip: the lease is
	// taken by the statement that reads the run. A claim lost in a database
	// crash costs nothing (the worker's next fenced write fails and the run
	// is resumed), so it does not wait for its WAL flush. A batch runs as one
	// implicit transaction.
	b := &pgx.Batch{}
	b.Queue(asyncCommitSQL)
	c := claim{id: runID}
	b.Queue(claimFreeSQL, runID, e.owner, e.LeaseTTL.Seconds()).QueryRow(func(row pgx.Row) error {
		return row.Scan(&c.kind, &c.orgID, &c.subjectID, &c.node, &c.data, &c.answer)
	})
	err := e.pool.SendBatch(ctx, b).Close()
	if err == nil {
		return c, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return claim{}, false, fmt.Errorf("runs: claim %s: %w", runID, err)
	}
	return e.claimHeld(ctx, runID)
}

// claimHeld claims a run another worker holds, or held: it takes the lease
// over when it expired or its owner died, and says from whom.
func (e *Engine) claimHeld(ctx context.Context, runID string) (claim, bool, error) {
	var current string
	err := e.pool.QueryRow(ctx, leaseOwnerSQL, runID).Scan(&current)
	if errors.Is(err, pgx.ErrNoRows) {
		return claim{}, false, apperr.New(apperr.NotFound, "no run %s", runID)
	}
	if err != nil {
		return claim{}, false, fmt.Errorf("runs: claim %s: %w", runID, err)
	}
	dead := ""
	if current != "" && current != e.owner && ownerDead(current) {
		dead = current
	}
	c := claim{id: runID}
	err = database.WithTx(ctx, e.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, asyncCommitLocalSQL); err != nil {
			return err
		}
		return tx.QueryRow(ctx, claimHeldSQL, runID, e.owner, e.LeaseTTL.Seconds(), dead).
			Scan(&c.kind, &c.orgID, &c.subjectID, &c.node, &c.data, &c.answer, &c.seq)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return claim{}, false, nil
	}
	if err != nil {
		return claim{}, false, fmt.Errorf("runs: claim %s: %w", runID, err)
	}
	if current != "" && current != e.owner {
		c.takenFrom = current
	}
	return c, true, nil
}

// release gives the lease up so that another worker need not wait for it.
func (e *Engine) release(ctx context.Context, runID string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = runQueue.Release(ctx, e.pool, runID, e.owner)
}

// heartbeat renews the lease until stop; when the lease is lost it cancels
// the node's context so the worker stops.
func (e *Engine) heartbeat(ctx context.Context, runID string, lost context.CancelCauseFunc) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(max(e.LeaseTTL/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				held, err := runQueue.Renew(ctx, e.pool, runID, e.owner, e.LeaseTTL)
				if err == nil && !held {
					lost(ErrLeaseLost)
					return
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// fencedUpdate writes the run row only while this worker holds the lease.
func (e *Engine) fencedUpdate(ctx context.Context, tx pgx.Tx, runID, sql string, args ...any) error {
	tag, err := tx.Exec(ctx, sql, append([]any{runID, e.owner}, args...)...)
	if err != nil {
		return fmt.Errorf("runs: checkpoint %s: %w", runID, err)
	}
	if tag.RowsAffected() == 0 {
		return ErrLeaseLost
	}
	return nil
}

func insertCheckpoint(ctx context.Context, tx pgx.Tx, runID, node, outcome, next string, data []byte, note, worker string, ms int) error {
	_, err := tx.Exec(ctx, insertCheckpointSQL, runID, node, outcome, next, data, note, worker, ms)
	if err != nil {
		return fmt.Errorf("runs: checkpoint %s: %w", runID, err)
	}
	return nil
}

type executor interface {
	execute(ctx context.Context, e *Engine, c claim) error
}

type graphExecutor[S any] struct{ g Graph[S] }

func (x graphExecutor[S]) execute(parent context.Context, e *Engine, c claim) error {
	ctx, lost := context.WithCancelCause(parent)
	defer lost(nil)
	stopHeartbeat := e.heartbeat(ctx, c.id, lost)
	defer stopHeartbeat()

	kind := x.g.Kind
	saved := c.data // the state as of the last checkpoint
	r := &Run[S]{ID: c.id, OrgID: c.orgID, SubjectID: c.subjectID, Node: c.node, Answer: c.answer}
	if err := json.Unmarshal(saved, &r.State); err != nil {
		return fmt.Errorf("runs: decode state of %s: %w", c.id, err)
	}
	if c.takenFrom != "" {
		if resume, err := x.takeOver(ctx, e, r, saved, c.takenFrom); !resume {
			return err
		}
	}
	attempts := 0
	// chained are the checkpoint rows of nodes that ran with Step.Chain
	// and are not written yet; saved is then the state they left.
	var chained []checkpointRow
	for {
		node, ok := x.g.Nodes[r.Node]
		if !ok {
			return x.fail(ctx, e, r, saved, retry.MarkPermanent(fmt.Errorf("runs: %s has no node %q", kind, r.Node)), 0)
		}
		if err := failpoint.Inject("runs/" + kind + "/before/" + r.Node); err != nil {
			return err
		}
		start := time.Now()
		step, err := node(ctx, r)
		elapsed := time.Since(start)
		e.nodeNanos.Add(int64(elapsed))
		ms := int(elapsed.Milliseconds())
		if cause := context.Cause(ctx); cause != nil {
			// Shutting down, or the lease was lost: leave the run to the
			// next worker without writing anything.
			if !errors.Is(cause, ErrLeaseLost) {
				e.release(ctx, c.id)
			}
			return cause
		}
		if err != nil {
			if err := x.writeChained(ctx, e, r, &chained, saved); err != nil {
				return err
			}
			attempts++
			if v := queue.Decide(e.Retry, attempts, err); !v.Dead {
				if err := x.retryNode(ctx, e, r, saved, err, attempts, v.Wait, ms); err != nil {
					return err
				}
				continue
			}
			return x.fail(ctx, e, r, saved, err, ms)
		}
		attempts = 0
		data, err := json.Marshal(r.State)
		if err != nil {
			return fmt.Errorf("runs: encode state of %s: %w", c.id, err)
		}
		if step.Pause != nil {
			if err := x.writeChained(ctx, e, r, &chained, saved); err != nil {
				return err
			}
			return x.pause(ctx, e, r, step.Pause, data, ms)
		}
		recorded, err := x.history(r.State, data)
		if err != nil {
			return fmt.Errorf("runs: encode state of %s: %w", c.id, err)
		}
		row := checkpointRow{node: r.Node, outcome: "ok", next: step.Next, data: recorded, note: step.Note, ms: ms}
		if step.Chain && step.Commit == nil && step.CommitBatched == nil && step.Next != "" {
			chained = append(chained, row)
			e.steps.Add(1)
			if err := failpoint.Inject("runs/" + kind + "/after/" + r.Node); err != nil {
				return err
			}
			saved = data
			r.Node, r.Answer = step.Next, nil
			continue
		}
		checkpointStart := time.Now()
		err = x.checkpoint(ctx, e, r, step, append(chained, row), data)
		e.checkpointNanos.Add(int64(time.Since(checkpointStart)))
		e.steps.Add(1)
		if err != nil {
			if errors.Is(err, ErrLeaseLost) || context.Cause(ctx) != nil {
				return err
			}
			// The commit failed: treat it like the node failing.
			attempts++
			if !queue.Decide(e.Retry, attempts, err).Dead {
				_ = restore(saved, &r.State)
				continue
			}
			if err := x.writeChained(ctx, e, r, &chained, saved); err != nil {
				return err
			}
			return x.fail(ctx, e, r, saved, err, ms)
		}
		chained = nil
		if err := failpoint.Inject("runs/" + kind + "/after/" + r.Node); err != nil {
			return err
		}
		saved = data
		if step.Next == "" {
			return nil
		}
		r.Node, r.Answer = step.Next, nil
	}
}

// takeOver records that this worker resumes r from the dead worker takenFrom, and fails the run
// instead when its node has been taken over too often (a node that kills its worker). resume is
// false when execute must stop and return err.
func (x graphExecutor[S]) takeOver(ctx context.Context, e *Engine, r *Run[S], saved []byte, takenFrom string) (resume bool, err error) {
	if err := database.WithTx(ctx, e.pool, func(tx pgx.Tx) error {
		return insertCheckpoint(ctx, tx, r.ID, r.Node, "resumed", r.Node, saved, TakenOverNote+takenFrom, e.owner, 0)
	}); err != nil {
		return false, err
	}
	n, err := takeoversAtNode(ctx, e.pool, r.ID)
	if err != nil {
		return false, err
	}
	if n > max(e.MaxTakeovers, 1) {
		return false, x.fail(ctx, e, r, saved, retry.MarkPermanent(fmt.Errorf(
			"runs: node %s was taken over %d times from a worker that died without getting past it; not resumed again", r.Node, n-1)), 0)
	}
	return true, nil
}

// retryNode records the transient failure of r's node (attempt number attempts), waits out the
// backoff (wait, the queue's Decide) and puts back the state as of the last checkpoint, so that the
// loop can run the node again. The worker keeps the lease while it waits.
func (x graphExecutor[S]) retryNode(ctx context.Context, e *Engine, r *Run[S], saved []byte, cause error, attempts int, wait time.Duration, ms int) error {
	note := storable.Clean(fmt.Sprintf("attempt %d failed (%v); retrying in %s", attempts, cause, wait.Round(time.Millisecond)), storable.MaxMessage)
	if err := database.WithTx(ctx, e.pool, func(tx pgx.Tx) error {
		if err := e.fencedUpdate(ctx, tx, r.ID, recordRetrySQL, storable.Message(cause)); err != nil {
			return err
		}
		return insertCheckpoint(ctx, tx, r.ID, r.Node, "retry", r.Node, saved, note, e.owner, ms)
	}); err != nil {
		return err
	}
	if err := e.Retry.Wait(ctx, wait); err != nil {
		e.release(ctx, r.ID)
		return err
	}
	return restore(saved, &r.State) // undo the failed node's changes
}

// pause parks r at its node with the question for a person, releasing the lease; data is the state
// the node left.
func (x graphExecutor[S]) pause(ctx context.Context, e *Engine, r *Run[S], question *Question, data []byte, ms int) error {
	q, _ := json.Marshal(question)
	return database.WithTx(ctx, e.pool, func(tx pgx.Tx) error {
		if err := e.fencedUpdate(ctx, tx, r.ID, pauseRunSQL, q, data); err != nil {
			return err
		}
		return insertCheckpoint(ctx, tx, r.ID, r.Node, "paused", r.Node, data, question.Prompt, e.owner, ms)
	})
}

// checkpointRow is one row of a run's history a checkpoint writes.
type checkpointRow struct {
	node, outcome, next string
	data                []byte
	note                string
	ms                  int
}

// writeChained writes the checkpoint rows of the chained nodes that ran
// before r's current node, and moves the run to that node with saved, the
// state they left, so that a retry, a pause or a failure of the current
// node is recorded after them. Nothing is written when nothing is chained.
func (x graphExecutor[S]) writeChained(ctx context.Context, e *Engine, r *Run[S], chained *[]checkpointRow, saved []byte) error {
	if len(*chained) == 0 {
		return nil
	}
	sql, args := e.fencedCheckpoint(r.ID, advanceRunSQL, []any{r.Node, saved, e.LeaseTTL.Seconds()}, *chained)
	b := &pgx.Batch{}
	b.Queue(sql, args...).QueryRow(scanFenced)
	if err := e.pool.SendBatch(ctx, b).Close(); err != nil {
		return checkpointError(r.ID, err)
	}
	*chained = nil
	return nil
}

// checkpoint commits a finished node in one transaction: the step's own effects, then the run's next
// node (or its end) and state (data, the whole state) with the checkpoint rows (those of the chained
// nodes before it, then its own, the last of rows), in one fenced statement. A run that ends keeps the
// state its last row records. A step without effects is that one statement, one round trip.
func (x graphExecutor[S]) checkpoint(ctx context.Context, e *Engine, r *Run[S], step Step, rows []checkpointRow, data []byte) error {
	var sql string
	var args []any
	if step.Next == "" {
		sql, args = e.fencedCheckpoint(r.ID, finishRunSQL, []any{rows[len(rows)-1].data}, rows)
	} else {
		sql, args = e.fencedCheckpoint(r.ID, advanceRunSQL, []any{step.Next, data, e.LeaseTTL.Seconds()}, rows)
	}
	switch {
	case step.CommitBatched != nil:
		return e.commitBatched(ctx, r.ID, step.CommitBatched, sql, args)
	case step.Commit == nil:
		b := &pgx.Batch{}
		if step.Next != "" {
			// A checkpoint between pure nodes need not wait for its WAL
			// flush: if the database itself crashed and lost it, the run
			// would resume from the one before and recompute the same
			// state. Effects, pauses, failures and ends stay synchronous.
			b.Queue(asyncCommitSQL)
		}
		b.Queue(sql, args...).QueryRow(scanFenced)
		if err := e.pool.SendBatch(ctx, b).Close(); err != nil {
			return checkpointError(r.ID, err)
		}
		return nil
	}
	return database.WithTx(ctx, e.pool, func(tx pgx.Tx) error {
		if err := step.Commit(ctx, tx); err != nil {
			return err
		}
		if err := scanFenced(tx.QueryRow(ctx, sql, args...)); err != nil {
			return checkpointError(r.ID, err)
		}
		return nil
	})
}

// fencedCheckpoint is one statement that writes the run row with update (whose $1 is the run, $2 this
// worker, $3... updateArgs) only while this worker holds the lease, and the checkpoint rows only when it
// did. When the lease was lost it writes nothing and fails (a division by zero, which scanFenced reads
// as ErrLeaseLost), so that a transaction it is part of cannot commit, even with its commit
// pipelined behind it.
func (e *Engine) fencedCheckpoint(runID, update string, updateArgs []any, rows []checkpointRow) (string, []any) {
	args := append([]any{runID, e.owner}, updateArgs...)
	p := func(v any) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) }
	var nodes, outcomes, nexts, data, notes []string
	var ms []int32
	for _, r := range rows {
		nodes, outcomes, nexts, notes = append(nodes, r.node), append(outcomes, r.outcome), append(nexts, r.next), append(notes, r.note)
		data, ms = append(data, string(r.data)), append(ms, int32(min(r.ms, 1<<31-1)))
	}
	sql := fmt.Sprintf(fencedCheckpointSQL, update, p(nodes), p(outcomes), p(nexts), p(data), p(notes), p(ms))
	return sql, args
}

// checkpointError is what a failed checkpoint of run runID returns: a
// lost lease as ErrLeaseLost itself, anything else wrapped.
func checkpointError(runID string, err error) error {
	if errors.Is(err, ErrLeaseLost) {
		return err
	}
	return fmt.Errorf("runs: checkpoint %s: %w", runID, err)
}

// scanFenced reads a fencedCheckpoint statement's outcome.
func scanFenced(row pgx.Row) error {
	var one int64
	err := row.Scan(&one)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == divisionByZero {
		return ErrLeaseLost
	}
	return err
}

// divisionByZero is the SQLSTATE a fenced checkpoint fails with when the
// lease was lost.
const divisionByZero = "22012"

// TakenOverNote starts the note of the checkpoint a run's takeover from a
// dead worker writes; the stranded-work check counts them by it.
const TakenOverNote = "taken over from "

// takeoversAtNode counts the takeovers of a run since its last step forward
// or an operator's retry.
func takeoversAtNode(ctx context.Context, q database.Executor, runID string) (int, error) {
	var n int
	err := q.QueryRow(ctx, takeoversAtNodeSQL, runID, TakenOverNote, RetriedNote).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("runs: count takeovers of %s: %w", runID, err)
	}
	return n, nil
}

// fail marks a run failed, and lets the graph record the failure on its
// subject in the same transaction. When the graph cannot record it (its
// OnFail fails too), the run is still marked failed, with both errors, so
// that it never stays running to fail the same way on every resume: a
// failed run whose subject was not told is what the stranded-work check
// shows an operator.
func (x graphExecutor[S]) fail(ctx context.Context, e *Engine, r *Run[S], saved []byte, cause error, ms int) error {
	e.log.Warn("run failed", "run_id", r.ID, "kind", x.g.Kind, "node", r.Node, "error", cause)
	mark := func(tx pgx.Tx, cause error) error {
		if err := e.fencedUpdate(ctx, tx, r.ID, failRunSQL, storable.Message(cause)); err != nil {
			return err
		}
		return insertCheckpoint(ctx, tx, r.ID, r.Node, "failed", "", saved,
			storable.Clean(fmt.Sprintf("%s error: %v", retry.ClassOf(cause), cause), storable.MaxMessage), e.owner, ms)
	}
	err := database.WithTx(ctx, e.pool, func(tx pgx.Tx) error {
		if err := restore(saved, &r.State); err != nil {
			return err
		}
		if x.g.OnFail != nil {
			if err := x.g.OnFail(ctx, tx, r, cause); err != nil {
				return err
			}
		}
		return mark(tx, cause)
	})
	if err == nil || x.g.OnFail == nil || errors.Is(err, ErrLeaseLost) || context.Cause(ctx) != nil || retry.IsTransient(err) {
		return err
	}
	e.log.Error("run failed, and recording the failure on its subject failed too", "run_id", r.ID, "kind", x.g.Kind, "error", err)
	return database.WithTx(ctx, e.pool, func(tx pgx.Tx) error {
		return mark(tx, fmt.Errorf("%w (and recording the failure failed: %v)", cause, err))
	})
}

// history is what a checkpoint row records of state, whose whole encoding
// is data (see Graph.History).
func (x graphExecutor[S]) history(state S, data []byte) ([]byte, error) {
	if x.g.History == nil {
		return data, nil
	}
	return json.Marshal(x.g.History(state))
}

// restore sets state to the one saved at the last checkpoint. It decodes into
// a zero value: decoding into the state a failed node changed would keep
// every field the saved JSON omits.
func restore[S any](saved []byte, state *S) error {
	var fresh S
	if err := json.Unmarshal(saved, &fresh); err != nil {
		return err
	}
	*state = fresh
	return nil
}

// Lease owners are "host|pid|process start time|random|pid scope" (see
// pidScope). An owner in this pid scope whose process no longer runs (or
// runs another program under a reused pid) is dead, and its leases are taken
// over without waiting for expiry.
func newOwner() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s|%d|%s|%s|%s", host, os.Getpid(), processStart(os.Getpid()), hex.EncodeToString(b), pidScope())
}

func ownerDead(owner string) bool {
	parts := strings.Split(owner, "|")
	if len(parts) != 4 && len(parts) != 5 {
		return false
	}
	host, _ := os.Hostname()
	if parts[0] != host {
		return false // another machine: only expiry tells
	}
	if len(parts) == 5 && (parts[4] == "" || parts[4] != pidScope()) {
		return false // another container or boot of this host: its pids are not ours to look up
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil {
		return false
	}
	return processStart(pid) != parts[2]
}

// processStart returns a process's start time in clock ticks since boot
// (field 22 of /proc/PID/stat), or "" when there is no such process.
func processStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 20 {
		return ""
	}
	return f[19]
}
