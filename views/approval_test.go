package views_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/intake"
	"greatbook/internal/review"
	"greatbook/views"
)

func renderDecision(t *testing.T, v views.DecisionView) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := views.DecisionPanel(v).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	d, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The panel says the approvals given and how many are still needed, and,
// when the policy refuses the reader's approval, why, with the approve
// buttons disabled and described by that explanation. Under the default
// policy, with no approval given, it says nothing new.
func TestThePanelSaysTheApprovalsAndWhyTheReaderCannotApprove(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 4, 10, 2, 0, 0, time.UTC)
	doc := intake.Document{ID: 7, OrgID: 1, Status: intake.Pending, DocType: "invoice"}
	standing := func(required int, refusal string, by ...string) *review.Standing {
		st := &review.Standing{ApprovalState: review.ApprovalState{Required: required}, Refusal: refusal}
		for _, b := range by {
			st.Approvals = append(st.Approvals, review.Given{By: b, At: at})
		}
		return st
	}
	for _, tc := range []struct {
		name      string
		v         views.DecisionView
		approvals string // "" for none shown
		refusal   string // the reason explained, "" for none
		describer string // what describes the disabled buttons, "" when enabled
	}{
		{name: "default policy", v: views.DecisionView{Doc: doc, Approval: standing(1, "")}},
		{name: "two asked, none given", v: views.DecisionView{Doc: doc, Approval: standing(2, "")},
			approvals: "0 of 2 approvals; two needed, each by a different person."},
		{name: "one of two, another reader", v: views.DecisionView{Doc: doc, Approval: standing(2, "", "ana@example.test")},
			approvals: "1 of 2 approvals: ana@example.test at 2026-12-04 10:02 UTC; one more needed, by someone else."},
		{name: "one of two, the approver", v: views.DecisionView{Doc: doc, Approval: standing(2, review.ReasonAlreadyApproved, "ana@example.test")},
			approvals: "1 of 2 approvals: ana@example.test at 2026-12-04 10:02 UTC; one more needed, by someone else.",
			refusal:   review.ReasonAlreadyApproved, describer: "approve-refused"},
		{name: "the submitter", v: views.DecisionView{Doc: doc, Approval: standing(2, review.ReasonSeparationOfDuties)},
			approvals: "0 of 2 approvals; two needed, each by a different person.",
			refusal:   review.ReasonSeparationOfDuties, describer: "approve-refused"},
		{name: "the submitter refused just now", v: views.DecisionView{Doc: doc, Approval: standing(1, review.ReasonSeparationOfDuties),
			Outcome: &views.Outcome{Kind: views.OutcomeSeparationOfDuties}},
			refusal: review.ReasonSeparationOfDuties, describer: "approve-refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := renderDecision(t, tc.v)
			if got := d.Find("[data-testid=approvals]").Text(); got != tc.approvals {
				t.Errorf("approvals: %q, want %q", got, tc.approvals)
			}
			explained := d.Find("#approve-refused")
			if tc.refusal == "" && explained.Length() != 0 {
				t.Errorf("a refusal explained: %q", explained.Text())
			}
			if tc.refusal != "" && explained.Length() != 1 {
				t.Fatalf("%d explanations of the refusal, want one", explained.Length())
			}
			for _, testid := range []string{"approve", "approve-next"} {
				b := d.Find("[data-testid=" + testid + "]")
				_, disabled := b.Attr("disabled")
				describer, _ := b.Attr("aria-describedby")
				if b.Length() != 1 || disabled != (tc.describer != "") || describer != tc.describer {
					t.Errorf("%s: disabled %v, described by %q; want %q", testid, disabled, describer, tc.describer)
				}
			}
		})
	}
}

// An approval short of the count says so, names no job, and claims no launch.
func TestAnApprovalRecordedClaimsNoLaunch(t *testing.T) {
	t.Parallel()
	doc := intake.Document{ID: 7, OrgID: 1, Status: intake.Pending, DocType: "invoice"}
	d := renderDecision(t, views.DecisionView{Doc: doc, Approval: &review.Standing{ApprovalState: review.ApprovalState{Required: 2},
		Refusal: review.ReasonAlreadyApproved},
		Outcome: &views.Outcome{Kind: views.OutcomeApprovalRecorded, Message: views.ApprovalRecordedMessage(1, 2)}})
	out := d.Find("[data-testid=outcome]")
	if kind, _ := out.Attr("data-outcome"); kind != "approval_recorded" {
		t.Fatalf("outcome %q", kind)
	}
	if got, want := out.Text(), "Your approval is recorded: 1 of 2. The document waits for another approver."; got != want {
		t.Fatalf("outcome %q, want %q", got, want)
	}
}
