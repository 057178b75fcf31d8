package review_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/org"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
)

// policy is an approval policy of rules (min_amount, approvals pairs).
func policy(separate bool, pairs ...any) org.ApprovalPolicy {
	p := org.ApprovalPolicy{SeparateSubmitter: separate}
	for i := 0; i < len(pairs); i += 2 {
		p.Rules = append(p.Rules, org.ApprovalRule{MinAmount: pairs[i].(string), Approvals: pairs[i+1].(int)})
	}
	return p
}

// activations counts the approvals that made document id active.
func (w *world) activations(t *testing.T, id int64) int {
	return testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE subject_id = $1 AND action = 'approve'`, id)
}

// approvalsOf are who approved document id, oldest first.
func (w *world) approvalsOf(t *testing.T, id int64) review.ApprovalState {
	t.Helper()
	st, err := review.Approvals(context.Background(), w.DB.Pool, w.Org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func approvers(st review.ApprovalState) []string {
	out := []string{}
	for _, g := range st.Approvals {
		out = append(out, g.By)
	}
	return out
}

// Typing a document's facts in again (pipeline.TypeIn) forgets its
// approvals: what was approved is no longer what it says. The approval
// given before counts no more: the next one is the first of two again.
func TestTypingInAgainEmptiesTheApprovals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	w.setPolicy(t, false, "0.00", 2)
	// An invalid e-invoice: approvable with an acknowledgement, and one a
	// person may type in.
	id := w.flagInvalid(t, `[{"code":"BR-CO-16","severity":"fatal","field":"totals.payable","message":"amount due 337.90 ≠ 336.90"}]`)
	ack := review.Acknowledgement{Invalid: true, Reason: "the supplier confirmed the amount"}
	if a, err := w.App.Decisions.ApproveWith(ctx, w.Org.ID, id, alice, ack); err != nil || a.Complete || len(a.Approvals) != 1 {
		t.Fatalf("the first approval: %+v %v", a, err)
	}
	var d einvoice.Document
	if err := json.Unmarshal(w.Fields, &d); err != nil {
		t.Fatal(err)
	}
	doc, findings, err := w.App.Pipeline.TypeIn(ctx, w.Org.ID, id, d, carol)
	if err != nil || einvoice.HasFatal(findings) || doc.Status != intake.Pending {
		t.Fatalf("typed in: %+v %v %v", doc.Status, findings, err)
	}
	if st := w.approvalsOf(t, id); len(st.Approvals) != 0 || st.Required != 2 {
		t.Fatalf("after typing in again: %+v", st)
	}
	// Alice may approve the new facts, and hers is the first approval again.
	a, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, alice)
	if err != nil || a.Complete || len(a.Approvals) != 1 || w.jobs(t, id) != 0 {
		t.Fatalf("the first approval of the new facts: %+v %v", a, err)
	}
	if a, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, bob); err != nil || !a.Complete {
		t.Fatalf("the second approval of the new facts: %+v %v", a, err)
	}
}

// A tightened rule asks the next approvals: the approval given stays and
// counts, and the document needs as many more as the new rule asks.
func TestATightenedPolicyAsksTheNextApprovals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	w.setPolicy(t, false, "0.00", 2)
	id := w.Doc(t, 0)
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, alice); err != nil {
		t.Fatal(err)
	}
	w.setPolicy(t, false, "0.00", 3)
	if st := w.approvalsOf(t, id); st.Required != 3 || len(st.Approvals) != 1 {
		t.Fatalf("after the rule rose: %+v", st)
	}
	a, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, bob)
	if err != nil || a.Complete || a.Status != intake.Pending || a.Required != 3 || len(a.Approvals) != 2 || w.jobs(t, id) != 0 {
		t.Fatalf("bob's, the second of three: %+v %v", a, err)
	}
	a, err = w.App.Decisions.Approve(ctx, w.Org.ID, id, carol)
	if err != nil || !a.Complete || a.Status != intake.Active || len(a.Approvals) != 3 {
		t.Fatalf("carol's, the third of three: %+v %v", a, err)
	}
	if w.activations(t, id) != 1 || w.jobs(t, id) != 1 {
		t.Fatal("not one activation and one job")
	}
}

// A loosened rule activates no half-approved document by itself: the status
// changes only by an approval. The approval given stays; the same person
// again is still refused; the next approval by another person completes it.
func TestALoosenedPolicyActivatesNothingByItself(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	w.setPolicy(t, false, "0.00", 2)
	id := w.Doc(t, 0)
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, alice); err != nil {
		t.Fatal(err)
	}
	w.setPolicy(t, false, "0.00", 1)
	st := w.approvalsOf(t, id)
	if st.Required != 1 || len(st.Approvals) != 1 || st.Approvals[0].By != alice.Label {
		t.Fatalf("after the rule dropped: %+v", st)
	}
	if w.status(t, id) != intake.Pending || w.jobs(t, id) != 0 || w.activations(t, id) != 0 {
		t.Fatalf("the policy change activated the document: %s", w.status(t, id))
	}
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, alice); !apperr.Is(err, apperr.InvalidState) || reasonOf(err) != review.ReasonAlreadyApproved {
		t.Fatalf("alice again: %v", err)
	}
	a, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, bob)
	if err != nil || !a.Complete || a.Status != intake.Active || a.Required != 1 || len(a.Approvals) != 2 {
		t.Fatalf("bob's completes it: %+v %v", a, err)
	}
	if w.activations(t, id) != 1 || w.jobs(t, id) != 1 {
		t.Fatal("not one activation and one job")
	}
	w.WaitPosted(t, id)
}

// A policy write racing an approval, on two connections: the approval is
// judged by the policy committed when its recording statement began. A
// write committed after that (while the approval's transaction is still
// open) does not change its outcome, and neither waits for the other: the
// policy write commits while the approval holds its group lock. Then the
// approval is judged by the policy it read, whichever way the rule moved.
func TestAPolicyWriteRacingAnApprovalJudgesByThePolicyItRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		before       int // approvals asked before the write
		given        []audit.Actor
		after        int // approvals asked by the write
		wantComplete bool
	}{
		{"raised from one to two while the only approval is in flight: it completes", 1, nil, 2, true},
		{"dropped from three to two while the second is in flight: it does not", 3, []audit.Actor{carol}, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := newWorld(t, app.Config{})
			w.setPolicy(t, false, "0.00", tc.before)
			id := w.Doc(t, 0)
			for _, a := range tc.given {
				if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, a); err != nil {
					t.Fatal(err)
				}
			}
			// The policy is written on a connection of its own, inside the
			// approval's transaction (after its approval is recorded, before
			// it decides and commits), and commits there.
			writer := w.DB.Conn(t)
			w.Failpoints.Set(review.FailpointApprovalRecorded, func(context.Context) error {
				wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				_, err := org.SetApprovalPolicy(wctx, writer, w.Org.ID, policy(false, "0.00", tc.after), audit.System("test"))
				if err != nil {
					t.Errorf("the policy write waited for the approval or failed: %v", err)
				}
				return nil
			})
			a, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, bob)
			if err != nil || a.Complete != tc.wantComplete || a.Required != tc.before {
				t.Fatalf("the approval raced by the policy write: %+v %v; want judged by %d approvals", a, err, tc.before)
			}
			if p, err := org.ApprovalPolicyOf(ctx, w.DB.Pool, w.Org.ID); err != nil || p.Rules[0].Approvals != tc.after {
				t.Fatalf("the policy write did not stand: %+v %v", p, err)
			}
			wantActivations := 0
			if tc.wantComplete {
				wantActivations = 1
			}
			if w.activations(t, id) != wantActivations || w.jobs(t, id) != wantActivations {
				t.Fatalf("%d activations, %d jobs", w.activations(t, id), w.jobs(t, id))
			}
			// Read now, the document is measured against the new policy;
			// what happened to it stays.
			if st := w.approvalsOf(t, id); st.Required != tc.after || len(st.Approvals) != len(tc.given)+1 {
				t.Fatalf("after the race: %+v", st)
			}
		})
	}
}

// A policy write not yet committed is not what an approval is judged by,
// and the approval does not wait for it.
func TestAnUncommittedPolicyWriteDoesNotHoldAnApproval(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	w.setPolicy(t, false, "0.00", 1)
	id := w.Doc(t, 0)
	tx, err := w.DB.Conn(t).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := org.SetApprovalPolicy(ctx, tx, w.Org.ID, policy(false, "0.00", 2), audit.System("test")); err != nil {
		t.Fatal(err)
	}
	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	a, err := w.App.Decisions.Approve(actx, w.Org.ID, id, bob)
	if err != nil || !a.Complete || a.Required != 1 {
		t.Fatalf("the approval beside an uncommitted policy write: %+v %v", a, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if w.status(t, id) != intake.Active && w.status(t, id) != intake.Posted {
		t.Fatalf("status %s", w.status(t, id))
	}
}

// A document in a foreign currency with no rate known yet (payable_base
// NULL) needs the strictest rule. Once the rate is remembered (the
// bookkeeper's rememberRateSQL; the exchange_rates trigger of migration
// 00024 converts the documents it covers into payable_base), the rule of
// its amount applies: the approval given stays, the next completes it.
func TestAnUnknownRateAsksTheStrictestRuleUntilTheRateIsKnown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	w.setPolicy(t, false, "0.00", 1, "1000.00", 2, "100000.00", 3)
	id := w.Doc(t, 0)
	// 24,321.00 USD, issued 2026-11-20, for an org keeping its books in SEK.
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET fields = jsonb_set(fields, '{currency}', '"USD"') WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM intake_documents WHERE id = $1 AND payable_base IS NULL`, id); n != 1 {
		t.Fatal("the document has an amount in the base currency before any rate is known")
	}
	a, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, alice)
	if err != nil || a.Complete || a.Required != 3 {
		t.Fatalf("without a rate: %+v %v; want the strictest rule (3)", a, err)
	}
	if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO exchange_rates (org_id, currency, rate_date, rate, created_by)
		VALUES ($1, 'USD', '2026-11-20', 0.05, 'test')`, w.Org.ID); err != nil {
		t.Fatal(err)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM intake_documents WHERE id = $1 AND payable_base = 1216.05`, id); n != 1 {
		t.Fatal("the remembered rate did not convert the document (24,321.00 × 0.05 = 1,216.05)")
	}
	if st := w.approvalsOf(t, id); st.Required != 2 || len(st.Approvals) != 1 {
		t.Fatalf("with the rate known: %+v; want the rule of 1,000.00 (2)", st)
	}
	a, err = w.App.Decisions.Approve(ctx, w.Org.ID, id, bob)
	if err != nil || !a.Complete || a.Required != 2 || len(a.Approvals) != 2 {
		t.Fatalf("the second approval, with the rate known: %+v %v", a, err)
	}
	if w.activations(t, id) != 1 || w.jobs(t, id) != 1 {
		t.Fatal("not one activation and one job")
	}
}

// Every step, the first and the last the policy asks, refuses while another
// member of the group is accepted (duplicate_group_conflict), and a refused
// step records nothing.
func TestTheFirstAndTheLastStepRefuseAnAcceptedGroup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	w.setPolicy(t, false, "0.00", 2)
	ids := w.Group(t, []int{-1, 0, 0})
	// The second member has the first of its two approvals while no member
	// is accepted.
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, ids[1], alice); err != nil {
		t.Fatal(err)
	}
	for _, a := range []audit.Actor{alice, bob} {
		if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, ids[0], a); err != nil {
			t.Fatal(err)
		}
	}
	if w.status(t, ids[0]) != intake.Active && w.status(t, ids[0]) != intake.Posted {
		t.Fatalf("the first member is %s", w.status(t, ids[0]))
	}
	for _, tc := range []struct {
		name  string
		id    int64
		actor audit.Actor
		had   int
	}{
		{"the last step", ids[1], bob, 1},
		{"the first step", ids[2], carol, 0},
	} {
		_, err := w.App.Decisions.Approve(ctx, w.Org.ID, tc.id, tc.actor)
		if !apperr.Is(err, apperr.DuplicateGroupConflict) {
			t.Errorf("%s beside an accepted member: %v", tc.name, err)
		}
		if st := w.approvalsOf(t, tc.id); len(st.Approvals) != tc.had {
			t.Errorf("%s: the refused step was recorded: %v", tc.name, approvers(st))
		}
		if w.jobs(t, tc.id) != 0 || w.activations(t, tc.id) != 0 {
			t.Errorf("%s: a refused step activated its document", tc.name)
		}
	}
}
