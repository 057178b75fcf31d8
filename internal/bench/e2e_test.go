package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/app"
	"greatbook/internal/database"
	"greatbook/internal/testkit"
)

// TestEndToEndPostsEveryApprovedDocumentOnce: the end-to-end figure approves
// through the app's approve with the app's workers and sweep running, and
// every approved document becomes exactly one journal entry; so too with
// two apps on one database (the bench's two-serves row), each with its
// own pool, workers and sweep and half the approvers. Correctness, not
// speed: no rate is asserted.
func TestEndToEndPostsEveryApprovedDocumentOnce(t *testing.T) {
	t.Parallel()
	for _, serves := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d serves", serves), func(t *testing.T) {
			t.Parallel()
			db := testkit.NewDB(t)
			ctx := context.Background()
			pools := []*pgxpool.Pool{db.Pool}
			for range serves - 1 {
				pool, err := database.Open(ctx, db.URL, app.PoolSize(ServeWorkers))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(pool.Close)
				pools = append(pools, pool)
			}
			const documents, approvers = 60, 4
			r, err := GreatbookEndToEndServes(ctx, pools, "e2e-test", documents, approvers)
			if err != nil {
				t.Fatal(err)
			}
			if r.Documents != documents || r.Entries != documents || r.DuplicateKeys != 0 {
				t.Fatalf("%d documents approved became %d entries, %d source keys with more than one", r.Documents, r.Entries, r.DuplicateKeys)
			}
			var posted, jobsDone, questions, runs, entries int
			if err := db.Pool.QueryRow(ctx, `SELECT
				(SELECT count(*) FROM intake_documents d JOIN journal_entries e ON e.id = d.result_entry_id AND e.source_id = d.id::text
				  WHERE d.status = 'posted'),
				(SELECT count(*) FROM jobs WHERE status = 'done'),
				(SELECT count(*) FROM runs WHERE state = 'paused'),
				(SELECT count(*) FROM runs),
				(SELECT count(*) FROM journal_entries)`).Scan(&posted, &jobsDone, &questions, &runs, &entries); err != nil {
				t.Fatal(err)
			}
			if posted != documents || jobsDone != documents || questions != 0 || runs != documents || entries != documents {
				t.Fatalf("posted %d (each with its own entry), jobs done %d, questions asked %d, runs %d, entries %d; want %d, %d, 0, %d, %d",
					posted, jobsDone, questions, runs, entries, documents, documents, documents, documents)
			}
			if r.P50 > r.P99 || r.Posting < r.Approving {
				t.Fatalf("inconsistent figures %+v", r)
			}
		})
	}
}
