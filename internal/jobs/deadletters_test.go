package jobs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/internal/jobs"
	"greatbook/internal/testkit"
)

// The confirmation of a bulk retry names the set the dry run counted, not
// only its size: after someone else retried one of them and a new dead
// letter arrived, the filter matches as many, but not the ones the
// operator saw, and nothing is retried.
func TestBulkRetryRetriesOnlyTheSetItCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	deadLetter := func(number string) (job int64) {
		id := w.Doc(t, 0)
		w.Named(t, id, "Acme Oy", number, "")
		if err := w.DB.Pool.QueryRow(ctx, `INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts, last_error,
			error_class, created_by) VALUES ($1, $2, 'abandoned', 5, 5, 'posting service unavailable', 'transient', 'test')
			RETURNING id`, w.Org.ID, id).Scan(&job); err != nil {
			t.Fatal(err)
		}
		return job
	}
	a, b := deadLetter("N-1"), deadLetter("N-2")
	acme := jobs.DeadLetterFilter{Supplier: "acme"}
	dry, err := jobs.DryRunRetry(ctx, w.DB.Pool, w.Org.ID, acme)
	if err != nil || dry.Count != 2 {
		t.Fatalf("dry run: %+v %v", dry, err)
	}
	// Meanwhile another operator revives the first, and a new one arrives.
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE jobs SET status = 'launched' WHERE id = $1`, a); err != nil {
		t.Fatal(err)
	}
	deadLetter("N-3")
	admin := w.Actor
	admin.Label = "admin@example.test"
	_, err = w.App.Outbox.RetryMatching(ctx, w.Org.ID, acme, "posting service back", dry, admin)
	if !apperr.Is(err, apperr.InvalidState) || !strings.Contains(err.Error(), "not the ones you counted") {
		t.Fatalf("a confirmation of another set: %v", err)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM jobs WHERE org_id = $1 AND status = 'abandoned'`, w.Org.ID); n != 2 {
		t.Fatalf("the refused bulk retry touched %d dead letters", 2-n)
	}
	again, err := jobs.DryRunRetry(ctx, w.DB.Pool, w.Org.ID, acme)
	if err != nil || again.Count != 2 || again.Set == dry.Set {
		t.Fatalf("a new dry run: %+v %v (the first: %+v)", again, err, dry)
	}
	// The same jobs, but one was retried by someone else and failed again:
	// not the dead letter the operator counted either.
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE jobs SET attempts = attempts + 1 WHERE id = $1`, b); err != nil {
		t.Fatal(err)
	}
	if _, err := w.App.Outbox.RetryMatching(ctx, w.Org.ID, acme, "posting service back", again, admin); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("a confirmation of a set retried meanwhile: %v", err)
	}
}

func TestBulkRetryRetriesWhatTheDryRunCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{RetryBackoff: time.Millisecond, MaxAttempts: 1})
	fix := w.FailLaunches("posting service unavailable")
	var docs []int64
	for i, supplier := range []string{"Acme Oy", "Acme Oy", "Birch Ltd"} {
		id := w.Doc(t, 0)
		w.Named(t, id, supplier, fmt.Sprintf("N-%d", i), "")
		if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, w.Actor); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, id)
	}
	for _, id := range docs {
		if j, _, _ := jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, id); j.Status != jobs.Abandoned {
			t.Fatalf("job of %d is %s, want abandoned after its one attempt", id, j.Status)
		}
	}
	acme := jobs.DeadLetterFilter{Supplier: "acme"}
	dry, err := jobs.DryRunRetry(ctx, w.DB.Pool, w.Org.ID, acme)
	if err != nil || dry.Count != 2 {
		t.Fatalf("dry run: %+v %v, want 2", dry, err)
	}
	fix()
	admin := w.Actor
	admin.Label = "admin@example.test"

	// A stale count (someone else's retry, or a new dead letter, since the
	// dry run) retries nothing.
	if _, err := w.App.Outbox.RetryMatching(ctx, w.Org.ID, acme, "posting service back", jobs.DryRun{Count: 3, Set: dry.Set}, admin); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("a stale count: %v", err)
	}
	if _, err := w.App.Outbox.RetryMatching(ctx, w.Org.ID, acme, "", dry, admin); !apperr.Is(err, apperr.Invalid) {
		t.Fatalf("no reason: %v", err)
	}
	res, err := w.App.Outbox.RetryMatching(ctx, w.Org.ID, acme, "posting service back", dry, admin)
	if err != nil || res.Matched != 2 || res.Launched != 2 {
		t.Fatalf("bulk retry: %+v %v", res, err)
	}
	w.WaitPosted(t, docs[0])
	w.WaitPosted(t, docs[1])
	if j, _, _ := jobs.ForDocument(ctx, w.DB.Pool, w.Org.ID, docs[2]); j.Status != jobs.Abandoned {
		t.Fatalf("the filter's outsider was retried: %+v", j)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'bulk_retry'
		AND actor = 'admin@example.test' AND detail->>'reason' = 'posting service back' AND (detail->>'matched')::int = 2`, w.Org.ID); n != 1 {
		t.Fatalf("the bulk retry is audited %d times with its actor and reason, want 1", n)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'job_launched'
		AND actor = 'admin@example.test'`, w.Org.ID); n != 2 {
		t.Fatalf("each retried job is audited with the actor: %d, want 2", n)
	}
	// Dead letters are never pruned: the outsider is still listed after a sweep.
	if _, err := w.App.Outbox.Sweep(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if list, _ := jobs.DeadLetters(ctx, w.DB.Pool, w.Org.ID, jobs.DeadLetterFilter{}); len(list) != 1 || list[0].IntakeID != docs[2] {
		t.Fatalf("dead letters after the retry: %+v", list)
	}
}
