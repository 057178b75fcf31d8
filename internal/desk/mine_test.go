package desk_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/desk"
	"greatbook/internal/org"
)

// The Mine tab holds the pending and flagged documents the reader may
// approve now, by approve's rules: not those they approved already, nor,
// under a policy that separates submitters, those they submitted. Its
// count, its pages in either order and a document's place in it agree.
func TestTheMineTabHoldsWhatTheReaderMayApprove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	alice, bob := audit.Actor{Label: "alice@example.test"}, audit.Actor{Label: "bob@example.test"}
	if _, err := org.SetApprovalPolicy(ctx, w.DB.Pool, w.Org.ID, org.ApprovalPolicy{SeparateSubmitter: true,
		Rules: []org.ApprovalRule{{MinAmount: "0.00", Approvals: 2}}}, audit.System("test")); err != nil {
		t.Fatal(err)
	}
	submitted := w.Doc(t, 0)
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET received_by = $2 WHERE id = $1`, submitted, alice.Label); err != nil {
		t.Fatal(err)
	}
	approved := w.Doc(t, 0)
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, approved, alice); err != nil {
		t.Fatal(err)
	}
	open := w.Doc(t, 0)
	flagged := w.Doc(t, open)
	rejected := w.Doc(t, 0)
	if _, err := w.App.Decisions.Reject(ctx, w.Org.ID, rejected, "not ours", bob); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		who  audit.Actor
		want []int64 // newest first
	}{
		{alice, []int64{flagged, open}},
		{bob, []int64{flagged, open, approved, submitted}},
	} {
		for _, order := range []desk.QueueOrder{desk.DefaultOrder, {Key: desk.SortReceived}, {Key: desk.SortAmount, Desc: true}} {
			p, err := desk.Queue(ctx, w.DB.Pool, w.Org.ID, desk.QueueFilter{Tab: desk.TabMine, Order: order, Approver: tc.who.Label})
			if err != nil {
				t.Fatal(err)
			}
			got, want := ids(p.Rows), slices.Clone(tc.want)
			if order == (desk.QueueOrder{Key: desk.SortReceived}) {
				slices.Reverse(want)
			}
			if order.Key != desk.SortAmount && !slices.Equal(got, want) {
				t.Errorf("%s, %s: %v, want %v", tc.who.Label, order, got, want)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s, %s: rows %v, want %v", tc.who.Label, order, got, want)
			}
			if c := p.Counts[desk.TabMine]; c != (desk.TabCount{N: len(tc.want)}) {
				t.Errorf("%s: count %+v, want %d", tc.who.Label, c, len(tc.want))
			}
			if c := p.Counts[desk.TabNeedsReview]; c != (desk.TabCount{N: 4}) {
				t.Errorf("%s: needs review %+v, want 4", tc.who.Label, c)
			}
		}
	}
	// Every row says its approvals of the count the policy asks; a decided
	// one, none.
	all, err := desk.Queue(ctx, w.DB.Pool, w.Org.ID, desk.QueueFilter{Tab: desk.TabAll, Approver: bob.Label})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all.Rows {
		want := [2]int{0, 2}
		switch r.ID {
		case approved:
			want = [2]int{1, 2}
		case rejected:
			want = [2]int{0, 0}
		}
		if got := [2]int{r.Approvals, r.ApprovalsRequired}; got != want {
			t.Errorf("row %d: approvals %v, want %v", r.ID, got, want)
		}
	}
	pos, err := desk.Position(ctx, w.DB.Pool, w.Org.ID, desk.QueueFilter{Tab: desk.TabMine, Approver: alice.Label}, flagged)
	if err != nil || pos != (desk.QueuePosition{Next: open}) {
		t.Fatalf("alice's next after %d: %+v %v, want %d", flagged, pos, err, open)
	}
	pos, err = desk.Position(ctx, w.DB.Pool, w.Org.ID, desk.QueueFilter{Tab: desk.TabMine, Order: desk.QueueOrder{Key: desk.SortReceived}, Approver: alice.Label}, open)
	if err != nil || pos != (desk.QueuePosition{Next: flagged}) {
		t.Fatalf("alice's next after %d, oldest first: %+v %v, want %d", open, pos, err, flagged)
	}

	// Without the separation, the uploader's own document is theirs to approve.
	if _, err := org.SetApprovalPolicy(ctx, w.DB.Pool, w.Org.ID, org.ApprovalPolicy{
		Rules: []org.ApprovalRule{{MinAmount: "0.00", Approvals: 2}}}, audit.System("test")); err != nil {
		t.Fatal(err)
	}
	counts, err := desk.TabCounts(ctx, w.DB.Pool, w.Org.ID, alice.Label)
	if err != nil || counts[desk.TabMine] != (desk.TabCount{N: 3}) {
		t.Fatalf("alice, not separated: %+v %v, want 3", counts[desk.TabMine], err)
	}
	// And the count then reads no document's row, only the ids and the
	// approvals: its lookup of the submitters is never executed.
	rows, err := w.DB.Pool.Query(ctx, `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) `+desk.TabCountsSQL, w.Org.ID, 1000, []string{"pending", "flagged"}, alice.Label, []string{"pending", "flagged"})
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	lookups := 0
	for _, l := range lines {
		if strings.Contains(l, " on intake_documents d ") || strings.HasSuffix(l, " on intake_documents d") {
			lookups++
			if !strings.Contains(l, "never executed") {
				t.Errorf("the count reads documents' rows without a separating policy:\n%s", strings.Join(lines, "\n"))
			}
		}
	}
	if lookups == 0 {
		t.Errorf("no lookup of the submitters in the count's plan:\n%s", strings.Join(lines, "\n"))
	}
}

// The Mine tab's page and the tabs' counts read intake_documents through
// its indexes, and the approvals and submitters by key: no sequential scan
// is in their plans even where the planner would rather take one.
func TestTheMineTabUsesIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	if _, err := org.SetApprovalPolicy(ctx, w.DB.Pool, w.Org.ID, org.ApprovalPolicy{SeparateSubmitter: true,
		Rules: []org.ApprovalRule{{MinAmount: "0.00", Approvals: 2}}}, audit.System("test")); err != nil {
		t.Fatal(err)
	}
	plan := planWithoutSeqScans(t, w.DB.Pool)
	page, args, err := desk.QueueQuery(ctx, w.DB.Pool, w.Org.ID, desk.QueueFilter{Tab: desk.TabMine, PageSize: 50, Order: desk.DefaultOrder, Approver: "alice@example.test"})
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]string{
		"page":   plan(page, args...),
		"counts": plan(desk.TabCountsSQL, w.Org.ID, 1000, []string{"pending", "flagged"}, "alice@example.test", []string{"pending", "flagged"}),
	} {
		if strings.Contains(p, "Seq Scan") {
			t.Errorf("the %s reads a table in full:\n%s", name, p)
		}
	}
}
