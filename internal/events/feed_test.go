package events_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/events"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// follower follows an org's feed from the beginning, remembering every
// event it was handed and its cursor. It reads with reader (nil:
// events.Read).
type follower struct {
	db     *testkit.DB
	org    int64
	reader events.Reader
	cursor string
	seen   []events.Event
}

func (f *follower) read(t testing.TB) []events.Event {
	t.Helper()
	read := f.reader
	if read == nil {
		read = events.Read
	}
	got, next, err := read(context.Background(), f.db.Pool, f.org, f.cursor, 0)
	if err != nil {
		t.Fatalf("read the feed after %q: %v", f.cursor, err)
	}
	if len(got) == 0 && next != f.cursor {
		t.Fatalf("an empty read moved the cursor from %q to %q", f.cursor, next)
	}
	for _, e := range got {
		if e.ID <= f.cursor {
			t.Fatalf("event %s came at or before the cursor %s", e.ID, f.cursor)
		}
		f.cursor = e.ID
	}
	if next != f.cursor {
		t.Fatalf("next cursor %q is not the last event's id %q", next, f.cursor)
	}
	f.seen = append(f.seen, got...)
	return got
}

// reasons returns the reasons (the written marker of each test event) of
// the events seen, in order.
func (f *follower) reasons() []string {
	var out []string
	for _, e := range f.seen {
		r, _ := e.Data["reason"].(string)
		out = append(out, r)
	}
	return out
}

// record writes one audited rejection of document id with reason in tx.
func record(t testing.TB, tx pgx.Tx, org, id int64, reason string) {
	t.Helper()
	if err := audit.Record(context.Background(), tx, audit.Event{OrgID: org, Actor: audit.System("test"), Action: events.ActionReject,
		SubjectType: "intake", SubjectID: id, FromStatus: "pending", ToStatus: "rejected", Detail: map[string]any{"reason": reason}}); err != nil {
		t.Fatal(err)
	}
}

// heldBackScenario: T1 draws an audit id and holds its transaction open; T2
// draws a later id and commits; the reader reads; T1 commits; the reader
// continues from its cursor. It returns what the follower, reading with
// read, saw in total.
func heldBackScenario(t *testing.T, read events.Reader, patience time.Duration) (firstRead []events.Event, f *follower) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	org := testkit.Org(t, db)
	f = &follower{db: db, org: org.ID, reader: read}

	t1, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer t1.Rollback(ctx)
	record(t, t1, org.ID, 1, "T1")
	t2, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	record(t, t2, org.ID, 2, "T2")
	if err := t2.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var committed int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM audit_events WHERE org_id = $1`, org.ID).Scan(&committed); err != nil || committed != 1 {
		t.Fatalf("T2's row is committed and T1's is not: want 1 visible row, got %d (%v)", committed, err)
	}
	firstRead = f.read(t)
	if err := t1.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// Other transactions of the server (other tests' databases) may hold
	// the horizon back for a moment: follow until both are in or the
	// deadline passes.
	_ = testkit.Poll(patience, func() (bool, error) {
		f.read(t)
		return len(f.seen) >= 2, nil
	})
	return firstRead, f
}

// TestTheFeedNeverPassesAnEventOfAnOpenTransaction is the gap test: ids
// drawn in one order and committed in the other must not let a reader skip
// the earlier one.
func TestTheFeedNeverPassesAnEventOfAnOpenTransaction(t *testing.T) {
	firstRead, f := heldBackScenario(t, events.Read, 10*time.Second)
	for _, e := range firstRead {
		if e.Data["reason"] == "T2" {
			t.Errorf("the reader was handed T2's event while T1 (an earlier id) was still open: %+v", e)
		}
	}
	if got := fmt.Sprint(f.reasons()); got != "[T1 T2]" {
		t.Fatalf("the follower saw %s; want every event once, T1 then T2 (T1's transaction began writing first)", got)
	}
}

// TestWithoutTheHorizonTheFeedSkipsAnEvent proves the test above catches
// the gap: a reader that returns rows of transactions still running behind
// committed ones passes T1's event and never sees it.
func TestWithoutTheHorizonTheFeedSkipsAnEvent(t *testing.T) {
	// T1's event sorts behind the cursor for good: a short wait shows it.
	firstRead, f := heldBackScenario(t, events.WithoutHorizon(t), time.Second)
	if len(firstRead) != 1 || firstRead[0].Data["reason"] != "T2" {
		t.Fatalf("without the horizon the first read should hand out T2 at once, got %+v", firstRead)
	}
	if got := fmt.Sprint(f.reasons()); got != "[T2]" {
		t.Fatalf("without the horizon the follower should have skipped T1, saw %s", got)
	}
}

// manyWriters runs n writers that each draw an audit id, then commit in a
// random order one at a time while a follower reads after each commit and
// another follows the feed concurrently throughout, both reading with read.
// It returns both.
func manyWriters(t *testing.T, read events.Reader, n int, seed uint64, patience time.Duration) (stepwise, concurrent *follower) {
	ctx := context.Background()
	db := testkit.NewDB(t)
	org := testkit.Org(t, db)
	stepwise = &follower{db: db, org: org.ID, reader: read}
	concurrent = &follower{db: db, org: org.ID, reader: read}

	type writer struct {
		commit chan struct{}
		done   chan error
	}
	writers := make([]writer, n)
	var drawn sync.WaitGroup
	for i := range writers {
		w := writer{commit: make(chan struct{}), done: make(chan error, 1)}
		writers[i] = w
		drawn.Add(1)
		go func() {
			tx, err := db.Pool.Begin(ctx)
			if err == nil {
				err = audit.Record(ctx, tx, audit.Event{OrgID: org.ID, Actor: audit.System("test"), Action: events.ActionReject,
					SubjectType: "intake", SubjectID: int64(i + 1), Detail: map[string]any{"reason": fmt.Sprint(i)}})
			}
			drawn.Done()
			if err != nil {
				w.done <- err
				return
			}
			<-w.commit
			w.done <- tx.Commit(ctx)
		}()
	}
	drawn.Wait()

	stop := make(chan struct{})
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	followed := make(chan error, 1)
	go func() {
		defer close(followed)
		for {
			got, next, err := read(fctx, db.Pool, org.ID, concurrent.cursor, 3)
			if err != nil {
				if fctx.Err() == nil {
					followed <- err
				}
				return
			}
			concurrent.seen = append(concurrent.seen, got...)
			concurrent.cursor = next
			if len(got) > 0 {
				continue
			}
			select {
			case <-stop:
				if len(concurrent.seen) >= n {
					return
				}
			default:
			}
			select {
			case <-fctx.Done():
				return
			case <-time.After(testkit.PollInterval):
			}
		}
	}()

	rng := rand.New(rand.NewPCG(seed, seed))
	for _, i := range rng.Perm(n) {
		close(writers[i].commit)
		if err := <-writers[i].done; err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
		stepwise.read(t)
	}
	_ = testkit.Poll(patience, func() (bool, error) {
		stepwise.read(t)
		return len(stepwise.seen) >= n, nil
	})
	close(stop)
	select {
	case err := <-followed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(patience):
		t.Logf("the concurrent follower did not catch up within %s", patience)
		cancel()
		<-followed
	}
	return stepwise, concurrent
}

// exactlyOnce fails unless f saw each of n writers' events exactly once.
func exactlyOnce(t *testing.T, name string, f *follower, n int) {
	t.Helper()
	count := map[string]int{}
	for _, r := range f.reasons() {
		count[r]++
	}
	for i := range n {
		if c := count[fmt.Sprint(i)]; c != 1 {
			t.Errorf("%s saw writer %d's event %d times; want exactly once (saw %v)", name, i, c, f.reasons())
		}
	}
	if len(f.seen) != n {
		t.Errorf("%s saw %d events; want %d", name, len(f.seen), n)
	}
	for i := 1; i < len(f.seen); i++ {
		if f.seen[i].ID <= f.seen[i-1].ID {
			t.Errorf("%s saw event %s after %s: ids must increase along the feed", name, f.seen[i].ID, f.seen[i-1].ID)
		}
	}
}

// TestManyWritersCommittingInRandomOrderAreEachSeenOnce: ids drawn in one
// order, commits in another, two followers (one reading between commits,
// one reading concurrently all along) each see every event exactly once.
func TestManyWritersCommittingInRandomOrderAreEachSeenOnce(t *testing.T) {
	t.Parallel()
	const n = 24
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	stepwise, concurrent := manyWriters(t, events.Read, n, seed, 15*time.Second)
	exactlyOnce(t, "the stepwise follower", stepwise, n)
	exactlyOnce(t, "the concurrent follower", concurrent, n)
}

// TestWithoutTheHorizonManyWritersLoseEvents is the mutation of the test
// above: with a fixed commit order that is not the order of the ids, the
// stepwise follower misses events.
func TestWithoutTheHorizonManyWritersLoseEvents(t *testing.T) {
	const n = 24
	stepwise, _ := manyWriters(t, events.WithoutHorizon(t), n, 7, time.Second)
	if len(stepwise.seen) >= n {
		t.Fatalf("without the horizon the stepwise follower still saw all %d events; the test would not catch the gap", n)
	}
}

func TestBadCursorsAndLimitsNameTheParameter(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	org := testkit.Org(t, db)
	for _, tc := range []struct {
		name, after string
		limit       int
		field       string
	}{
		{"not hex", "zz", 0, "after"},
		{"too short", "0000000000000001", 0, "after"},
		{"upper case", "000000000000000A0000000000000001", 0, "after"},
		{"sign", "-00000000000000a0000000000000001", 0, "after"},
		{"negative limit", "", -1, "limit"},
		{"limit too large", "", events.MaxLimit + 1, "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := events.Read(context.Background(), db.Pool, org.ID, tc.after, tc.limit)
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.Invalid {
				t.Fatalf("want invalid, got %v", err)
			}
			reasons, _ := e.Details["reasons"].([]map[string]string)
			if len(reasons) != 1 || reasons[0]["field"] != tc.field {
				t.Fatalf("want a reason naming %q, got %v", tc.field, e.Details)
			}
		})
	}
}

// Head is where a reader that walked the whole feed ends up, in one
// statement; "" for an org without events.
func TestHeadIsTheEndOfTheFeed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	org := testkit.Org(t, db)
	if head, err := events.Head(ctx, db.Pool, org.ID); err != nil || head != "" {
		t.Fatalf("head of an empty feed: %q, %v", head, err)
	}
	for i := range 3 {
		tx, err := db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		record(t, tx, org.ID, int64(i+1), fmt.Sprint("E", i))
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	f := &follower{db: db, org: org.ID}
	// Other tests' transactions may hold the horizon back for a moment.
	if err := testkit.Poll(30*time.Second, func() (bool, error) {
		f.read(t)
		return len(f.seen) == 3, nil
	}); err != nil {
		t.Fatalf("the feed showed %d of 3 events: %v", len(f.seen), err)
	}
	head, err := events.Head(ctx, db.Pool, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	if head != f.cursor {
		t.Fatalf("head %q, want the walked feed's end %q", head, f.cursor)
	}
}
