package ui_test

import (
	"context"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/web/webtest"
)

// The runs page counts runs per state, and a run that a live worker holds
// while it waits out its backoff is counted as such, not listed as
// stranded: its retries are bounded and it fails when they are used up, so
// calling it stranded would be a false alarm.
func TestTheRunsPageCountsPerStateAndABackoffIsNotStranded(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, _, c, _ := a.SignedInClient(t, auth.RoleAdmin)
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO runs (id, org_id, kind, subject_id, next_node, data, last_error, lease_owner, lease_expires_at)
		 VALUES ('6f1d2c3b-0000-4000-8000-000000000001', $1, 'pipeline', 1, 'extract', '{}', 'connection refused', 'live', now() + interval '1 minute')`,
		`INSERT INTO run_checkpoints (run_id, seq, node, outcome, data, note, worker) VALUES
		 ('6f1d2c3b-0000-4000-8000-000000000001', 1, 'extract', 'retry', '{}', 'attempt 1 failed', 'w'),
		 ('6f1d2c3b-0000-4000-8000-000000000001', 2, 'extract', 'retry', '{}', 'attempt 2 failed', 'w')`,
		`INSERT INTO runs (id, org_id, kind, subject_id, state, next_node, data, finished_at)
		 VALUES ('6f1d2c3b-0000-4000-8000-000000000002', $1, 'pipeline', 2, 'done', NULL, '{}', now())`,
		`INSERT INTO runs (id, org_id, kind, subject_id, state, next_node, data, question)
		 VALUES ('6f1d2c3b-0000-4000-8000-000000000003', $1, 'bookkeeper', 3, 'paused', 'account', '{}', '{"kind": "expense_account"}')`,
	} {
		if _, err := a.DB.Pool.Exec(ctx, strings.ReplaceAll(q, "$1", webtest.Itoa(o.ID))); err != nil {
			t.Fatal(err)
		}
	}
	d := webtest.Doc(t, webtest.Get(t, c, a.URL+"/admin/runs"))
	if n := d.Find("[data-testid=stranded-item]").Length(); n != 0 {
		t.Errorf("a run waiting its backoff is listed as stranded (%d items): %s", n, d.Find("[data-testid=stranded]").Text())
	}
	for testid, want := range map[string]string{"run-count-all": "3", "run-count-running": "0", "run-count-backoff": "1",
		"run-count-paused": "1", "run-count-done": "1", "run-count-failed": "0"} {
		got := strings.TrimSpace(d.Find("[data-testid=" + testid + "] .count").Text())
		if got != want {
			t.Errorf("%s = %q, want %q", testid, got, want)
		}
	}
}
