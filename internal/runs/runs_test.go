package runs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/retry"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

type state struct {
	Visited []string `json:"visited"`
	Answer  string   `json:"answer,omitempty"`
}

func visit(next string) runs.NodeFunc[state] {
	return func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
		r.State.Visited = append(r.State.Visited, r.Node)
		return runs.Step{Next: next}, nil
	}
}

func create(t *testing.T, db *testkit.DB, g runs.Graph[state]) string {
	t.Helper()
	o := testkit.Org(t, db)
	var id string
	err := database.WithTx(context.Background(), db.Pool, func(tx pgx.Tx) error {
		var err error
		id, err = runs.Create(context.Background(), tx, g, o.ID, 1, state{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func finalState(t *testing.T, db *testkit.DB, id string) (runs.Info, state) {
	t.Helper()
	info, err := runs.Get(context.Background(), db.Pool, orgOf(t, db, id), id)
	if err != nil {
		t.Fatal(err)
	}
	var s state
	if err := json.Unmarshal(info.Data, &s); err != nil {
		t.Fatal(err)
	}
	return info, s
}

func TestRunCheckpointsEveryNode(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{
		"a": visit("b"), "b": visit("c"),
		"c": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			r.State.Visited = append(r.State.Visited, "c")
			return runs.Step{Commit: func(ctx context.Context, tx pgx.Tx) error {
				_, err := tx.Exec(ctx, `INSERT INTO audit_events (actor, action) VALUES ('test', 'c committed')`)
				return err
			}}, nil
		},
	}}
	e := runs.NewEngine(db.Pool, runs.Options{})
	runs.Register(e, g)
	id := create(t, db, g)
	if err := e.Execute(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	info, s := finalState(t, db, id)
	if info.Status != runs.Done || len(s.Visited) != 3 || info.LeaseOwner != "" {
		t.Fatalf("run: %+v %+v", info, s)
	}
	cps, err := runs.Checkpoints(context.Background(), db.Pool, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 3 || cps[0].Node != "a" || cps[0].NextNode != "b" || cps[2].NextNode != "" {
		t.Fatalf("checkpoints: %+v", cps)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'c committed'`); n != 1 {
		t.Fatal("the node's commit did not join its checkpoint")
	}
	// Executing a finished run does nothing.
	if err := e.Execute(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM run_checkpoints WHERE run_id = $1::uuid`, id); n != 3 {
		t.Fatalf("%d checkpoints after re-executing a finished run", n)
	}
}

func TestPausedRunSurvivesARestartAndResumesOnlyWhenAnswered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	var asked atomic.Int32
	g := runs.Graph[state]{Kind: "test", Start: "ask", Nodes: map[string]runs.NodeFunc[state]{
		"ask": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			if r.Answer == nil {
				asked.Add(1)
				return runs.Step{Pause: &runs.Question{Kind: "account", Prompt: "Which account?"}}, nil
			}
			if err := json.Unmarshal(r.Answer, &r.State.Answer); err != nil {
				return runs.Step{}, err
			}
			return runs.Step{Next: "end"}, nil
		},
		"end": visit(""),
	}}
	first := runs.NewEngine(db.Pool, runs.Options{})
	runs.Register(first, g)
	id := create(t, db, g)
	if err := first.Execute(ctx, id); err != nil {
		t.Fatal(err)
	}
	if info, _ := finalState(t, db, id); info.Status != runs.Paused || info.Question == nil || info.Question.Prompt != "Which account?" {
		t.Fatalf("paused run: %+v", info)
	}

	// "Restart": another engine, as after the process died.
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	second := runs.NewEngine(db.Pool, runs.Options{})
	runs.Register(second, g)
	second.Start(wctx, 1)
	n, err := second.ResumeAll(ctx)
	if err != nil || n != 0 {
		t.Fatalf("resume after restart launched %d runs (%v); a paused run waits for its answer", n, err)
	}
	if err := second.Execute(ctx, id); err != nil {
		t.Fatal(err)
	}
	if info, _ := finalState(t, db, id); info.Status != runs.Paused || asked.Load() != 1 {
		t.Fatal("a paused run ran without an answer")
	}

	if err := second.Answer(ctx, id, "6200", "ann@example.test"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, id, runs.Done)
	_, s := finalState(t, db, id)
	if s.Answer != "6200" || len(s.Visited) != 1 {
		t.Fatalf("resumed state: %+v", s)
	}
	if err := second.Answer(ctx, id, "x", "ann"); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("answering a finished run: %v", err)
	}
	cps, _ := runs.Checkpoints(ctx, db.Pool, id)
	outcomes := []string{}
	for _, c := range cps {
		outcomes = append(outcomes, c.Outcome)
	}
	if len(outcomes) != 4 || outcomes[0] != "paused" || outcomes[1] != "resumed" || cps[1].Note != "answered by ann@example.test" {
		t.Fatalf("history: %v", outcomes)
	}
}

// waitStatus waits for a background worker to bring a run to a status.
func waitStatus(t *testing.T, db *testkit.DB, id string, want runs.Status) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, fmt.Sprintf("run %s never became %s", id, want), func() (bool, error) {
		info, _ := finalState(t, db, id)
		return info.Status == want, nil
	})
}

func TestOneWorkerAtATimeAndExpiredLeasesAreTakenOver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	inNode := make(chan struct{})
	release := make(chan struct{})
	var calls atomic.Int32
	g := runs.Graph[state]{Kind: "test", Start: "slow", Nodes: map[string]runs.NodeFunc[state]{
		"slow": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			if calls.Add(1) == 1 {
				close(inNode)
				<-release // the first worker stalls here (a GC pause, a hung call)
			}
			r.State.Visited = append(r.State.Visited, "slow")
			return runs.Step{Commit: func(ctx context.Context, tx pgx.Tx) error {
				_, err := tx.Exec(ctx, `INSERT INTO audit_events (actor, action) VALUES ('test', 'slow committed')`)
				return err
			}}, nil
		},
	}}
	a := runs.NewEngine(db.Pool, runs.Options{LeaseTTL: time.Hour})
	b := runs.NewEngine(db.Pool, runs.Options{LeaseTTL: time.Hour})
	runs.Register(a, g)
	runs.Register(b, g)
	id := create(t, db, g)

	aDone := make(chan error, 1)
	go func() { aDone <- a.Execute(ctx, id) }()
	<-inNode
	// While a holds a live lease, b does not run the run.
	if err := b.Execute(ctx, id); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatal("a second worker ran a run whose lease is held")
	}
	// The lease expires (a stalled far too long): b takes over and finishes.
	if _, err := db.Pool.Exec(ctx, `UPDATE runs SET lease_expires_at = now() - interval '1 second' WHERE id = $1::uuid`, id); err != nil {
		t.Fatal(err)
	}
	if err := b.Execute(ctx, id); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-aDone; !errors.Is(err, runs.ErrLeaseLost) {
		t.Fatalf("the stalled worker: %v, want ErrLeaseLost", err)
	}
	info, s := finalState(t, db, id)
	if info.Status != runs.Done || len(s.Visited) != 1 {
		t.Fatalf("run: %+v %+v", info, s)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'slow committed'`); n != 1 {
		t.Fatalf("the node's effect committed %d times; the fenced worker must write nothing", n)
	}
	var note string
	if err := db.Pool.QueryRow(ctx, `SELECT note FROM run_checkpoints WHERE run_id = $1::uuid AND outcome = 'resumed'`, id).Scan(&note); err != nil || note != "taken over from "+a.Owner() {
		t.Fatalf("takeover not recorded: %q %v", note, err)
	}
}

func TestADeadLocalOwnersLeaseIsTakenOverAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{"a": visit("")}}
	e := runs.NewEngine(db.Pool, runs.Options{})
	runs.Register(e, g)
	id := create(t, db, g)
	// A process of this machine that no longer exists held the lease for an hour more.
	dead := deadOwner(e.Owner())
	if _, err := db.Pool.Exec(ctx, `UPDATE runs SET lease_owner = $2, lease_expires_at = now() + interval '1 hour' WHERE id = $1::uuid`, id, dead); err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	e.Start(wctx, 1)
	if n, err := e.ResumeAll(ctx); err != nil || n != 1 {
		t.Fatalf("resume: %d %v", n, err)
	}
	waitStatus(t, db, id, runs.Done)
}

// deadOwner is an owner id of this host whose process cannot exist.
func deadOwner(live string) string {
	host, _, _ := strings.Cut(live, "|")
	return host + "|999999999|0|deadbeef"
}

func TestRetriesAreBoundedAndOnlyForTransientErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	for _, tc := range []struct {
		name      string
		err       error
		wantCalls int
	}{
		{"transient errors retry up to the bound", retry.MarkTransient(errors.New("model server: 503"), 0), 4},
		{"a permanent error is not retried", errors.New("malformed document"), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			var failedWith string
			g := runs.Graph[state]{Kind: "test", Start: "flaky",
				Nodes: map[string]runs.NodeFunc[state]{"flaky": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
					calls.Add(1)
					return runs.Step{}, tc.err
				}},
				OnFail: func(ctx context.Context, tx pgx.Tx, r *runs.Run[state], cause error) error {
					failedWith = cause.Error()
					return nil
				},
			}
			var mu sync.Mutex
			var waits []time.Duration
			e := runs.NewEngine(db.Pool, runs.Options{})
			e.Retry = retry.Policy{Attempts: 4, Base: 100 * time.Millisecond, Max: time.Second,
				Waiter: retry.WaitFunc(func(ctx context.Context, d time.Duration) error {
					mu.Lock()
					waits = append(waits, d)
					mu.Unlock()
					return nil
				})}
			runs.Register(e, g)
			id := create(t, db, g)
			if err := e.Execute(ctx, id); err != nil {
				t.Fatal(err)
			}
			info, _ := finalState(t, db, id)
			if int(calls.Load()) != tc.wantCalls || info.Status != runs.Failed || failedWith != tc.err.Error() {
				t.Fatalf("calls %d, status %s, OnFail %q", calls.Load(), info.Status, failedWith)
			}
			if len(waits) != tc.wantCalls-1 {
				t.Fatalf("waits %v", waits)
			}
			for i, w := range waits {
				if lo := 100 * time.Millisecond << i / 2; w < lo || w > 100*time.Millisecond<<i {
					t.Errorf("wait %d = %s, want exponential backoff with jitter", i, w)
				}
			}
		})
	}
}

// A filter the database cannot compare is refused naming the parameter, and
// always the same one: the parameters were checked by ranging over a map, so
// with both bad the 422 named kind or state at random.
func TestListNamesTheSameBadParameterEveryTime(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	for range 32 {
		_, err := runs.List(context.Background(), db.Pool, o.ID, runs.ListFilter{Kind: "a\x00", State: "\xff"})
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.Invalid || !strings.Contains(e.Message, "kind") {
			t.Fatalf("got %v, want invalid naming kind", err)
		}
	}
}

// orgOf returns the org a run belongs to.
func orgOf(t *testing.T, db *testkit.DB, runID string) int64 {
	t.Helper()
	var org int64
	if err := db.Pool.QueryRow(context.Background(), `SELECT org_id FROM runs WHERE id = $1::uuid`, runID).Scan(&org); err != nil {
		t.Fatal(err)
	}
	return org
}

// One engine executes a run once at a time: a caller that executes a run a
// worker of the same engine is executing (the worker took it from a launch
// first) waits for the worker to stop, so it finds the run where the worker
// left it, not where it began; the node runs once.
func TestOneEngineExecutesARunOnceAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	var calls atomic.Int32
	inNode := make(chan struct{})
	release := make(chan struct{})
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{
		"a": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			if calls.Add(1) == 1 {
				close(inNode)
				<-release
			}
			return runs.Step{}, nil
		},
	}}
	e := runs.NewEngine(db.Pool, runs.Options{LeaseTTL: time.Hour})
	runs.Register(e, g)
	id := create(t, db, g)
	holder := make(chan error, 1)
	go func() { holder <- e.Execute(ctx, id) }()
	<-inNode
	// While the holder is in its node, a caller whose context is over is
	// told so; it does not return as if the run had been executed.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if err := e.Execute(gone, id); !errors.Is(err, context.Canceled) {
		t.Fatalf("executing a held run with a cancelled context: %v, want context.Canceled", err)
	}
	waiter := make(chan error, 1)
	go func() { waiter <- e.Execute(ctx, id) }()
	close(release)
	if err := <-waiter; err != nil {
		t.Fatal(err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM runs WHERE id = $1::uuid AND state = 'done'`, id); n != 1 {
		t.Fatal("the waiting caller returned before the run was done")
	}
	if err := <-holder; err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("the node ran %d times", calls.Load())
	}
}

// A node that asks its engine to execute its own run is told nothing is
// left to do, rather than waiting for itself.
func TestARunExecutingItselfDoesNotWaitForItself(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	e := runs.NewEngine(db.Pool, runs.Options{LeaseTTL: time.Hour})
	var inner error = errors.New("not called")
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{
		"a": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
			inner = e.Execute(ctx, r.ID)
			return runs.Step{}, nil
		},
	}}
	runs.Register(e, g)
	id := create(t, db, g)
	if err := e.Execute(ctx, id); err != nil {
		t.Fatal(err)
	}
	if inner != nil {
		t.Fatalf("the run executing itself: %v", inner)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM runs WHERE id = $1::uuid AND state = 'done'`, id); n != 1 {
		t.Fatal("the run is not done")
	}
}
