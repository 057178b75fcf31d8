package review_test

import (
	"context"
	"sync"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/intake"
	"greatbook/internal/org"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
)

var (
	alice = audit.Actor{Label: "alice@example.test"}
	bob   = audit.Actor{Label: "bob@example.test"}
	carol = audit.Actor{Label: "carol@example.test"}
)

// setPolicy gives the world's org a policy of rules (min_amount, approvals
// pairs).
func (w *world) setPolicy(t *testing.T, separate bool, pairs ...any) {
	t.Helper()
	p := org.ApprovalPolicy{SeparateSubmitter: separate}
	for i := 0; i < len(pairs); i += 2 {
		p.Rules = append(p.Rules, org.ApprovalRule{MinAmount: pairs[i].(string), Approvals: pairs[i+1].(int)})
	}
	if _, err := org.SetApprovalPolicy(context.Background(), w.DB.Pool, w.Org.ID, p, audit.System("test")); err != nil {
		t.Fatal(err)
	}
}

func (w *world) jobs(t *testing.T, id int64) int {
	return testkit.Count(t, w.DB, `SELECT count(*) FROM jobs WHERE intake_id = $1`, id)
}

func (w *world) status(t *testing.T, id int64) intake.Status {
	t.Helper()
	d, err := intake.GetDocument(context.Background(), w.DB.Pool, w.Org.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return d.Status
}

func reasonOf(err error) any {
	if e, ok := apperr.As(err); ok {
		return e.Details["reason"]
	}
	return nil
}

// Two approvals asked: the first is recorded (audited, status unchanged, no
// job, no launch), the same person again is refused, the second person's
// completes it as approve always did.
func TestAnApprovalShortOfTheCountLaunchesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	w.setPolicy(t, false, "0.00", 2)
	id := w.Doc(t, 0)
	a, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, alice)
	if err != nil || a.Complete || a.Status != intake.Pending || a.Required != 2 || len(a.Approvals) != 1 ||
		a.Approvals[0].By != alice.Label || a.Launch.JobID != 0 {
		t.Fatalf("first approval: %+v %v", a, err)
	}
	if w.status(t, id) != intake.Pending || w.jobs(t, id) != 0 {
		t.Fatal("the first of two approvals changed the status or wrote a job")
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE subject_id = $1 AND action = 'approval_recorded'
		AND actor = $2 AND from_status = 'pending' AND to_status = 'pending'`, id, alice.Label); n != 1 {
		t.Fatalf("%d approval_recorded audit events", n)
	}
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, alice); !apperr.Is(err, apperr.InvalidState) || reasonOf(err) != review.ReasonAlreadyApproved {
		t.Fatalf("the same person again: %v", err)
	}
	st, err := review.Approvals(ctx, w.DB.Pool, w.Org.ID, id)
	if err != nil || len(st.Approvals) != 1 || st.Required != 2 {
		t.Fatalf("state: %+v %v", st, err)
	}
	a, err = w.App.Decisions.Approve(ctx, w.Org.ID, id, bob)
	if err != nil || !a.Complete || a.Status != intake.Active || a.Launch.Outcome != "launched" || len(a.Approvals) != 2 {
		t.Fatalf("second approval: %+v %v", a, err)
	}
	w.WaitPosted(t, id)
	if w.jobs(t, id) != 1 {
		t.Fatal("not one job")
	}
}

// The count is the rule of the highest min_amount not above the amount
// payable in the base currency; with no rate known yet, the strictest.
func TestTheRuleOfTheAmountDecides(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	w.setPolicy(t, false, "0.00", 1, "1000.00", 2, "100000.00", 3)
	for _, tc := range []struct {
		name, payable, currency string
		want                    int
	}{
		{"below the threshold", "999.99", "", 1},
		{"at the threshold", "1000.00", "", 2},
		{"above the last", "250000", "", 3},
		{"no rate known yet", "10.00", "USD", 3},
	} {
		id := w.Doc(t, 0)
		w.Named(t, id, "Supplier", tc.name, tc.payable)
		if tc.currency != "" {
			if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET fields = jsonb_set(fields, '{currency}', to_jsonb($2::text)) WHERE id = $1`,
				id, tc.currency); err != nil {
				t.Fatal(err)
			}
		}
		st, err := review.Approvals(ctx, w.DB.Pool, w.Org.ID, id)
		if err != nil || st.Required != tc.want {
			t.Errorf("%s: %+v %v, want %d", tc.name, st, err, tc.want)
		}
	}
}

// With separate_submitter, whoever uploaded, typed in or composed a
// document may not approve it; anyone else may.
func TestTheSubmitterMayNotApprove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	id := w.Doc(t, 0)
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET received_by = $2 WHERE id = $1`, id, alice.Label); err != nil {
		t.Fatal(err)
	}
	typed := w.Doc(t, 0)
	if err := audit.Record(ctx, w.DB.Pool, audit.Event{OrgID: w.Org.ID, Actor: carol, Action: "typed_in", SubjectType: "intake", SubjectID: typed}); err != nil {
		t.Fatal(err)
	}
	// Without the separation, the uploader may approve.
	w.setPolicy(t, false, "0.00", 2)
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, alice); err != nil {
		t.Fatalf("the uploader, not separated: %v", err)
	}
	w.setPolicy(t, true, "0.00", 2)
	for _, tc := range []struct {
		id    int64
		actor audit.Actor
	}{{id, alice}, {typed, carol}} {
		_, err := w.App.Decisions.Approve(ctx, w.Org.ID, tc.id, tc.actor)
		if !apperr.Is(err, apperr.Forbidden) || reasonOf(err) != review.ReasonSeparationOfDuties {
			t.Fatalf("%s approving %d: %v", tc.actor.Label, tc.id, err)
		}
	}
	// Alice's approval, given before the separation, stands and counts.
	a, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, bob)
	if err != nil || !a.Complete {
		t.Fatalf("bob completing: %+v %v", a, err)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM intake_approvals WHERE intake_id = $1`, typed); n != 0 {
		t.Fatalf("a refused approval was recorded: %d", n)
	}
}

// A reject forgets the document's approvals.
func TestARejectEmptiesTheApprovals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	w.setPolicy(t, false, "0.00", 3)
	id := w.Doc(t, 0)
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, alice); err != nil {
		t.Fatal(err)
	}
	if _, err := w.App.Decisions.Reject(ctx, w.Org.ID, id, "wrong supplier", bob); err != nil {
		t.Fatal(err)
	}
	if st, err := review.Approvals(ctx, w.DB.Pool, w.Org.ID, id); err != nil || len(st.Approvals) != 0 {
		t.Fatalf("after the reject: %+v %v", st, err)
	}
}

// Every step refuses while another member of the group is accepted.
func TestEveryStepRefusesAnAcceptedGroup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	ids := w.Group(t, []int{-1, 0})
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, ids[0], alice); err != nil {
		t.Fatal(err)
	}
	w.setPolicy(t, false, "0.00", 2)
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, ids[1], bob); !apperr.Is(err, apperr.DuplicateGroupConflict) {
		t.Fatalf("a first step beside an accepted member: %v", err)
	}
	if n := testkit.Count(t, w.DB, `SELECT count(*) FROM intake_approvals WHERE intake_id = $1`, ids[1]); n != 0 {
		t.Fatal("a refused step was recorded")
	}
}

// stepBarrier is barrier at approve's failpoint after the approval is
// recorded: each approver waits there until the other has arrived too, or
// is blocked behind a lock this one holds.
func stepBarrier(t *testing.T, w *world) {
	b := &barrier{db: w.DB}
	wait := b.wait(t)
	w.Failpoints.Set(review.FailpointApprovalRecorded, func(ctx context.Context) error {
		wait(ctx, nil)
		return nil
	})
}

func approveAtOnce(w *world, d *review.Decisions, id int64, actors ...audit.Actor) []error {
	var wg sync.WaitGroup
	errs := make([]error, len(actors))
	for i, a := range actors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = d.Approve(context.Background(), w.Org.ID, id, a)
		}()
	}
	wg.Wait()
	return errs
}

// Two people giving the last two approvals at once: the group lock makes
// one of them see the other's, so exactly one completes the count (one
// activation, one job). Without the lock both count only their own and
// neither completes.
func TestTheLastTwoApprovalsAtOnceActivateOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		noLock bool
	}{
		{"under the group lock", false},
		{"without the group lock (what the test guards against)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := newWorld(t, app.Config{})
			w.setPolicy(t, false, "0.00", 3)
			id := w.Doc(t, 0)
			if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, carol); err != nil {
				t.Fatal(err)
			}
			stepBarrier(t, w)
			d := review.WithTestOptions(w.App.Decisions, review.TestOptions{NoGroupLock: tc.noLock})
			for _, err := range approveAtOnce(w, d, id, alice, bob) {
				if err != nil {
					t.Fatal(err)
				}
			}
			activations := testkit.Count(t, w.DB, `SELECT count(*) FROM audit_events WHERE subject_id = $1 AND action = 'approve'`, id)
			if got := activations == 1 && w.jobs(t, id) == 1; got == tc.noLock {
				t.Fatalf("%d activations, %d jobs, status %s", activations, w.jobs(t, id), w.status(t, id))
			}
			if !tc.noLock {
				w.WaitPosted(t, id)
			}
		})
	}
}

// The same person approving twice at once counts once: the group lock makes
// the second see the first; without it the key on (document, approver)
// still does; without both, it counts twice.
func TestTheSamePersonApprovingTwiceAtOnceCountsOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		noLock, noKey bool
	}{
		{"under the group lock", false, false},
		{"under the group lock, without the key", false, true},
		{"without the group lock, the key", true, false},
		{"without the group lock or the key (what the test guards against)", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := newWorld(t, app.Config{})
			w.setPolicy(t, false, "0.00", 2)
			id := w.Doc(t, 0)
			if tc.noKey {
				if _, err := w.DB.Pool.Exec(ctx, `ALTER TABLE intake_approvals DROP CONSTRAINT intake_approvals_once_per_person`); err != nil {
					t.Fatal(err)
				}
			}
			stepBarrier(t, w)
			d := review.WithTestOptions(w.App.Decisions, review.TestOptions{NoGroupLock: tc.noLock})
			errs := approveAtOnce(w, d, id, alice, alice)
			refused := 0
			for _, err := range errs {
				if err != nil {
					if !apperr.Is(err, apperr.InvalidState) || reasonOf(err) != review.ReasonAlreadyApproved {
						t.Fatal(err)
					}
					refused++
				}
			}
			rows := testkit.Count(t, w.DB, `SELECT count(*) FROM intake_approvals WHERE intake_id = $1`, id)
			countedOnce := rows == 1 && refused == 1 && w.status(t, id) == intake.Pending && w.jobs(t, id) == 0
			if countedOnce == (tc.noLock && tc.noKey) {
				t.Fatalf("%d approvals recorded, %d refused, status %s", rows, refused, w.status(t, id))
			}
		})
	}
}

// StandingOf tells an approver before they press approve what approve
// would answer them: separation for the submitter, already approved for
// whoever gave an approval, nothing for anyone else.
func TestStandingSaysWhatApproveWouldAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	id := w.Doc(t, 0)
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET received_by = $2 WHERE id = $1`, id, alice.Label); err != nil {
		t.Fatal(err)
	}
	standing := func(who audit.Actor) review.Standing {
		t.Helper()
		st, err := review.StandingOf(ctx, w.DB.Pool, w.Org.ID, id, who.Label)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	// The default policy: one approval, and the uploader may give it.
	if st := standing(alice); st.Refusal != "" || st.Required != 1 || len(st.Approvals) != 0 {
		t.Fatalf("default policy, the uploader: %+v", st)
	}
	w.setPolicy(t, true, "0.00", 2)
	if st := standing(alice); st.Refusal != review.ReasonSeparationOfDuties || st.Required != 2 {
		t.Fatalf("separated, the uploader: %+v", st)
	}
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, alice); reasonOf(err) != review.ReasonSeparationOfDuties {
		t.Fatalf("approve disagrees with the standing: %v", err)
	}
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, id, bob); err != nil {
		t.Fatal(err)
	}
	if st := standing(bob); st.Refusal != review.ReasonAlreadyApproved || len(st.Approvals) != 1 || st.Approvals[0].By != bob.Label {
		t.Fatalf("bob after his approval: %+v", st)
	}
	if st := standing(carol); st.Refusal != "" {
		t.Fatalf("carol: %+v", st)
	}
	if _, err := review.StandingOf(ctx, w.DB.Pool, w.Org.ID+1000, id, carol.Label); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("another org's document: %v", err)
	}
}
