package queue_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/org"
	"greatbook/internal/queue"
	"greatbook/internal/retry"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// The tables the tests serve are the queue's own, named unlike any of the
// product's, so that only the description ties the queue to its columns.
const schema = `
CREATE TABLE test_lanes (
	lane_id    bigserial PRIMARY KEY,
	accepting  boolean NOT NULL DEFAULT true,
	held_by    text NOT NULL DEFAULT '',
	held_until timestamptz,
	turn_at    timestamptz
);
CREATE TABLE test_items (
	item_id    bigserial PRIMARY KEY,
	tenant     bigint NOT NULL,
	lane       bigint REFERENCES test_lanes,
	state      text NOT NULL DEFAULT 'waiting',
	tries      int NOT NULL DEFAULT 0,
	revived    int NOT NULL DEFAULT 0,
	due_at     timestamptz NOT NULL DEFAULT now(),
	changed_at timestamptz NOT NULL DEFAULT now(),
	finished   timestamptz,
	problem    text NOT NULL DEFAULT '',
	code       int,
	body       text NOT NULL DEFAULT ''
);
CREATE TABLE test_leased (
	item_id    uuid PRIMARY KEY,
	phase      text NOT NULL DEFAULT 'go',
	owner      text,
	owned_until timestamptz,
	changed_at timestamptz NOT NULL DEFAULT now(),
	created_at timestamptz NOT NULL DEFAULT now()
);`

// items describes test_items; lanes its lanes (when laned).
func items(laned bool) queue.Table {
	t := queue.Table{Name: "test_items", Alias: "i", Key: "item_id", Org: "tenant", Status: "state",
		Ready: []string{"waiting"}, Done: "done", Dead: "buried",
		Attempts: "tries", DueAt: "due_at", UpdatedAt: "changed_at", LastError: "problem", DoneAt: "finished",
		Revivals: "revived", Payload: []string{"body"}, Outcome: []string{"code"}, Item: "test item", DeadLetters: "buried items"}
	if laned {
		t.Lane = &queue.Lane{Table: "test_lanes", Key: "lane_id", Ref: "lane", Open: "accepting", Holder: "held_by", Until: "held_until", Turn: "turn_at"}
	}
	return t
}

// policy allows three attempts, a minute apart at first.
var policy = retry.Policy{Attempts: 3, Base: time.Minute, Max: time.Hour}

const lease = time.Hour

type fixture struct {
	db    *testkit.DB
	q     *queue.Queue
	laned bool
}

func newFixture(t *testing.T, laned bool) *fixture {
	t.Helper()
	db := testkit.NewDB(t)
	if _, err := db.Pool.Exec(context.Background(), schema); err != nil {
		t.Fatal(err)
	}
	return &fixture{db: db, q: queue.New(items(laned)), laned: laned}
}

// item adds a ready item of tenant 1, in a lane of its own when laned.
func (f *fixture) item(t *testing.T, body string) int64 {
	t.Helper()
	ctx := context.Background()
	var lane *int64
	if f.laned {
		var id int64
		if err := f.db.Pool.QueryRow(ctx, `INSERT INTO test_lanes DEFAULT VALUES RETURNING lane_id`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		lane = &id
	}
	var id int64
	if err := f.db.Pool.QueryRow(ctx, `INSERT INTO test_items (tenant, lane, body) VALUES (1, $1, $2) RETURNING item_id`, lane, body).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func (f *fixture) claim(t *testing.T, db database.Executor) (queue.Claimed, string, bool) {
	t.Helper()
	var body string
	c, ok, err := f.q.Claim(context.Background(), db, policy, lease, queue.Into{Item: []any{&body}})
	if err != nil {
		t.Fatal(err)
	}
	return c, body, ok
}

func (f *fixture) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := f.db.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

// due ends every lease, rest and backoff: each item waits for nothing but
// its status.
func (f *fixture) due(t *testing.T) {
	t.Helper()
	f.exec(t, `UPDATE test_items SET due_at = now() - interval '1 second'`)
	f.exec(t, `UPDATE test_lanes SET held_until = NULL, held_by = ''`)
}

type row struct {
	State   string
	Tries   int
	Revived int
	Problem string
	Code    *int
	DueIn   float64
}

func (f *fixture) row(t *testing.T, id int64) row {
	t.Helper()
	var r row
	if err := f.db.Pool.QueryRow(context.Background(), `SELECT state, tries, revived, problem, code,
		extract(epoch FROM due_at - changed_at)::float8 FROM test_items WHERE item_id = $1`, id).
		Scan(&r.State, &r.Tries, &r.Revived, &r.Problem, &r.Code, &r.DueIn); err != nil {
		t.Fatal(err)
	}
	return r
}

// forEachShape runs a test on items with lanes and without.
func forEachShape(t *testing.T, test func(t *testing.T, f *fixture)) {
	for _, laned := range []bool{false, true} {
		name := "items"
		if laned {
			name = "items in lanes"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, newFixture(t, laned))
		})
	}
}

// A claim is made while another worker's claim of the first item is not
// committed yet, on a connection of its own: it must take the other item,
// without waiting. Were the claim's lock gone, the second claim would
// read the first item as due, wait for the first claim's row lock, and
// take the same item once it committed.
func TestTwoWorkersNeverClaimTheSameItem(t *testing.T) {
	t.Parallel()
	forEachShape(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		first, second := f.item(t, "first"), f.item(t, "second")
		tx, err := f.db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		a, body, ok := f.claim(t, tx)
		if !ok || a.Key != first || body != "first" || a.Attempt != 1 {
			t.Fatalf("the first claim: %+v %q %v", a, body, ok)
		}
		other := f.db.Conn(t)
		type result struct {
			c   queue.Claimed
			ok  bool
			err error
		}
		done := make(chan result, 1)
		go func() {
			c, ok, err := f.q.Claim(ctx, other, policy, lease, queue.Into{Item: []any{new(string)}})
			done <- result{c, ok, err}
		}()
		var b result
		var arrived bool
		if err := testkit.PollForLockWaiter(ctx, f.db.Pool, func() bool {
			select {
			case b = <-done:
				arrived = true
			default:
			}
			return arrived
		}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if !arrived {
			b = <-done
		}
		if b.err != nil || !b.ok {
			t.Fatalf("the second claim: %+v", b)
		}
		if b.c.Key != second {
			t.Fatalf("the second worker claimed item %d, the first worker's is %d: one item claimed twice", b.c.Key, a.Key)
		}
		if c, _, ok := f.claim(t, f.db.Pool); ok {
			t.Fatalf("a third claim took %+v while both items are held", c)
		}
	})
}

// Many workers claim at once until nothing is due: every item is claimed
// exactly once.
func TestManyWorkersClaimEachItemOnce(t *testing.T) {
	t.Parallel()
	forEachShape(t, func(t *testing.T, f *fixture) {
		const n, workers = 24, 4
		for i := range n {
			f.item(t, fmt.Sprint(i))
		}
		var mu sync.Mutex
		var claimed []int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range workers {
			wg.Go(func() {
				<-start
				for {
					c, ok, err := f.q.Claim(context.Background(), f.db.Pool, policy, lease, queue.Into{Item: []any{new(string)}})
					if err != nil {
						t.Error(err)
						return
					}
					if !ok {
						return
					}
					mu.Lock()
					claimed = append(claimed, c.Key)
					mu.Unlock()
				}
			})
		}
		close(start)
		wg.Wait()
		slices.Sort(claimed)
		if len(claimed) != n || len(slices.Compact(slices.Clone(claimed))) != n {
			t.Fatalf("%d items were claimed %d times: %v", n, len(claimed), claimed)
		}
	})
}

// A dead letter is never claimed again, however due it looks, nor buried
// again by the sweep; only an operator's revival brings it back, for a
// fresh round of attempts.
func TestADeadLetterIsNeverClaimedAgain(t *testing.T) {
	t.Parallel()
	forEachShape(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		refused := f.item(t, "refused")
		spent := f.item(t, "spent")
		c, _, _ := f.claim(t, f.db.Pool)
		if v, err := f.q.Record(ctx, f.db.Pool, policy, c, errors.New("400 bad request"), "bad request", 400); err != nil || !v.Dead {
			t.Fatalf("a permanent failure: %+v %v", v, err)
		}
		if r := f.row(t, refused); r.State != "buried" || r.Tries != 1 || r.Problem != "bad request" || r.Code == nil || *r.Code != 400 {
			t.Fatalf("after a permanent failure: %+v", r)
		}
		for attempt := 1; attempt <= policy.Attempts; attempt++ {
			f.due(t)
			c, _, ok := f.claim(t, f.db.Pool)
			if !ok || c.Key != spent || c.Attempt != attempt {
				t.Fatalf("attempt %d: %+v %v", attempt, c, ok)
			}
			v, err := f.q.Record(ctx, f.db.Pool, policy, c, retry.MarkTransient(errors.New("503"), 0), "unavailable", 503)
			if err != nil || v.Dead != (attempt == policy.Attempts) {
				t.Fatalf("attempt %d: %+v %v", attempt, v, err)
			}
		}
		if r := f.row(t, spent); r.State != "buried" || r.Tries != policy.Attempts {
			t.Fatalf("after the last attempt: %+v", r)
		}
		f.due(t)
		if c, _, ok := f.claim(t, f.db.Pool); ok {
			t.Fatalf("a dead letter was claimed: %+v", c)
		}
		if keys, err := f.q.Due(ctx, f.db.Pool, policy, 10); err != nil || len(keys) != 0 {
			t.Fatalf("the sweep finds %v due (%v)", keys, err)
		}
		if n, err := f.q.BurySpent(ctx, f.db.Pool, policy, "never reported back"); err != nil || n != 0 {
			t.Fatalf("the sweep buried %d dead letters again (%v)", n, err)
		}

		// An operator revives one: a fresh round, and it is claimed again.
		err := database.WithTx(ctx, f.db.Pool, func(tx pgx.Tx) error { return f.q.Revive(ctx, tx, org.Only(2), spent) })
		if !apperr.Is(err, apperr.NotFound) {
			t.Fatalf("another tenant's revival: %v", err)
		}
		if err := database.WithTx(ctx, f.db.Pool, func(tx pgx.Tx) error { return f.q.Revive(ctx, tx, org.Only(1), spent) }); err != nil {
			t.Fatal(err)
		}
		if r := f.row(t, spent); r.State != "waiting" || r.Tries != 0 || r.Revived != 1 {
			t.Fatalf("revived: %+v", r)
		}
		err = database.WithTx(ctx, f.db.Pool, func(tx pgx.Tx) error { return f.q.Revive(ctx, tx, org.Only(1), spent) })
		if !apperr.Is(err, apperr.InvalidState) {
			t.Fatalf("reviving a waiting item: %v", err)
		}
		if c, _, ok := f.claim(t, f.db.Pool); !ok || c.Key != spent || c.Attempt != 1 {
			t.Fatalf("the revived item's claim: %+v %v", c, ok)
		}
	})
}

// A failure that may pass makes the item due after the policy's backoff
// (a Retry-After wins), unless another claim overtook the attempt; a
// success is done. A lane
// whose item failed rests for the backoff with all its items.
func TestAFailureBacksOffAndASuccessIsDone(t *testing.T) {
	t.Parallel()
	forEachShape(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		id := f.item(t, "x")
		c, _, _ := f.claim(t, f.db.Pool)
		if _, err := f.q.Record(ctx, f.db.Pool, policy, c, retry.MarkTransient(errors.New("429"), 2*time.Minute), "slow down", 429); err != nil {
			t.Fatal(err)
		}
		if r := f.row(t, id); r.State != "waiting" || r.DueIn < 119 || r.DueIn > 121 || r.Problem != "slow down" {
			t.Fatalf("after a failure with Retry-After: %+v", r)
		}
		if f.laned {
			var rests float64
			if err := f.db.Pool.QueryRow(ctx, `SELECT extract(epoch FROM held_until - now())::float8 FROM test_lanes`).Scan(&rests); err != nil || rests < 100 {
				t.Fatalf("the lane rests %v s (%v)", rests, err)
			}
			// The lane's other item, due now, waits for the rest too.
			f.exec(t, `INSERT INTO test_items (tenant, lane) SELECT 1, lane FROM test_items WHERE item_id = $1`, id)
			if c, _, ok := f.claim(t, f.db.Pool); ok {
				t.Fatalf("a resting lane's item was claimed: %+v", c)
			}
			f.exec(t, `DELETE FROM test_items WHERE item_id <> $1`, id)
		}
		f.due(t)
		c, _, _ = f.claim(t, f.db.Pool)
		if c.Attempt != 2 {
			t.Fatalf("the second claim: %+v", c)
		}
		// An attempt overtaken by another claim does not push the item back.
		stale := queue.Claimed{Key: c.Key, Attempt: 1, Lane: c.Lane}
		if _, err := f.q.Record(ctx, f.db.Pool, policy, stale, retry.MarkTransient(errors.New("503"), 0), "late", 503); err != nil {
			t.Fatal(err)
		}
		if r := f.row(t, id); r.Problem == "late" {
			t.Fatalf("an overtaken attempt recorded its failure: %+v", r)
		}
		if _, err := f.q.Record(ctx, f.db.Pool, policy, c, nil, "", 200); err != nil {
			t.Fatal(err)
		}
		if r := f.row(t, id); r.State != "done" || r.Problem != "" || *r.Code != 200 {
			t.Fatalf("after a success: %+v", r)
		}
	})
}

// An item whose worker died during its last attempt is spent: no claim
// takes it, and once no attempt can still be under way the sweep makes it
// a dead letter an operator sees.
func TestASpentItemIsBuriedOnceItsLastAttemptIsOver(t *testing.T) {
	t.Parallel()
	forEachShape(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		id := f.item(t, "x")
		f.exec(t, `UPDATE test_items SET tries = $1 - 1`, policy.Attempts)
		if c, _, ok := f.claim(t, f.db.Pool); !ok || c.Attempt != policy.Attempts {
			t.Fatalf("the last attempt: %+v %v", c, ok)
		}
		// The worker dies here: nothing is recorded.
		if n, err := f.q.BurySpent(ctx, f.db.Pool, policy, "its last attempt never reported back"); err != nil || n != 0 {
			t.Fatalf("buried %d while the attempt may still be made (%v)", n, err)
		}
		var spent int
		if err := f.db.Pool.QueryRow(ctx, `SELECT count(*) FROM test_items i WHERE `+f.q.Spent("$1"), policy.Attempts).Scan(&spent); err != nil || spent != 1 {
			t.Fatalf("%d spent (%v)", spent, err)
		}
		f.due(t)
		if c, _, ok := f.claim(t, f.db.Pool); ok {
			t.Fatalf("a spent item was claimed: %+v", c)
		}
		if n, err := f.q.BurySpent(ctx, f.db.Pool, policy, "its last attempt never reported back"); err != nil || n != 1 {
			t.Fatalf("buried %d (%v)", n, err)
		}
		if r := f.row(t, id); r.State != "buried" || r.Problem != "its last attempt never reported back" {
			t.Fatalf("the spent item: %+v", r)
		}
	})
}

// A bulk revival revives the set the operator counted, and nothing else:
// a stale count or a stale set (an item revived meanwhile that died again)
// is refused.
func TestABulkRevivalRevivesOnlyTheSetCounted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	ctx := context.Background()
	for range 3 {
		f.item(t, "x")
	}
	f.exec(t, `UPDATE test_items SET state = 'buried', tries = 3`)
	where, args := "i.tenant = $1", []any{int64(1)}
	dry, err := f.q.Matching(ctx, f.db.Pool, where, args)
	if err != nil || dry.Count != 3 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	revive := func(confirmed queue.DryRun) (int, error) {
		var n int
		err := database.WithTx(ctx, f.db.Pool, func(tx pgx.Tx) error {
			var err error
			_, n, err = f.q.ReviveMatching(ctx, tx, where, args, confirmed)
			return err
		})
		return n, err
	}
	if _, err := revive(queue.DryRun{Count: 2, Set: dry.Set}); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("a stale count: %v", err)
	}
	if n, err := revive(dry); err != nil || n != 3 {
		t.Fatalf("revived %d (%v)", n, err)
	}
	f.exec(t, `UPDATE test_items SET state = 'buried', tries = 3`)
	if _, err := revive(dry); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("the same letters, dead again, revived on the old count: %v", err)
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	p := retry.Policy{Attempts: 3, Base: time.Second, Max: time.Minute}
	for _, tc := range []struct {
		name    string
		attempt int
		err     error
		dead    bool
	}{
		{"a transient failure with attempts left backs off", 1, retry.MarkTransient(errors.New("503"), 0), false},
		{"the last attempt is a dead letter", 3, retry.MarkTransient(errors.New("503"), 0), true},
		{"a permanent failure is a dead letter at once", 1, errors.New("400"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := queue.Decide(p, tc.attempt, tc.err)
			if v.Dead != tc.dead || (!v.Dead && (v.Wait < p.Base/2 || v.Wait > p.Base)) {
				t.Fatalf("%+v", v)
			}
		})
	}
}

// A lease kept on the item: one holder at a time; another takes it over
// once it lapses, and the first can no longer renew it.
func TestALeaseHasOneHolderAndLapses(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, schema); err != nil {
		t.Fatal(err)
	}
	q := queue.New(queue.Table{Name: "test_leased", Alias: "l", Key: "item_id", KeyType: "uuid", Org: "item_id", Status: "phase",
		Ready: []string{"go"}, Dead: "stopped", UpdatedAt: "changed_at", Order: "created_at", Lease: &queue.Lease{Holder: "owner", Until: "owned_until"}})
	const id = "6f1d2c3b-0000-4000-8000-000000000001"
	if _, err := db.Pool.Exec(ctx, `INSERT INTO test_leased (item_id) VALUES ($1)`, id); err != nil {
		t.Fatal(err)
	}
	take := func(sql string, args ...any) bool {
		t.Helper()
		var got string
		err := db.Pool.QueryRow(ctx, sql, args...).Scan(&got)
		if errors.Is(err, pgx.ErrNoRows) {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		return true
	}
	if !take(q.TakeSQL(" RETURNING item_id::text"), id, "a", time.Hour.Seconds()) {
		t.Fatal("a free item was not taken")
	}
	if take(q.TakeSQL(" RETURNING item_id::text"), id, "b", time.Hour.Seconds()) || take(q.TakeOverSQL(" RETURNING item_id::text"), id, "b", time.Hour.Seconds(), "") {
		t.Fatal("b took a lease a holds")
	}
	if held, err := q.Unheld(ctx, db.Pool, "a"); err != nil || len(held) != 0 {
		t.Fatalf("the holder's own item is a resume candidate: %+v %v", held, err)
	}
	if held, err := q.Unheld(ctx, db.Pool, "b"); err != nil || len(held) != 1 || !held[0].Live(func(string) bool { return false }) {
		t.Fatalf("b sees %+v (%v)", held, err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE test_leased SET owned_until = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	var lapsed int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM test_leased l WHERE `+q.Lapsed("$1")+` AND `+q.Free(), 0).Scan(&lapsed); err != nil || lapsed != 1 {
		t.Fatalf("%d lapsed and free (%v)", lapsed, err)
	}
	if !take(q.TakeOverSQL(" RETURNING item_id::text"), id, "b", time.Hour.Seconds(), "") {
		t.Fatal("a lapsed lease was not taken over")
	}
	if held, err := q.Renew(ctx, db.Pool, id, "a", time.Hour); err != nil || held {
		t.Fatalf("the overtaken holder renewed its lease: %v %v", held, err)
	}
	if held, err := q.Renew(ctx, db.Pool, id, "b", time.Hour); err != nil || !held {
		t.Fatalf("the holder could not renew: %v %v", held, err)
	}
	if err := q.Release(ctx, db.Pool, id, "b"); err != nil {
		t.Fatal(err)
	}
	if take(`SELECT item_id::text FROM test_leased l WHERE ` + q.Held()) {
		t.Fatal("a released item is held")
	}
}
