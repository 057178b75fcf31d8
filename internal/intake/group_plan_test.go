package intake_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/bench"
	"greatbook/internal/intake"
	"greatbook/internal/testkit"
)

// TestAGroupIsReadByItsMembersNotByTheOrg: the group lock, the first
// statement of every decision, and the group read behind the pages read
// the group's rows by id, never the org's whole table; so does the
// listing, a page's groups at once, and the queue, each row's. With `d.id IN
// (group)` the planner guessed 200 members, and from about a thousand
// documents on it scanned every document of the table to lock one (in the
// end-to-end bench, half the server's time). Proved on the statistics of
// an org of 3,000 documents, with custom and generic plans alike (pgx
// prepares statements, and the server switches to a generic plan).
func TestAGroupIsReadByItsMembersNotByTheOrg(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	seed, err := bench.SeedEndToEnd(ctx, db.Pool, "group-plan", 3000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	id := seed.IDs[len(seed.IDs)/2]
	reads := map[string]func(tx pgx.Tx) error{
		"the group lock": func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, intake.Statements.LockGroup, id, seed.Org.ID)
			if err != nil {
				return err
			}
			rows.Close()
			return rows.Err()
		},
		"the group read": func(tx pgx.Tx) error {
			_, err := intake.Group(ctx, tx, seed.Org.ID, id)
			return err
		},
		"the queue's group summaries": func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `SELECT d.id, g.members FROM intake_documents d `+intake.GroupSummarySQL+`
				WHERE d.id = ANY ($1) ORDER BY d.id`, seed.IDs[:50])
			if err != nil {
				return err
			}
			rows.Close()
			return rows.Err()
		},
		"the listing's groups": func(tx pgx.Tx) error {
			_, err := intake.Groups(ctx, tx, seed.Org.ID, seed.IDs[:50])
			return err
		},
	}
	for name, read := range reads {
		for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
			tx, err := db.Pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = "+mode); err != nil {
				t.Fatal(err)
			}
			// The transaction's own counters (pending ones are flushed only
			// outside a transaction block): no wait for the statistics.
			scans := func() int64 {
				var n int64
				if err := tx.QueryRow(ctx, `SELECT coalesce((SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 'intake_documents'), 0)`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			before := scans()
			// Twice: a generic plan is built on the second execution of a prepared statement at the latest.
			for range 2 {
				if err := read(tx); err != nil {
					t.Fatalf("%s (%s): %v", name, mode, err)
				}
			}
			n := scans() - before
			_ = tx.Rollback(ctx)
			if n != 0 {
				t.Errorf("%s (%s) scanned intake_documents whole %d times in two reads of a group of one", name, mode, n)
			}
		}
	}
}
