package ledger_test

import (
	"context"
	"testing"

	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// TestPostTxWritesANewEntryInTheCallersTransaction proves that PostTx does
// all a post does inside the caller's transaction: it writes a new entry
// (in that transaction itself, not a savepoint of it), holds the source
// key's lock until the caller ends it, and the entry commits or rolls back
// with the caller's other work. A post of the same key from another
// session waits meanwhile, then replays the committed entry or, after a
// rollback, writes its own.
func TestPostTxWritesANewEntryInTheCallersTransaction(t *testing.T) {
	t.Parallel()
	for _, commit := range []bool{true, false} {
		name := map[bool]string{true: "the caller commits", false: "the caller rolls back"}[commit]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := testkit.NewDB(t)
			o := testkit.Org(t, db)
			req := bill(o, "caller")

			tx, err := db.Pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
			if _, err := tx.Exec(ctx, `INSERT INTO audit_events (org_id, actor, action) VALUES ($1, 'test', 'caller''s own work')`, o.ID); err != nil {
				t.Fatal(err)
			}
			res, err := ledger.PostTx(ctx, tx, req)
			if err != nil || res.Replayed || res.Entry.ID == 0 || len(res.Entry.Lines) != 3 {
				t.Fatalf("PostTx: %+v, %v; want a new entry", res, err)
			}
			var own bool
			if err := tx.QueryRow(ctx, `SELECT xmin = pg_current_xact_id()::xid FROM journal_entries WHERE id = $1`, res.Entry.ID).Scan(&own); err != nil || !own {
				t.Fatalf("the entry was not written by the caller's transaction itself: %v, %v", own, err)
			}

			// Another session's post of the key waits for the lock PostTx holds.
			done := make(chan error, 1)
			var other ledger.Result
			go func() {
				var err error
				other, err = ledger.Post(ctx, db.Pool, req)
				done <- err
			}()
			testkit.WaitForLockWaiter(t, db.Conn(t))
			if commit {
				err = tx.Commit(ctx)
			} else {
				err = tx.Rollback(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}

			callers := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'caller''s own work'`)
			entries := testkit.Count(t, db, `SELECT count(*) FROM journal_entries WHERE org_id = $1`, o.ID)
			switch {
			case commit && (!other.Replayed || other.Entry.ID != res.Entry.ID):
				t.Fatalf("after the caller committed, the waiting post got %+v; want a replay of entry %d", other, res.Entry.ID)
			case !commit && (other.Replayed || other.Entry.ID == res.Entry.ID):
				t.Fatalf("after the caller rolled back, the waiting post got %+v; want an entry of its own", other)
			case commit && callers != 1, !commit && callers != 0:
				t.Fatalf("%d rows of the caller's own work", callers)
			case entries != 1:
				t.Fatalf("%d entries, want 1", entries)
			}
		})
	}
}
