package bench

import (
	"context"
	"testing"

	"greatbook/internal/testkit"
)

// TestEndToEndPostsEveryApprovedDocumentOnce: the end-to-end figure approves
// through the app's approve with the app's workers and sweep running, and
// every approved document becomes exactly one journal entry. Correctness,
// not speed: no rate is asserted.
func TestEndToEndPostsEveryApprovedDocumentOnce(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	const documents, approvers = 60, 4
	r, err := GreatbookEndToEnd(ctx, db.Pool, "e2e-test", documents, approvers)
	if err != nil {
		t.Fatal(err)
	}
	if r.Documents != documents || r.Entries != documents || r.DuplicateKeys != 0 {
		t.Fatalf("%d documents approved became %d entries, %d source keys with more than one", r.Documents, r.Entries, r.DuplicateKeys)
	}
	var posted, jobsDone, questions int
	if err := db.Pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM intake_documents d JOIN journal_entries e ON e.id = d.result_entry_id AND e.source_id = d.id::text
		  WHERE d.status = 'posted'),
		(SELECT count(*) FROM jobs WHERE status = 'done'),
		(SELECT count(*) FROM runs WHERE state = 'paused')`).Scan(&posted, &jobsDone, &questions); err != nil {
		t.Fatal(err)
	}
	if posted != documents || jobsDone != documents || questions != 0 {
		t.Fatalf("posted %d (each with its own entry), jobs done %d, questions asked %d; want %d, %d, 0", posted, jobsDone, questions, documents, documents)
	}
	if r.P50 > r.P99 || r.Posting < r.Approving {
		t.Fatalf("inconsistent figures %+v", r)
	}
}
