package runs_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/retry"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// A run whose graph cannot record its failure (OnFail fails too, as when the
// subject's write is refused by the database) is still marked failed, with
// both errors: it must not stay running and fail the same way on every
// resume, unseen.
func TestARunWhoseFailureCannotBeRecordedIsStillFailed(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	g := runs.Graph[state]{Kind: "test", Start: "a",
		Nodes: map[string]runs.NodeFunc[state]{
			"a": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
				return runs.Step{}, retry.MarkPermanent(errors.New("the node's own error"))
			},
		},
		OnFail: func(ctx context.Context, tx pgx.Tx, r *runs.Run[state], cause error) error {
			_, err := tx.Exec(ctx, `SELECT $1::text`, "a NUL \x00 the database refuses")
			return err
		},
	}
	e := runs.NewEngine(db.Pool, runs.Options{Logger: testkit.Logger(t)})
	runs.Register(e, g)
	id := create(t, db, g)
	if err := e.Execute(context.Background(), id); err != nil {
		t.Fatalf("execute: %v", err)
	}
	info, _ := finalState(t, db, id)
	if info.Status != runs.Failed || !strings.Contains(info.LastError, "the node's own error") || !strings.Contains(info.LastError, "22021") {
		t.Fatalf("run %s, last error %q", info.Status, info.LastError)
	}
}

// A retried node starts again from the last checkpoint's state: a field the
// failed attempt set, and the saved state lacks, is gone.
func TestARetriedNodeStartsFromTheSavedState(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	attempts := 0
	var seen []string
	g := runs.Graph[state]{Kind: "test", Start: "a",
		Nodes: map[string]runs.NodeFunc[state]{
			"a": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
				attempts++
				seen = append(seen, r.State.Answer)
				r.State.Answer = "left by the failed attempt"
				if attempts == 1 {
					return runs.Step{}, retry.MarkTransient(errors.New("blip"), 0)
				}
				r.State.Answer = ""
				return runs.Step{}, nil
			},
		},
	}
	e := runs.NewEngine(db.Pool, runs.Options{Logger: testkit.Logger(t)})
	e.Retry.Waiter = retry.WaitFunc(func(context.Context, time.Duration) error { return nil })
	runs.Register(e, g)
	id := create(t, db, g)
	if err := e.Execute(context.Background(), id); err != nil {
		t.Fatalf("execute: %v", err)
	}
	if len(seen) != 2 || seen[1] != "" {
		t.Fatalf("the retry saw %q", seen)
	}
}

// A node that kills its worker (out of memory, say) is not resumed for
// ever: after MaxTakeovers takeovers at that node the run fails, with an
// error that says so.
func TestARunThatKeepsKillingItsWorkerFails(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ran := 0
	var crash context.CancelFunc
	g := runs.Graph[state]{Kind: "test", Start: "a",
		Nodes: map[string]runs.NodeFunc[state]{
			"a": func(ctx context.Context, r *runs.Run[state]) (runs.Step, error) {
				ran++
				crash() // the worker dies here: nothing after this is written
				return runs.Step{}, nil
			},
		},
	}
	e := runs.NewEngine(db.Pool, runs.Options{Logger: testkit.Logger(t)})
	runs.Register(e, g)
	id := create(t, db, g)
	host, _ := os.Hostname()
	for range 6 {
		// The dead worker's lease, as a SIGKILL leaves it.
		if _, err := db.Pool.Exec(context.Background(), `UPDATE runs SET lease_owner = $2, lease_expires_at = now() + interval '1 hour'
			WHERE id = $1::uuid AND state = 'running'`, id, host+"|999999999|dead|0000"); err != nil {
			t.Fatal(err)
		}
		var ctx context.Context
		ctx, crash = context.WithCancel(context.Background())
		_ = e.Execute(ctx, id)
		crash()
	}
	info, _ := finalState(t, db, id)
	if info.Status != runs.Failed || !strings.Contains(info.LastError, "taken over 3 times") || ran != 3 {
		t.Fatalf("run %s after the node ran %d times: %q", info.Status, ran, info.LastError)
	}
}

// An operator cannot retry or abandon a run a live worker holds: the worker
// would go on writing its checkpoints and effects.
func TestAnOperatorCannotTakeARunFromALiveWorker(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	g := runs.Graph[state]{Kind: "test", Start: "a", Nodes: map[string]runs.NodeFunc[state]{"a": visit("")}}
	id := create(t, db, g)
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, `UPDATE runs SET lease_owner = 'live', lease_expires_at = now() + interval '1 minute' WHERE id = $1::uuid`, id); err != nil {
		t.Fatal(err)
	}
	info, _ := finalState(t, db, id)
	for name, act := range map[string]func(tx pgx.Tx) error{
		"retry":   func(tx pgx.Tx) error { return runs.Reopen(ctx, tx, info.OrgID, "test", id, "op") },
		"abandon": func(tx pgx.Tx) error { _, err := runs.Abandon(ctx, tx, info.OrgID, "test", id, "op"); return err },
		"another org's run": func(tx pgx.Tx) error {
			_, err := runs.Abandon(ctx, tx, info.OrgID+1, "test", id, "op")
			if apperr.Is(err, apperr.NotFound) {
				return apperr.New(apperr.InvalidState, "as expected")
			}
			return err
		},
	} {
		err := database.WithTx(ctx, db.Pool, act)
		if !apperr.Is(err, apperr.InvalidState) {
			t.Errorf("%s: %v, want invalid_state", name, err)
		}
	}
	if info, _ := finalState(t, db, id); info.Status != runs.Running || info.LeaseOwner != "live" {
		t.Fatalf("the run is %s, held by %q", info.Status, info.LeaseOwner)
	}
}
