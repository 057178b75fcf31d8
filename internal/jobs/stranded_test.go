package jobs_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/app"
	"greatbook/internal/database"
	"greatbook/internal/jobs"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
)

// A run that fails the same node twice while a live worker holds it is
// waiting out its backoff: not stranded (its retries are bounded, so that would be a false alarm),
// counted as in backoff on the runs page, and counted as running again
// once it moves on.
func TestARunWaitingItsBackoffIsNotStranded(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	ctx := context.Background()
	const id = "6f1d2c3b-0000-4000-8000-000000000001"
	if _, err := db.Pool.Exec(ctx, `INSERT INTO runs (id, org_id, kind, subject_id, next_node, data, last_error, lease_owner, lease_expires_at)
		VALUES ($1, $2, 'pipeline', 1, 'extract', '{}', 'ERROR: numeric field overflow (SQLSTATE 22003)', 'live', now() + interval '1 minute')`, id, o.ID); err != nil {
		t.Fatal(err)
	}
	checkpoint := func(seq int, outcome, note string) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, `INSERT INTO run_checkpoints (run_id, seq, node, outcome, data, note, worker)
			VALUES ($1, $2, 'extract', $3, '{}', $4, 'w')`, id, seq, outcome, note); err != nil {
			t.Fatal(err)
		}
	}
	check := func(wantRunning, wantBackoff int) {
		t.Helper()
		s, _, err := jobs.StrandedWork(ctx, db.Pool, o.ID, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != 0 {
			t.Errorf("a run its worker holds is not stranded: %+v", s)
		}
		c, err := runs.Counts(ctx, db.Pool, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Running != wantRunning || c.InBackoff != wantBackoff || c.Total() != 1 {
			t.Errorf("counts %+v, want running %d, in backoff %d", c, wantRunning, wantBackoff)
		}
	}
	checkpoint(1, "ok", "classified")
	check(1, 0)
	checkpoint(2, "retry", "attempt 1 failed")
	check(0, 1)
	checkpoint(3, "retry", "attempt 2 failed")
	check(0, 1)
	checkpoint(4, "ok", "extracted")
	check(1, 0)
}

func TestTheStrandedWorkCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := w.DB.Pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	if got, _, err := jobs.StrandedWork(ctx, w.DB.Pool, w.Org.ID, time.Minute); err != nil || len(got) != 0 {
		t.Fatalf("a fresh org has stranded work: %+v %v", got, err)
	}
	// Approved behind the outbox's back: no job, so nothing will post it.
	orphan := w.Doc(t, 0)
	exec(`UPDATE intake_documents SET status = 'active', decided_at = now() WHERE id = $1`, orphan)
	// A job out of attempts that nothing marked abandoned.
	spent := w.Doc(t, 0)
	exec(`UPDATE intake_documents SET status = 'active' WHERE id = $1`, spent)
	exec(`INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts, created_by) VALUES ($1, $2, 'failed', 5, 5, 'test')`, w.Org.ID, spent)
	// Received, with no pipeline run.
	exec(`INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by)
		VALUES ($1, repeat('a', 64), 'application/xml', 1, 'api', 'test')`, w.Org.ID)
	// Pending work the sweep will pick up is not stranded.
	pending := w.Doc(t, 0)
	exec(`UPDATE intake_documents SET status = 'active' WHERE id = $1`, pending)
	exec(`INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts, created_by) VALUES ($1, $2, 'pending', 0, 5, 'test')`, w.Org.ID, pending)

	if _, err := w.App.Outbox.Sweep(ctx, 100); err != nil {
		t.Fatal(err)
	}
	got, sweep, err := jobs.StrandedWork(ctx, w.DB.Pool, w.Org.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, s := range got {
		subjects = append(subjects, s.Subject)
		if s.Why == "" || s.Link == "" {
			t.Errorf("%+v says neither why nor where", s)
		}
	}
	slices.Sort(subjects)
	var jobID int64
	_ = w.DB.Pool.QueryRow(ctx, `SELECT id FROM jobs WHERE intake_id = $1`, spent).Scan(&jobID)
	var received int64
	_ = w.DB.Pool.QueryRow(ctx, `SELECT id FROM intake_documents WHERE org_id = $1 AND status = 'received'`, w.Org.ID).Scan(&received)
	want := []string{fmt.Sprintf("document %d", orphan), fmt.Sprintf("document %d", received), fmt.Sprintf("job %d", jobID)}
	slices.Sort(want)
	if !slices.Equal(subjects, want) {
		t.Fatalf("stranded: %v, want %v", subjects, want)
	}
	if sweep.LastPassAt == nil || time.Since(*sweep.LastPassAt) > time.Minute {
		t.Fatalf("the sweep's last pass: %+v", sweep)
	}
}

// Only an approval that commits without its job is noted for the check: the
// outbox's own approvals, whose job commits with them, are not, so the check
// reads the few noted rows however many documents were approved.
func TestOnlyAnApprovalWithoutAJobIsNoted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	noted := func() []int64 {
		t.Helper()
		rows, err := w.DB.Pool.Query(ctx, `SELECT document_id FROM approvals_without_job ORDER BY document_id`)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	// The job inserted after the status, in the same transaction, as an
	// approval does.
	withJob := w.Doc(t, 0)
	err := database.WithTx(ctx, w.DB.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE intake_documents SET status = 'active' WHERE id = $1`, withJob); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts, created_by) VALUES ($1, $2, 'pending', 0, 5, 'test')`, w.Org.ID, withJob)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := noted(); len(got) != 0 {
		t.Fatalf("an approval with its job is noted: %v", got)
	}
	orphan := w.Doc(t, 0)
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET status = 'active' WHERE id = $1`, orphan); err != nil {
		t.Fatal(err)
	}
	if got := noted(); !slices.Equal(got, []int64{orphan}) {
		t.Fatalf("noted %v, want [%d]", got, orphan)
	}
	// Once it has a job, its note goes and the check no longer lists it.
	if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts, created_by) VALUES ($1, $2, 'pending', 0, 5, 'test')`, w.Org.ID, orphan); err != nil {
		t.Fatal(err)
	}
	if got := noted(); len(got) != 0 {
		t.Fatalf("still noted once it has its job: %v", got)
	}
	got, _, err := jobs.StrandedWork(ctx, w.DB.Pool, w.Org.ID, time.Minute)
	if err != nil || len(got) != 0 {
		t.Fatalf("stranded: %+v %v", got, err)
	}
}
