package views

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"greatbook/internal/review"
)

// The outcome kinds of approve's refusals by the org's approval policy
// (review.ReasonSeparationOfDuties, review.ReasonAlreadyApproved), and of
// an approval short of the count the policy asks.
const (
	OutcomeSeparationOfDuties = review.ReasonSeparationOfDuties
	OutcomeAlreadyApproved    = review.ReasonAlreadyApproved
	OutcomeApprovalRecorded   = review.ActionApprovalRecorded
)

// ApprovalRecordedMessage is the outcome of an approval that does not
// complete the count the policy asks: given of required.
func ApprovalRecordedMessage(given, required int) string {
	return fmt.Sprintf("Your approval is recorded: %d of %d. The document waits for another approver.", given, required)
}

// showsApprovals reports whether the panel says the document's approvals:
// when the policy asks more than one, or some were given. Under the
// default policy an undecided document shows nothing new.
func (v DecisionView) showsApprovals() bool {
	return v.Approval != nil && (v.Approval.Required > 1 || len(v.Approval.Approvals) > 0)
}

// approvalsText says the approvals given (who, when) and how many are
// still needed: "1 of 2 approvals: ana@example.test at 2026-12-04 10:02
// UTC; one more needed, by someone else."
func approvalsText(st review.Standing) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d approvals", len(st.Approvals), st.Required)
	for i, g := range st.Approvals {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		at := g.At
		fmt.Fprintf(&b, "%s at %s", g.By, fmtTime(&at))
	}
	switch left := st.Required - len(st.Approvals); {
	case left <= 0:
		b.WriteString(".")
	case len(st.Approvals) == 0:
		fmt.Fprintf(&b, "; %s needed, each by a different person.", countWord(left))
	default:
		fmt.Fprintf(&b, "; %s more needed, by someone else.", countWord(left))
	}
	return b.String()
}

// countWord says a small count in words, a large one in digits.
func countWord(n int) string {
	if words := []string{"none", "one", "two", "three", "four", "five"}; n < len(words) {
		return words[n]
	}
	return strconv.Itoa(n)
}

// refusalText explains why the policy refuses the reader's approval.
func refusalText(reason string) string {
	switch reason {
	case review.ReasonSeparationOfDuties:
		return "You cannot approve this document: you submitted it (you uploaded it, typed it in or composed it), and your organisation's approval policy has someone else approve it."
	case review.ReasonAlreadyApproved:
		return "You approved this document already; its next approval must be someone else's."
	}
	return ""
}

// policyRefusal is why the policy refuses the reader's approval, as a
// refused approve just said (the outcome) or as the panel reads it before
// anyone presses approve; "" when it would take it.
func (v DecisionView) policyRefusal() string {
	if v.Outcome != nil && (v.Outcome.Kind == OutcomeSeparationOfDuties || v.Outcome.Kind == OutcomeAlreadyApproved) {
		return v.Outcome.Kind
	}
	if v.Approval != nil {
		return v.Approval.Refusal
	}
	return ""
}

// refusalStanding reports whether the panel explains the policy's refusal
// on its own: a refused approve's outcome explains it instead.
func (v DecisionView) refusalStanding() bool {
	return v.policyRefusal() != "" && (v.Outcome == nil || v.Outcome.Kind != v.policyRefusal())
}

// approveDisabled reports whether the approve buttons are disabled, and
// what explains it (the id of the element aria-describedby names).
func (v DecisionView) approveDisabled() (bool, string) {
	switch {
	case v.blocked():
		return true, "decision-blocked"
	case v.policyRefusal() != "":
		return true, "approve-refused"
	}
	return false, ""
}

// approveButtonAttrs are the approve buttons' attributes for what disables
// them.
func (v DecisionView) approveButtonAttrs() templ.Attributes {
	if off, why := v.approveDisabled(); off {
		return templ.Attributes{"disabled": true, "aria-describedby": why}
	}
	return templ.Attributes{}
}
