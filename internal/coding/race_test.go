package coding_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"greatbook/internal/app"
	"greatbook/internal/app/apptest"
	"greatbook/internal/apperr"
	"greatbook/internal/coding"
	"greatbook/internal/einvoice"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

// fullCoding codes every line and remainder of document id to 6000.
func fullCoding(t *testing.T, w *apptest.World, id int64) []coding.Row {
	t.Helper()
	var raw []byte
	if err := w.DB.Pool.QueryRow(context.Background(), `SELECT fields FROM intake_documents WHERE id = $1`, id).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var d einvoice.Document
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	var rows []coding.Row
	for _, tg := range coding.Targets(d) {
		rows = append(rows, coding.Row{Line: tg.Line, Account: "6000", Amount: tg.Net})
	}
	return rows
}

// A coding change and an approval of the same document come one after the
// other, in the order they reach the document's row lock (the row approve's
// group lock takes, and Replace's first statement takes FOR UPDATE): the
// test holds that lock on a connection of its own, lets both queue behind
// it in a chosen order (each seen waiting in pg_blocking_pids), and lets go.
//
//   - coding first: the coding lands, and the approval after it counts on
//     the new coding (the document active, its approval kept, the rows the
//     reviewer's);
//   - approval first: the document is active and the coding is refused
//     with invalid_state, no row written;
//   - approval first, short of a two-approval policy: the coding lands and
//     the approval given before it is discarded.
//
// Without FOR UPDATE in Replace's first statement, Replace reads the
// document pending while the approval waits, and its coding lands on the
// document the approval then activated: the second case fails.
func TestACodingChangeAndAnApprovalComeOneAfterTheOther(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                    string
		codingFirst, twoNeeded  bool
		wantStatus              string
		wantRows, wantApprovals int
		wantRefused             bool
	}{
		{name: "coding first", codingFirst: true, wantStatus: "active", wantRows: -1, wantApprovals: 1},
		{name: "approval first", wantStatus: "active", wantRows: 0, wantApprovals: 1, wantRefused: true},
		{name: "approval first, two needed", twoNeeded: true, wantStatus: "pending", wantRows: -1, wantApprovals: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := apptest.NewWorld(t, app.Config{Workers: -1})
			if tc.twoNeeded {
				if _, err := org.SetApprovalPolicy(ctx, w.DB.Pool, w.Org.ID, org.ApprovalPolicy{Rules: []org.ApprovalRule{{MinAmount: "0.00", Approvals: 2}}}, w.Actor); err != nil {
					t.Fatal(err)
				}
			}
			id := w.Doc(t, 0)
			rows := fullCoding(t, w, id)

			holder, err := w.DB.Pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = holder.Rollback(ctx) }()
			if _, err := holder.Exec(ctx, `SELECT 1 FROM intake_documents WHERE id = $1 FOR UPDATE`, id); err != nil {
				t.Fatal(err)
			}
			waiting := func(n int) {
				t.Helper()
				if err := testkit.Poll(20*time.Second, func() (bool, error) {
					var got int
					err := w.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
						WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0`).Scan(&got)
					return got == n, err
				}); err != nil {
					t.Fatalf("waiting for %d blocked connections: %v", n, err)
				}
			}
			coded, approved := make(chan error, 1), make(chan error, 1)
			code := func() {
				_, err := coding.Replace(ctx, w.DB.Pool, w.Org.ID, id, rows, w.Actor)
				coded <- err
			}
			approve := func() {
				_, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, w.Actor)
				approved <- err
			}
			first, second := approve, code
			if tc.codingFirst {
				first, second = code, approve
			}
			go first()
			waiting(1)
			go second()
			waiting(2)
			if err := holder.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-approved; err != nil {
				t.Fatalf("approve: %v", err)
			}
			err = <-coded
			if tc.wantRefused != (err != nil) || err != nil && !apperr.Is(err, apperr.InvalidState) {
				t.Fatalf("coding: %v (refusal wanted: %v, as invalid_state)", err, tc.wantRefused)
			}

			var status string
			if err := w.DB.Pool.QueryRow(ctx, `SELECT status FROM intake_documents WHERE id = $1`, id).Scan(&status); err != nil {
				t.Fatal(err)
			}
			want := tc.wantRows
			if want < 0 {
				want = len(rows)
			}
			n := testkit.Count(t, w.DB, `SELECT count(*) FROM intake_coding WHERE intake_id = $1 AND source = 'reviewer'`, id)
			approvals := testkit.Count(t, w.DB, `SELECT count(*) FROM intake_approvals WHERE intake_id = $1`, id)
			if status != tc.wantStatus || n != want || approvals != tc.wantApprovals {
				t.Fatalf("after the race: %s with %d coding rows and %d approvals, want %s, %d, %d", status, n, approvals, tc.wantStatus, want, tc.wantApprovals)
			}
		})
	}
}
