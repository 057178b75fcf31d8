package review_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"pgregory.net/rapid"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/internal/intake"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
)

var topologies = map[string][]int{
	"pair (one edge)": {-1, 0},
	"sibling":         {-1, 0, 0},
	"chain":           {-1, 0, 1, 2},
	"star":            {-1, 0, 0, 0, 0, 0},
	"cycle":           {1, 2, 0},
	"tree":            {-1, 0, 0, 1, 1, 2},
}

// approveConcurrently has n approvers approve members of a group at once
// and checks the rule: at most one member accepted, every loser a 409,
// nothing else reaching a caller.
func approveConcurrently(t *testing.T, w *world, d *review.Decisions, ids []int64, n int) int64 {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = d.Approve(context.Background(), w.Org.ID, ids[i%len(ids)], w.Actor)
		}()
	}
	close(start)
	wg.Wait()
	var winner int64
	for i, err := range errs {
		switch {
		case err == nil:
			if winner != 0 && winner != ids[i%len(ids)] {
				t.Fatalf("two members accepted: %d and %d", winner, ids[i%len(ids)])
			}
			winner = ids[i%len(ids)]
		case apperr.Is(err, apperr.DuplicateGroupConflict), apperr.Is(err, apperr.InvalidState):
			// the losers' 409s
		default:
			t.Fatalf("approver %d: %v (only 409s may reach a loser)", i, err)
		}
	}
	return winner
}

func checkOneEntry(t *testing.T, w *world, ids []int64, winner int64) {
	t.Helper()
	if winner == 0 {
		t.Fatal("no member was accepted")
	}
	w.WaitPosted(t, winner)
	for _, id := range ids {
		want := 0
		if id == winner {
			want = 1
		}
		if got := w.Entries(t, id); got != want {
			t.Fatalf("document %d has %d journal entries, want %d", id, got, want)
		}
	}
	var accepted int
	for _, id := range ids {
		d, _ := intake.NewPGStore(w.DB.Pool).Get(context.Background(), w.Org.ID, id)
		if d.Status == intake.Active || d.Status == intake.Posted {
			accepted++
		}
	}
	if accepted != 1 {
		t.Fatalf("%d members accepted", accepted)
	}
}

func TestTheGroupEntersTheLedgerOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	for name, edges := range topologies {
		t.Run(name, func(t *testing.T) {
			ids := w.Group(t, edges)
			winner := approveConcurrently(t, w, w.App.Decisions, ids, 16)
			checkOneEntry(t, w, ids, winner)
			// Every other member, whichever way its edges point, is refused
			// naming the accepted one.
			for _, id := range ids {
				if id == winner {
					continue
				}
				_, err := w.App.Decisions.Approve(context.Background(), w.Org.ID, id, w.Actor)
				e, ok := apperr.As(err)
				if !ok || e.Code != apperr.DuplicateGroupConflict || e.Details["blocking"].(review.Blocking).ID != winner {
					t.Fatalf("approving %d after %d: %v", id, winner, err)
				}
				b := e.Details["blocking"].(review.Blocking)
				if b.Status != intake.Posted || b.ApprovedBy != w.Actor.Label || b.ApprovedAt == nil || b.EntryID == 0 {
					t.Fatalf("blocking member: %+v", b)
				}
			}
		})
	}
	if c := w.App.Decisions.Conflicts(); c != 0 {
		t.Fatalf("%d deadlocks, serialization failures or grown groups met (the group lock is taken in one order)", c)
	}
}

// genTopology draws a random graph of duplicate_of edges, cycles allowed.
var genTopology = rapid.Custom(func(t *rapid.T) []int {
	n := rapid.IntRange(1, 7).Draw(t, "members")
	edges := make([]int, n)
	for i := range edges {
		edges[i] = rapid.IntRange(-1, n-1).Draw(t, fmt.Sprintf("edge%d", i))
		if edges[i] == i {
			edges[i] = -1
		}
	}
	return edges
})

func TestRandomTopologies(t *testing.T) {
	t.Parallel()
	w := newWorld(t, app.Config{})
	for seed := range 12 {
		edges := genTopology.Example(seed)
		t.Run(fmt.Sprint(edges), func(t *testing.T) {
			ids := w.Group(t, edges)
			// Each weakly connected component is a group of its own.
			for _, component := range components(edges) {
				members := make([]int64, 0, len(component))
				for _, i := range component {
					members = append(members, ids[i])
				}
				winner := approveConcurrently(t, w, w.App.Decisions, members, 16)
				checkOneEntry(t, w, members, winner)
			}
		})
	}
}

func components(edges []int) [][]int {
	parent := make([]int, len(edges))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			i = parent[i]
		}
		return i
	}
	for i, j := range edges {
		if j >= 0 {
			parent[find(i)] = find(j)
		}
	}
	groups := map[int][]int{}
	for i := range edges {
		groups[find(i)] = append(groups[find(i)], i)
	}
	var out [][]int
	for _, g := range groups {
		out = append(out, g)
	}
	return out
}

// barrier lets two approvers meet after their first lock: each waits until
// the other has arrived too, or is blocked behind a lock this one holds.
type barrier struct {
	mu      sync.Mutex
	arrived int
	db      *testkit.DB
}

func (b *barrier) wait(t *testing.T) func(ctx context.Context, tx pgx.Tx) {
	return func(ctx context.Context, tx pgx.Tx) {
		b.mu.Lock()
		b.arrived++
		b.mu.Unlock()
		bothArrived := func() bool {
			b.mu.Lock()
			defer b.mu.Unlock()
			return b.arrived >= 2
		}
		// In this test's database only the other approver can wait for a
		// lock, and only for one this approver holds.
		if err := testkit.PollForLockWaiter(ctx, b.db.Conn(t), bothArrived); err != nil {
			t.Errorf("the other approver never arrived nor blocked: %v", err)
		}
	}
}

func TestTheGroupLockIsTheFirstLock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		lockRowFirst bool
		wantConflict bool
	}{
		{"the group first, in id order: no deadlock", false, false},
		{"the row first (what the test guards against): deadlock", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, app.Config{})
			ids := w.Group(t, []int{-1, 0})
			b := &barrier{db: w.DB}
			d := review.WithTestOptions(w.App.Decisions, review.TestOptions{LockRowFirst: tc.lockRowFirst, AfterLock: b.wait(t)})
			// Two reviewers approve the two members in opposite orders at once.
			winner := approveConcurrently(t, w, d, []int64{ids[0], ids[1]}, 2)
			checkOneEntry(t, w, ids, winner)
			if got := d.Conflicts() > 0; got != tc.wantConflict {
				t.Fatalf("conflicts met: %d; want some: %v", d.Conflicts(), tc.wantConflict)
			}
		})
	}
}

// While an approve waits for its group, it holds nothing: not even its own
// row. (An approve that locked its row first and then waited for a member
// another approver holds is one half of a deadlock.) A probe locks the
// approving row with NOWAIT while the approve waits.
func TestApproveHoldsNothingWhileItWaitsForTheGroup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		rowFirst bool
	}{
		{"the group lock first", false},
		{"the row first (what the test guards against)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := newWorld(t, app.Config{})
			ids := w.Group(t, []int{-1, 0})
			// Another transaction holds the older member.
			tx, err := w.DB.Conn(t).Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(ctx) }()
			if _, err := tx.Exec(ctx, `SELECT 1 FROM intake_documents WHERE id = $1 FOR UPDATE`, ids[0]); err != nil {
				t.Fatal(err)
			}
			d := review.WithTestOptions(w.App.Decisions, review.TestOptions{LockRowFirst: tc.rowFirst})
			done := make(chan error, 1)
			go func() {
				_, err := d.Approve(ctx, w.Org.ID, ids[1], w.Actor)
				done <- err
			}()
			testkit.WaitForLockWaiter(t, w.DB.Conn(t))
			_, probe := w.DB.Conn(t).Exec(ctx, `SELECT 1 FROM intake_documents WHERE id = $1 FOR UPDATE NOWAIT`, ids[1])
			if err := tx.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatalf("the approve, once the member was free: %v", err)
			}
			var pgErr *pgconn.PgError
			held := errors.As(probe, &pgErr) && pgErr.Code == "55P03"
			if probe != nil && !held {
				t.Fatal(probe)
			}
			if held != tc.rowFirst {
				t.Fatalf("the approving row was locked while the approve waited for its group: %v", held)
			}
		})
	}
}

func TestTheLockCoversTheGroupNotOneEdge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		edgeOnly bool
	}{
		{"the whole group is locked", false},
		{"one edge locked (what the test guards against)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, app.Config{})
			ids := w.Group(t, []int{-1, 0, 1}) // a chain: the ends share no edge
			b := &barrier{db: w.DB}
			d := review.WithTestOptions(w.App.Decisions, review.TestOptions{LockEdgeOnly: tc.edgeOnly, AfterLock: b.wait(t)})
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, id := range []int64{ids[0], ids[2]} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = d.Approve(context.Background(), w.Org.ID, id, w.Actor)
				}()
			}
			wg.Wait()
			both := errs[0] == nil && errs[1] == nil
			if both != tc.edgeOnly {
				t.Fatalf("both ends of the chain approved: %v (errors %v)", both, errs)
			}
		})
	}
}

func TestTheGroupGrowingWhileLockedIsSeen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		skipRecheck bool
	}{
		{"re-checked after the lock", false},
		{"not re-checked (what the test guards against)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := newWorld(t, app.Config{})
			ids := w.Group(t, []int{-1, 0})
			d := review.WithTestOptions(w.App.Decisions, review.TestOptions{SkipRecheck: tc.skipRecheck})

			// Another transaction holds the root, and files an accepted
			// member under it while the approve waits for the root.
			other := w.DB.Conn(t)
			tx, err := other.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, `SELECT 1 FROM intake_documents WHERE id = $1 FOR UPDATE`, ids[0]); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := d.Approve(ctx, w.Org.ID, ids[1], w.Actor)
				done <- err
			}()
			testkit.WaitForLockWaiter(t, w.DB.Conn(t))
			if _, err := tx.Exec(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via,
				received_by, status, doc_type, source_ref, fields, flag_reason, duplicate_of, duplicate_reason, queued_at, decided_by, decided_at)
				VALUES ($1, repeat('c', 64), 'application/xml', 1, 'api', 't', 'active', 'invoice', 'x', $2, 'duplicate', $3,
				'same_reference', now(), 'someone', now())`, w.Org.ID, w.Fields, ids[0]); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			err = <-done
			if tc.skipRecheck {
				if err != nil {
					t.Fatalf("without the re-check the approve went through the grown group: %v", err)
				}
				return
			}
			if !apperr.Is(err, apperr.DuplicateGroupConflict) {
				t.Fatalf("the approve missed the member that joined while it waited: %v", err)
			}
		})
	}
}

func TestMembersThatNeverBlock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	ids := w.Group(t, []int{-1, 0, 0})
	if _, err := w.App.Decisions.Reject(ctx, w.Org.ID, ids[0], "wrong supplier", w.Actor); err != nil {
		t.Fatal(err)
	}
	// A rejected document is not approved later (a new copy would be).
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, ids[0], w.Actor); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("approving a rejected document: %v", err)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM jobs WHERE intake_id = $1`, ids[0]); n != 0 {
		t.Fatalf("%d jobs for a rejected document", n)
	}
	// Pending, flagged and rejected members never block.
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, ids[2], w.Actor); err != nil {
		t.Fatalf("approving beside a rejected, a flagged and a pending member: %v", err)
	}
	w.WaitPosted(t, ids[2])
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, ids[2], w.Actor); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("approving a posted document: %v", err)
	}
	if _, err := w.App.Decisions.Reject(ctx, w.Org.ID, ids[1], "", w.Actor); !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("a reject without a reason: %v", err)
	}
}

// Reject takes the group lock too: a reject that comes while an approve of
// the same document is committing waits for it, then finds the document
// approved — it never overwrites an approval that holds a job.
func TestRejectWaitsForAnApprovalInFlight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	ids := w.Group(t, []int{-1, 0})
	inside, release := make(chan struct{}), make(chan struct{})
	w.Failpoints.Set(review.FailpointBeforeCommit, func(context.Context) error {
		close(inside)
		<-release
		return nil
	})
	approved := make(chan error, 1)
	go func() {
		_, err := w.App.Decisions.Approve(ctx, w.Org.ID, ids[1], w.Actor)
		approved <- err
	}()
	select {
	case <-inside:
	case err := <-approved:
		t.Fatalf("the approve never reached its commit: %v", err)
	}
	rejected := make(chan error, 1)
	go func() {
		_, err := w.App.Decisions.Reject(ctx, w.Org.ID, ids[1], "wrong supplier", w.Actor)
		rejected <- err
	}()
	testkit.WaitForLockWaiter(t, w.DB.Conn(t))
	close(release)
	if err := <-approved; err != nil {
		t.Fatal(err)
	}
	if err := <-rejected; !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("the reject after the approval committed: %v", err)
	}
	doc, err := intake.NewPGStore(w.DB.Pool).Get(ctx, w.Org.ID, ids[1])
	if err != nil || (doc.Status != intake.Active && doc.Status != intake.Posted) {
		t.Fatalf("the approved document is now %+v %v", doc.Status, err)
	}
}

func TestNotADuplicateLetsDistinctDocumentsEachBeApproved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	ids := w.Group(t, []int{-1, 0})
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, ids[0], w.Actor); err != nil {
		t.Fatal(err)
	}
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, ids[1], w.Actor); !apperr.Is(err, apperr.DuplicateGroupConflict) {
		t.Fatalf("before: %v", err)
	}
	admin := w.Actor
	admin.Label = "admin@example.test"
	d, err := w.App.Decisions.MarkDistinct(ctx, w.Org.ID, ids[1], "INV-1 of 2025 and INV-1 of 2026", admin)
	if err != nil || d.DuplicateOf != 0 || d.DistinctFrom != ids[0] || d.Status != intake.Pending {
		t.Fatalf("mark distinct: %+v %v", d, err)
	}
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, ids[1], w.Actor); err != nil {
		t.Fatalf("after: %v", err)
	}
	w.WaitPosted(t, ids[0])
	w.WaitPosted(t, ids[1])
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE action = 'not_a_duplicate' AND detail->>'reason' <> ''`); n != 1 {
		t.Fatal("not audited with its reason")
	}
	if _, err := w.App.Decisions.MarkDistinct(ctx, w.Org.ID, ids[0], "x y z", admin); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("marking a non-duplicate: %v", err)
	}
}
