package ledger_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/apperr"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// roundTrips records what a pool's connections send, one entry per round
// trip: a statement sent alone, or the statements of one pipelined batch.
// BEGIN and COMMIT are written in capitals.
type roundTrips struct {
	mu     sync.Mutex
	rounds [][]string
}

func tracedPool(t *testing.T, db *testkit.DB) (*pgxpool.Pool, *roundTrips) {
	t.Helper()
	rt := &roundTrips{}
	cfg := db.Pool.Config().Copy()
	cfg.ConnConfig.Tracer = rt
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, rt
}

func normalise(sql string) string {
	if word := strings.ToUpper(strings.Fields(sql + " x")[0]); word == "BEGIN" || word == "COMMIT" || word == "ROLLBACK" {
		return word
	}
	return sql
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rounds = append(r.rounds, []string{normalise(d.SQL)})
	return ctx
}

func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rounds = append(r.rounds, []string{})
	return ctx
}

func (r *roundTrips) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	r.mu.Lock()
	defer r.mu.Unlock()
	last := len(r.rounds) - 1
	r.rounds[last] = append(r.rounds[last], normalise(d.SQL))
}

func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// take returns the round trips since the last take and forgets them.
func (r *roundTrips) take() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	rounds := r.rounds
	r.rounds = nil
	return rounds
}

func show(rounds [][]string) string {
	var b strings.Builder
	for i, r := range rounds {
		fmt.Fprintf(&b, "round trip %d:\n  %s\n", i+1, strings.Join(r, "\n  --\n  "))
	}
	return b.String()
}

// TestStatementsAreWhatAPostSends proves that the benchmark measures the
// product: ledger.Statements (which make bench runs through pgbench, in
// the same pipelines) are, statement for statement and round trip for
// round trip, what a new post and an exact replay send.
func TestStatementsAreWhatAPostSends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	pool, log := tracedPool(t, db)
	s := ledger.Statements

	if _, err := ledger.Post(ctx, pool, bill(o, "1")); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"BEGIN", s.Lock, s.Lookup, s.Accounts}, {s.Insert, "COMMIT"}}
	if got := log.take(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("a new post sent\n%s\nthe benchmark runs\n%s", show(got), show(want))
	}
	if _, err := ledger.Post(ctx, pool, bill(o, "1")); err != nil {
		t.Fatal(err)
	}
	want = [][]string{{"BEGIN", s.Lock, s.Lookup, s.Accounts}, {"COMMIT"}}
	if got := log.take(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("a replay sent\n%s\nthe benchmark runs\n%s", show(got), show(want))
	}
}

// TestAPostTakesTwoRoundTrips counts the round trips of posts: a new post
// and a replay take two each on their own transaction, and PostTx in a
// caller's transaction two for a new entry and one for a replay. Each
// round trip costs the Go side syscalls and wake-ups that pgbench pays
// less for; they were where new posts lost to it.
func TestAPostTakesTwoRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	pool, log := tracedPool(t, db)

	posted := func(err error) ([][]string, error) { return log.take(), err }
	for i, tc := range []struct {
		name string
		post func(sourceID string) ([][]string, error)
		want int
	}{
		{"a new post", func(id string) ([][]string, error) {
			_, err := ledger.Post(ctx, pool, bill(o, id))
			return posted(err)
		}, 2},
		{"an exact replay", func(string) ([][]string, error) {
			_, err := ledger.Post(ctx, pool, bill(o, "new-0"))
			return posted(err)
		}, 2},
		{"a new post in the caller's transaction", func(id string) ([][]string, error) {
			tx, err := pool.Begin(ctx)
			if err != nil {
				return nil, err
			}
			defer func() { _ = tx.Rollback(ctx) }()
			log.take()
			_, err = ledger.PostTx(ctx, tx, bill(o, id))
			return posted(err)
		}, 2},
		{"an exact replay in the caller's transaction", func(string) ([][]string, error) {
			tx, err := pool.Begin(ctx)
			if err != nil {
				return nil, err
			}
			defer func() { _ = tx.Rollback(ctx) }()
			log.take()
			_, err = ledger.PostTx(ctx, tx, bill(o, "new-0"))
			return posted(err)
		}, 1},
	} {
		log.take()
		got, err := tc.post(fmt.Sprintf("new-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.want {
			t.Errorf("%s: %d round trips, want %d:\n%s", tc.name, len(got), tc.want, show(got))
		}
	}
}

// TestARefusedPostRollsBackItsPipelinedTransaction proves that a post that
// fails after its pipelined BEGIN leaves its connection idle, having
// written nothing: the pool hands the same connection to the next post
// (pgxpool closes a connection released inside a transaction).
func TestARefusedPostRollsBackItsPipelinedTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	cfg := db.Pool.Config().Copy()
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	backend := func() int32 {
		var pid int32
		if err := pool.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		return pid
	}
	pid := backend()

	unknownAccount := bill(o, "refused")
	unknownAccount.Lines[0].Account = "9999"
	noOrg := bill(o, "refused")
	noOrg.OrgID = o.ID + 1000
	for _, tc := range []struct {
		name string
		req  ledger.Request
		code apperr.Code
	}{
		{"an unknown account", unknownAccount, apperr.Invalid},
		{"an unknown org", noOrg, apperr.NotFound},
	} {
		if _, err := ledger.Post(ctx, pool, tc.req); !apperr.Is(err, tc.code) {
			t.Fatalf("%s: got %v, want %s", tc.name, err, tc.code)
		}
		if got := backend(); got != pid {
			t.Fatalf("%s: the post's connection was not returned idle (backend %d, then %d)", tc.name, pid, got)
		}
	}
	if got := testkit.Count(t, db, `SELECT count(*) FROM journal_entries`); got != 0 {
		t.Fatalf("%d entries after refused posts", got)
	}
	if _, err := ledger.Post(ctx, pool, bill(o, "refused")); err != nil {
		t.Fatal(err)
	}
}
