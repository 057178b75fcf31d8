package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/org"
	"greatbook/internal/runs"
)

// SyncBulkRetryMax is the most dead letters a confirmed bulk retry retries
// while the operator waits; more become a durable background run
// (BulkRetries), with progress on the page, that survives a restart.
const SyncBulkRetryMax = 100

// BulkRetryBatch is how many dead letters one step of a durable bulk retry
// retries before it checkpoints its position.
const BulkRetryBatch = 100

// bulkRetryKind is the kind of a durable bulk retry's run.
const bulkRetryKind = "bulk_retry"

// BulkRetryState is a durable bulk retry's checkpointed state: what it
// retries (the filter, in its run's org, the letters dead at Cutoff), how
// far it got (After, the keyset position: the highest job id handled) and
// its progress.
type BulkRetryState struct {
	Filter     DeadLetterFilter `json:"filter"`
	Cutoff     time.Time        `json:"cutoff"`
	Reason     string           `json:"reason"`
	ActorID    int64            `json:"actor_id"`
	ActorLabel string           `json:"actor_label"`
	After      int64            `json:"after"`
	Total      int              `json:"total"`
	Done       int              `json:"done"`
	Launched   int              `json:"launched"`
	Failed     int              `json:"failed"`
	Skipped    int              `json:"skipped"`
}

// BulkRetries runs durable bulk retries in the runs engine: each step
// retries a batch of dead letters and checkpoints its position, so that a
// restart resumes where the last checkpoint left off (ResumeAll).
type BulkRetries struct {
	Pool   *pgxpool.Pool
	Engine *runs.Engine
	Outbox *Outbox
	// Batch is how many letters a step retries (BulkRetryBatch when 0).
	Batch int
	graph runs.Graph[BulkRetryState]
}

// NewBulkRetries registers the bulk_retry graph with engine.
func NewBulkRetries(pool *pgxpool.Pool, engine *runs.Engine, outbox *Outbox) *BulkRetries {
	b := &BulkRetries{Pool: pool, Engine: engine, Outbox: outbox}
	b.graph = runs.Graph[BulkRetryState]{Kind: bulkRetryKind, Start: "retry",
		Nodes: map[string]runs.NodeFunc[BulkRetryState]{"retry": b.step}}
	runs.Register(engine, b.graph)
	return b
}

// trigger is what the run's retries record as their attempts' trigger: it
// names the run, so that a batch run again after a crash skips the letters
// this run retried already.
func (s BulkRetryState) trigger(runID string) string {
	return "operator: " + s.reason(runID)
}

func (s BulkRetryState) reason(runID string) string {
	return fmt.Sprintf("%s (bulk retry %s)", s.Reason, runID)
}

// Start checks that the filter still matches the very set the operator
// confirmed (as RetryMatchingIn does), then starts one durable run per org
// of that set, and returns their ids. The set is frozen: a run retries the
// letters dead when it starts, each at most once, however often it is
// resumed.
func (b *BulkRetries) Start(ctx context.Context, scope org.Scope, f DeadLetterFilter, reason string, confirmed DryRun, actor audit.Actor) ([]string, error) {
	if err := audit.CheckReason(reason); err != nil {
		return nil, err
	}
	ctx = context.WithoutCancel(ctx)
	var cutoff time.Time
	if err := b.Pool.QueryRow(ctx, nowSQL).Scan(&cutoff); err != nil {
		return nil, fmt.Errorf("jobs: bulk retry: %w", err)
	}
	list, _, err := deadLetters(ctx, b.Pool, scope, f, DeadLetterCursor{}, 0)
	if err != nil {
		return nil, err
	}
	jobs := make([]Job, 0, len(list))
	perOrg := map[int64]int{}
	for _, dl := range list {
		jobs = append(jobs, dl.Job)
		perOrg[dl.OrgID]++
	}
	if err := jobQueue.Confirm(confirmed, dryRunOf(jobs)); err != nil {
		return nil, err
	}
	ids, err := database.WithTxV(ctx, b.Pool, func(tx pgx.Tx) ([]string, error) {
		var ids []string
		for orgID, n := range perOrg {
			st := BulkRetryState{Filter: f, Cutoff: cutoff, Reason: reason, ActorID: actor.UserID, ActorLabel: actor.Label, Total: n}
			id, err := runs.Create(ctx, tx, b.graph, orgID, 0, st)
			if err != nil {
				return nil, err
			}
			if err := audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "bulk_retry",
				Detail: map[string]any{"reason": reason, "matched": n, "filter": f, "run_id": id}}); err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, nil
	})
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		// A launch refused (every worker busy) is not lost: the run exists
		// and the resume pass starts it.
		_ = b.Engine.LaunchContext(ctx, id)
	}
	return ids, nil
}

// step retries the next batch of the run's letters, in job id order after
// its position, skipping any this run retried already (a batch run again
// after a crash), and checkpoints the new position with the progress.
func (b *BulkRetries) step(ctx context.Context, r *runs.Run[BulkRetryState]) (runs.Step, error) {
	st := &r.State
	batch := b.Batch
	if batch <= 0 {
		batch = BulkRetryBatch
	}
	where, args, err := st.Filter.where(org.Only(r.OrgID))
	if err != nil {
		return runs.Step{}, err
	}
	n := len(args)
	args = append(args, st.Cutoff, st.After, st.trigger(r.ID), batch)
	rows, err := b.Pool.Query(ctx, fmt.Sprintf(bulkRetryBatchSQL, where, n+1, n+2, n+3, n+4), args...)
	if err != nil {
		return runs.Step{}, fmt.Errorf("jobs: bulk retry: next batch: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return runs.Step{}, fmt.Errorf("jobs: bulk retry: next batch: %w", err)
	}
	actor := audit.Actor{UserID: st.ActorID, Label: st.ActorLabel}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return runs.Step{}, err // stopping: the batch resumes from the last checkpoint
		}
		out, err := b.Outbox.Retry(ctx, r.OrgID, id, st.reason(r.ID), actor)
		switch {
		case apperr.Is(err, apperr.InvalidState), apperr.Is(err, apperr.NotFound):
			st.Skipped++
		case err != nil:
			return runs.Step{}, err
		case out.Outcome == "launched":
			st.Launched++
		default:
			st.Failed++
		}
		st.Done++
		st.After = id
	}
	note := fmt.Sprintf("%d of %d retried", st.Done, st.Total)
	if len(ids) < batch {
		st.Done = st.Total // letters revived meanwhile by someone else are done too
		return runs.Step{Note: note}, nil
	}
	return runs.Step{Next: "retry", Note: note}, nil
}

// BulkRetryProgress is a durable bulk retry as the dead-letter page shows it.
type BulkRetryProgress struct {
	RunID  string
	OrgID  int64
	Status runs.Status
	BulkRetryState
}

// BulkRetryRuns lists the durable bulk retries of a scope, the most
// recently changed first.
func BulkRetryRuns(ctx context.Context, q database.Executor, scope org.Scope) ([]BulkRetryProgress, error) {
	infos, err := runs.ListIn(ctx, q, scope, runs.ListFilter{Kind: bulkRetryKind, Limit: 10})
	if err != nil {
		return nil, err
	}
	out := make([]BulkRetryProgress, 0, len(infos))
	for _, i := range infos {
		p := BulkRetryProgress{RunID: i.ID, OrgID: i.OrgID, Status: i.Status}
		if err := json.Unmarshal(i.Data, &p.BulkRetryState); err != nil {
			return nil, fmt.Errorf("jobs: bulk retry %s: %w", i.ID, err)
		}
		out = append(out, p)
	}
	return out, nil
}
