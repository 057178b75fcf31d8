// Package runs executes durable runs: small graphs of nodes whose state is
// checkpointed in PostgreSQL after every node, so that a run survives a
// crash or a restart and continues from its last checkpoint. A run is
// executed by one worker at a time, whatever the number of processes: the
// worker holds a lease, renews it while it works, and writes a checkpoint
// only while it still holds it. A lease that expires, or whose owner on this
// machine has died, is taken over. A run may pause with a question for a
// person; it waits, across restarts, until the question is answered.
//
// The lease (take, take over, renew, release), the choice between running
// a failed node again after a backoff and failing the run (a dead letter),
// and the resume pass's candidates are the background-work queue's
// (internal/queue), through a description of the runs table. A run is not
// claimed, backed off or revived as a queue's row: it is handed to a
// worker by its id, retries a node within one execution from the state of
// its last checkpoint, and is reopened at the node it failed at (Reopen);
// the queue's package doc says why.
package runs

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/org"
	"greatbook/internal/storable"
)

// Status is where a run stands.
type Status string

// The statuses of a run.
const (
	Running Status = "running"
	Paused  Status = "paused"
	Done    Status = "done"
	Failed  Status = "failed"
)

// Question is what a paused run asks a person.
type Question struct {
	Kind   string         `json:"kind"`
	Prompt string         `json:"prompt"`
	Data   map[string]any `json:"data,omitempty"`
}

// Step is what a node decided.
type Step struct {
	// Next is the node to run next; "" ends the run.
	Next string
	// Pause, when set, pauses the run at this node with a question; the
	// node runs again, with the answer, once the question is answered.
	Pause *Question
	// Commit, when set, runs inside the transaction that writes the
	// checkpoint: the node's effect and its checkpoint commit together.
	Commit func(ctx context.Context, tx pgx.Tx) error
	// CommitBatched, when set instead of Commit, is the node's effect
	// written in a transaction the engine pipelines
	// (database.WithPipelinedTx): the transaction begins with the first
	// batch it sends through tx, and the batch it returns travels with the
	// checkpoint and the commit, two round trips where Commit takes four.
	// tx must not be committed: the engine commits it.
	CommitBatched func(ctx context.Context, tx pgx.Tx) (*pgx.Batch, error)
	// Chain lets the next node run at once: this node's checkpoint row is
	// written with the next checkpoint that commits, in its statement,
	// instead of on its own. Only for a node without effects (no Commit)
	// whose re-run is cheap: a crash in between resumes from the last
	// checkpoint written and runs it again.
	Chain bool
	// Note is recorded on the checkpoint for people reading the history.
	Note string
}

// Run is a run as a node sees it.
type Run[S any] struct {
	ID        string
	OrgID     int64
	SubjectID int64
	Node      string
	// State is the run's state; nodes change it and it is checkpointed.
	State S
	// Answer is the answer to the question the run paused on, when it is
	// resumed; nil otherwise.
	Answer json.RawMessage
	// Scratch is what the nodes of one execution share without
	// checkpointing it (what they would otherwise read again, as the
	// document's bytes): a run resumed by another execution starts with it
	// empty, so nothing may depend on it but the cost of reading again.
	Scratch map[string]any
}

// NodeFunc is one node of a graph.
type NodeFunc[S any] func(ctx context.Context, r *Run[S]) (Step, error)

// Graph is a kind of run: its nodes and where it starts.
type Graph[S any] struct {
	Kind  string
	Start string
	Nodes map[string]NodeFunc[S]
	// OnFail runs in the transaction that marks a run failed (a permanent
	// error, or retries exhausted), so the run's subject learns of it.
	OnFail func(ctx context.Context, tx pgx.Tx, r *Run[S], cause error) error
	// History, when set, is what of the state a node's checkpoint row
	// records, and what a finished run keeps: the run resumes only from
	// its own row's state (a running or paused run keeps the whole of
	// it), so the history may leave out what the run's subject stores
	// once the run ends. Pauses, failures, retries and takeovers record
	// the whole state: a run reopened resumes from a failure's.
	History func(S) S
}

// Info describes a stored run.
type Info struct {
	ID             string
	OrgID          int64
	Kind           string
	SubjectID      int64
	Status         Status
	NextNode       string
	Data           json.RawMessage
	Question       *Question
	LastError      string
	LeaseOwner     string
	LeaseExpiresAt *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
	FinishedAt     *time.Time
}

// Checkpoint is one step of a run's history.
type Checkpoint struct {
	Seq        int
	Node       string
	Outcome    string
	NextNode   string
	Data       json.RawMessage
	Note       string
	Worker     string
	DurationMS int
	CreatedAt  time.Time
}

// NewID returns a random (version 4) UUID.
func NewID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// Create records a new run of g in the caller's transaction (so that the run
// exists exactly when whatever it works on does). Launch it after commit.
func Create[S any](ctx context.Context, tx pgx.Tx, g Graph[S], orgID, subjectID int64, initial S) (string, error) {
	return CreateWithID(ctx, tx, g, NewID(), orgID, subjectID, initial)
}

// CreateWithID is Create with an id chosen beforehand (so that the subject's
// row can name its run when it is first written).
func CreateWithID[S any](ctx context.Context, tx pgx.Tx, g Graph[S], id string, orgID, subjectID int64, initial S) (string, error) {
	data, err := json.Marshal(initial)
	if err != nil {
		return "", fmt.Errorf("runs: encode state: %w", err)
	}
	if _, err := tx.Exec(ctx, InsertSQL, id, orgID, g.Kind, subjectID, g.Start, data); err != nil {
		return "", fmt.Errorf("runs: create %s run: %w", g.Kind, err)
	}
	return id, nil
}

func scanInfo(row pgx.Row) (Info, error) {
	var i Info
	var q []byte
	err := row.Scan(&i.ID, &i.OrgID, &i.Kind, &i.SubjectID, &i.Status, &i.NextNode, &i.Data, &q,
		&i.LastError, &i.LeaseOwner, &i.LeaseExpiresAt, &i.CreatedAt, &i.UpdatedAt, &i.FinishedAt)
	if err == nil && q != nil {
		i.Question = &Question{}
		err = json.Unmarshal(q, i.Question)
	}
	return i, err
}

// Get returns a run of an org. Another org's run, or an id that is no run
// id, is not found; any other failure (the database being unreachable) is
// returned wrapped, so that it is answered and logged as what it is.
func Get(ctx context.Context, q database.Executor, orgID int64, id string) (Info, error) {
	return GetIn(ctx, q, org.Only(orgID), id)
}

// GetIn returns a run in a scope (an operator's: any org's); a run outside
// it is not found.
func GetIn(ctx context.Context, q database.Executor, scope org.Scope, id string) (Info, error) {
	if !uuidPattern.MatchString(id) {
		return Info{}, apperr.New(apperr.NotFound, "no run %s", storable.Clean(id, 64))
	}
	args := []any{id}
	i, err := scanInfo(q.QueryRow(ctx, fmt.Sprintf(getRunSQL, scope.Where("org_id", &args)), args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return Info{}, apperr.New(apperr.NotFound, "no run %s", id)
	}
	if err != nil {
		return Info{}, fmt.Errorf("runs: get %s: %w", id, err)
	}
	return i, nil
}

// ForSubject returns the runs of one kind about one subject, oldest first.
func ForSubject(ctx context.Context, q database.Executor, orgID int64, kind string, subjectID int64) ([]Info, error) {
	rows, err := q.Query(ctx, runsOfSubjectSQL, orgID, kind, subjectID)
	if err != nil {
		return nil, fmt.Errorf("runs: list: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Info, error) { return scanInfo(r) })
}

// Checkpoints returns a run's history in order.
func Checkpoints(ctx context.Context, q database.Executor, id string) ([]Checkpoint, error) {
	rows, err := q.Query(ctx, checkpointsSQL, id)
	if err != nil {
		return nil, fmt.Errorf("runs: checkpoints: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Checkpoint, error) {
		var c Checkpoint
		err := r.Scan(&c.Seq, &c.Node, &c.Outcome, &c.NextNode, &c.Data, &c.Note, &c.Worker, &c.DurationMS, &c.CreatedAt)
		return c, err
	})
}

// ListFilter selects runs for the operators' page.
type ListFilter struct {
	Kind  string
	State string
	Limit int
}

// List returns an org's runs, the most recently changed first.
func List(ctx context.Context, q database.Executor, orgID int64, f ListFilter) ([]Info, error) {
	return ListIn(ctx, q, org.Only(orgID), f)
}

// listQuery is the statement of ListIn and its arguments.
func listQuery(scope org.Scope, f ListFilter) (string, []any) {
	args := []any{f.Limit}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	where := scope.Where("org_id", &args)
	if f.Kind != "" {
		where += " AND kind = " + arg(f.Kind)
	}
	states := []string{string(Running), string(Paused), string(Done), string(Failed)}
	if f.State != "" {
		states = []string{f.State}
	}
	branches := make([]string, len(states))
	for i, st := range states {
		branches[i] = fmt.Sprintf(listRunsBranchSQL, where+" AND state = "+arg(st))
	}
	return fmt.Sprintf(listRunsSQL, strings.Join(branches, " UNION ALL ")), args
}

// ListIn returns the runs of a scope (an operator's: every org's), the most
// recently changed first.
func ListIn(ctx context.Context, q database.Executor, scope org.Scope, f ListFilter) ([]Info, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 100
	}
	if err := storable.CheckParameters(storable.Param{Name: "kind", Value: f.Kind, Max: 64},
		storable.Param{Name: "state", Value: f.State, Max: 64}); err != nil {
		return nil, err
	}
	sql, args := listQuery(scope, f)
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("runs: list: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Info, error) { return scanInfo(r) })
}
