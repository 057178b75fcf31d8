package review_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/bench"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
)

// TestAGroupIsReadByItsMembersNotByTheOrg: the group lock, the first
// statement of every decision, and the group read behind the pages read
// the group's rows by id, never the org's documents or the table; so do
// the listing, a page's groups at once, and the queue, each row's. With
// `d.id IN (group)` the planner guessed 200 members, and from about a
// thousand documents on it scanned every document of the table to lock one
// (in the end-to-end bench, half the server's time); for a small org among
// large ones it walked the org's rows in an index instead. Proved on the
// statistics of a table of 3,000 documents, then of 11,300 (orgs of 3,000,
// 4,000, 300 and 4,000, each read), with custom and generic plans alike
// (pgx prepares statements, and the server switches to a generic plan): no
// sequential scan, and no more rows fetched than the groups hold.
func TestAGroupIsReadByItsMembersNotByTheOrg(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	type read struct {
		groups int // the groups of one member each that one read reads
		run    func(tx pgx.Tx, seed bench.EndToEndSeed) error
	}
	reads := map[string]read{
		"the group lock": {1, func(tx pgx.Tx, seed bench.EndToEndSeed) error {
			rows, err := tx.Query(ctx, review.Statements.LockGroup, seed.IDs[len(seed.IDs)/2], seed.Org.ID)
			if err != nil {
				return err
			}
			rows.Close()
			return rows.Err()
		}},
		"the group read": {1, func(tx pgx.Tx, seed bench.EndToEndSeed) error {
			_, err := review.Group(ctx, tx, seed.Org.ID, seed.IDs[len(seed.IDs)/2])
			return err
		}},
		"the queue's group summaries": {50, func(tx pgx.Tx, seed bench.EndToEndSeed) error {
			rows, err := tx.Query(ctx, `SELECT d.id, g.members FROM intake_documents d `+review.GroupSummarySQL+`
				WHERE d.id = ANY ($1) ORDER BY d.id`, seed.IDs[:50])
			if err != nil {
				return err
			}
			rows.Close()
			return rows.Err()
		}},
		"the listing's groups": {50, func(tx pgx.Tx, seed bench.EndToEndSeed) error {
			_, err := review.Groups(ctx, tx, seed.Org.ID, seed.IDs[:50])
			return err
		}},
	}
	check := func(seeds []bench.EndToEndSeed) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, "ANALYZE"); err != nil {
			t.Fatal(err)
		}
		for name, r := range reads {
			for _, seed := range seeds {
				checkRead(t, db, name, r.groups, seed, func(tx pgx.Tx) error { return r.run(tx, seed) })
			}
		}
	}
	var seeds []bench.EndToEndSeed
	for i, n := range []int{3000, 4000, 300, 4000} {
		seed, err := bench.SeedEndToEnd(ctx, db.Pool, fmt.Sprintf("group-plan-%d", i), n)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, seed)
		if i == 0 {
			check(seeds) // a table of 3,000 documents: the old plans scanned it
		}
	}
	check(seeds) // 11,300 documents: the old plans walked a small org's rows
}

// checkRead runs read twice in a transaction with custom plans, then with
// generic ones, and fails when it scanned intake_documents sequentially or
// fetched more rows than groups groups of one member hold.
func checkRead(t *testing.T, db *testkit.DB, name string, groups int, seed bench.EndToEndSeed, read func(pgx.Tx) error) {
	t.Helper()
	ctx := context.Background()
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
		counters := func() (scans, fetched int64) {
			if err := tx.QueryRow(ctx, `SELECT coalesce(sum(seq_scan), 0), coalesce(sum(seq_tup_read + idx_tup_fetch), 0)
				FROM pg_stat_xact_user_tables WHERE relname = 'intake_documents'`).Scan(&scans, &fetched); err != nil {
				t.Fatal(err)
			}
			return scans, fetched
		}
		scans0, fetched0 := counters()
		// Twice: a generic plan is built on the second execution of a prepared statement at the latest.
		for range 2 {
			if err := read(tx); err != nil {
				t.Fatalf("%s (%s): %v", name, mode, err)
			}
		}
		scans1, fetched1 := counters()
		_ = tx.Rollback(ctx)
		// Each group of one: its row, and at most its edge lookups.
		if scans, fetched := scans1-scans0, fetched1-fetched0; scans != 0 || fetched > int64(2*3*groups) {
			t.Errorf("%s (%s) in an org of %d documents: %d sequential scans of intake_documents, %d rows read, in two reads of %d groups of one",
				name, mode, len(seed.IDs), scans, fetched, groups)
		}
	}
}
