// Package review is the reviewers' decisions on documents: approve, reject,
// close one with nothing to post, and mark one not a duplicate. Each takes
// the document's duplicate-group lock first; approve makes the document
// active, audits it and writes its bookkeeping job (jobs.Outbox) in one
// transaction, and launches the job only after the commit. It also tells a
// reviewer the EN 16931 verdict that decides what approve asks of them.
package review

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/failpoint"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/reading"
)

// Approval is the outcome of an approve. The approval that completes the
// count the org's policy asks (Complete) made the document active and
// launched its bookkeeper run (Launch); one that does not left the status
// as it was and launched nothing.
type Approval struct {
	ID     int64
	Status intake.Status
	Launch jobs.LaunchOutcome
	// Complete: this approval completed the count; Approvals are the ones
	// the document has now, Required the count the policy asked of it.
	Complete  bool
	Approvals []Given
	Required  int
}

// stepOutcome is what approve's transaction decided.
type stepOutcome struct {
	jobID     int64
	status    intake.Status
	approvals []Given
	required  int
}

// Decisions are what reviewers do to documents: approve, reject, and (for
// admins) mark not a duplicate. Each takes the document's group lock first.
type Decisions struct {
	pool   database.Executor
	outbox *jobs.Outbox
	// lock takes the group lock: wholeGroupLock, the one order the product
	// has (the mutation tests build Decisions with wrong ones to prove it).
	lock groupLock
	// failpoints act at FailpointBeforeCommit and FailpointAfterCommit.
	failpoints failpoint.Injector
	// conflicts counts deadlocks, serialization failures and grown groups
	// met and retried (tests prove it stays 0 with the group lock first).
	conflicts atomic.Int64
}

// NewDecisions returns the decisions over pool, launching their jobs
// through outbox, with the product's group lock; failpoints act at its
// failpoints (nil: failpoint.Env).
func NewDecisions(pool database.Executor, outbox *jobs.Outbox, failpoints failpoint.Injector) *Decisions {
	if failpoints == nil {
		failpoints = failpoint.Env{}
	}
	return &Decisions{pool: pool, outbox: outbox, lock: wholeGroupLock{}, failpoints: failpoints}
}

// The failpoints of a decision.
const (
	// FailpointBeforeCommit is the end of approve's transaction: the
	// document is active and its job written, nothing is committed.
	FailpointBeforeCommit = "intake/approve/before-commit"
	// FailpointAfterCommit is after approve's commit, before the launch.
	FailpointAfterCommit = "intake/approve/after-commit"
	// FailpointApprovalRecorded is inside approve's transaction, once the
	// approval is recorded and allowed, before the count decides.
	FailpointApprovalRecorded = "intake/approve/approval-recorded"
)

// Approve is the control that protects the ledger. In one transaction: lock
// the document's whole duplicate group; refuse while another member is
// accepted (duplicate_group_conflict, naming it) or when the document is not
// pending or flagged or lacks what posting needs (invalid_state); record the
// approval, refused to the document's submitter when the org's policy
// separates them (forbidden, separation_of_duties) and to whoever approved
// it already (invalid_state, already_approved). An approval short of the
// count the policy asks is audited and leaves the status as it was; the one
// that completes it makes the document active, audits it, and writes its
// outbox job. Only after the commit is the bookkeeper run launched; a
// launch failure is recorded on the job and in the audit trail and
// returned, and the approval stands.
func (d *Decisions) Approve(ctx context.Context, orgID, id int64, actor audit.Actor) (Approval, error) {
	return d.ApproveWith(ctx, orgID, id, actor, Acknowledgement{})
}

// Acknowledgement is a reviewer's explicit "approve it anyway" for a document
// flagged invalid_einvoice: read faithfully, it breaks a fatal rule of EN 16931.
// Reason says why (at least three characters); it goes to the audit trail
// with the violations acknowledged.
type Acknowledgement struct {
	Invalid bool   `json:"acknowledge_invalid"`
	Reason  string `json:"reason"`
}

// ApproveWith is Approve with an acknowledgement. An invalid e-invoice is
// refused (invalid_state, reason invalid_einvoice, naming its violations)
// unless ack acknowledges it with a reason; one whose fatal findings say the
// ledger cannot hold or post it as it is (unstorable text, an amount out of
// range, an unknown currency, ...) is refused whatever the acknowledgement.
func (d *Decisions) ApproveWith(ctx context.Context, orgID, id int64, actor audit.Actor, ack Acknowledgement) (Approval, error) {
	if ack.Invalid {
		if err := audit.CheckReason(ack.Reason); err != nil {
			return Approval{}, err
		}
	}
	step, err := retryConflicts(ctx, d, func() (stepOutcome, error) {
		return database.WithTxV(ctx, d.pool, func(tx pgx.Tx) (stepOutcome, error) {
			// The group lock is the first statement: every decision on any
			// member of the group waits here, in the same order.
			group, err := d.lock.lockGroup(ctx, tx, orgID, id)
			if err != nil {
				return stepOutcome{}, err
			}
			var me Member
			for _, m := range group {
				if m.ID == id {
					me = m
				} else if m.Accepted() {
					return stepOutcome{}, groupConflict(id, m)
				}
			}
			if me.ID == 0 {
				return stepOutcome{}, apperr.New(apperr.NotFound, "no document %d", id)
			}
			acknowledged, err := approvable(me, ack)
			if err != nil {
				return stepOutcome{}, err
			}
			// Who approved and when, against the policy as it is now; a
			// refusal below rolls the record back.
			rec, err := recordApproval(ctx, tx, orgID, id, actor)
			if err != nil {
				return stepOutcome{}, err
			}
			if err := rec.refusal(id, actor); err != nil {
				return stepOutcome{}, err
			}
			if err := d.failpoints.Inject(ctx, FailpointApprovalRecorded); err != nil {
				return stepOutcome{}, err
			}
			out := stepOutcome{status: me.Status, approvals: rec.approvals(), required: rec.required}
			if len(out.approvals) < out.required {
				// Not the last approval the policy asks: the status stays,
				// nothing is launched.
				return out, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: ActionApprovalRecorded, SubjectType: "intake",
					SubjectID: id, FromStatus: string(me.Status), ToStatus: string(me.Status),
					Detail: map[string]any{"approvals": len(out.approvals), "approvals_required": out.required}})
			}
			if _, err := tx.Exec(ctx, activateSQL, id, actor.Label); err != nil {
				return stepOutcome{}, fmt.Errorf("review: approve document %d: %w", id, err)
			}
			var detail map[string]any
			if acknowledged != nil {
				detail = map[string]any{"acknowledged_invalid": true, "reason": ack.Reason, "violations": acknowledged}
			}
			if out.required > 1 {
				if detail == nil {
					detail = map[string]any{}
				}
				detail["approvals"], detail["approvals_required"] = len(out.approvals), out.required
			}
			if err := audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "approve", SubjectType: "intake",
				SubjectID: id, FromStatus: string(me.Status), ToStatus: string(intake.Active), Detail: detail}); err != nil {
				return stepOutcome{}, fmt.Errorf("review: audit approval of document %d: %w", id, err)
			}
			out.status = intake.Active
			if f := einvoice.Format(me.Format); f == einvoice.FormatText || f == einvoice.FormatOCR {
				// Approving what was read from a document's text confirms
				// it: the supplier's layout is learned from it.
				if _, err := reading.LearnFiledTx(ctx, tx, orgID, id, actor); err != nil {
					return stepOutcome{}, err
				}
			}
			out.jobID, err = d.outbox.InsertTx(ctx, tx, orgID, id, actor.Label)
			if err != nil {
				return stepOutcome{}, err
			}
			if err := d.failpoints.Inject(ctx, FailpointBeforeCommit); err != nil {
				return stepOutcome{}, err
			}
			return out, nil
		})
	})
	if err != nil {
		return Approval{}, err
	}
	a := Approval{ID: id, Status: step.status, Approvals: step.approvals, Required: step.required}
	if step.jobID == 0 {
		return a, nil
	}
	if err := d.failpoints.Inject(ctx, FailpointAfterCommit); err != nil {
		return Approval{}, err
	}
	// After the commit: the run reads the document on its own connection.
	a.Complete, a.Launch = true, d.outbox.Launch(ctx, step.jobID, "approve", actor)
	return a, nil
}

// approvable says whether a document may be approved on its own terms, and
// returns the violations an acknowledgement accepted (nil when none did).
func approvable(m Member, ack Acknowledgement) ([]Violation, error) {
	if m.Status != intake.Pending && m.Status != intake.Flagged {
		return nil, apperr.New(apperr.InvalidState, "document %d is %s; only a pending or flagged document can be approved", m.ID, m.Status)
	}
	if m.FlagReason == intake.FlagNotAnInvoice {
		return nil, apperr.New(apperr.InvalidState, "document %d is not an invoice or a credit note (its finding says what it is); reject it", m.ID)
	}
	if (intake.NeedsFields(m.FlagReason) && m.FlagReason != intake.FlagInvalidEInvoice) || m.DocType == "" || !m.HasFields {
		return nil, apperr.New(apperr.InvalidState, "document %d has no valid fields to post (%s); type them in first", m.ID, orNone(m.FlagReason))
	}
	if m.nothingToPost() {
		// Refused up front, whatever else is wrong with it: approved, it
		// would only be abandoned by the bookkeeper as a dead letter. What a
		// reviewer means is "close it" (CloseNothingToPost).
		return nil, apperr.New(apperr.InvalidState, "document %d has nothing to post: every amount is zero; close it instead", m.ID).
			With("reason", intake.FlagNothingToPost)
	}
	// The fatal findings decide, whatever the flag says: an invalid
	// e-invoice flagged as a duplicate, then marked not a duplicate, is
	// still invalid.
	var acknowledged []Violation
	if violations := fatalViolations(m.Findings); len(violations) > 0 || m.FlagReason == intake.FlagInvalidEInvoice {
		if unpostable := slices.DeleteFunc(slices.Clone(violations), func(v Violation) bool { return !einvoice.Unpostable(v.Code) }); len(unpostable) > 0 {
			// No acknowledgement posts what the ledger cannot hold.
			return nil, apperr.New(apperr.InvalidState, "document %d cannot be posted as it is (%s); type its fields in or reject it", m.ID, codesOf(unpostable)).
				With("reason", "unpostable").With("violations", unpostable)
		}
		if !ack.Invalid {
			return nil, apperr.New(apperr.InvalidState, "document %d is an invalid e-invoice (%s); approving it needs an acknowledgement with a reason", m.ID, codesOf(violations)).
				With("reason", intake.FlagInvalidEInvoice).With("violations", violations)
		}
		acknowledged = violations
	}
	return acknowledged, nil
}

// Violation is a fatal finding an approve names: the rule and where.
type Violation struct {
	Code    string `json:"code"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// fatalViolations are the fatal findings of a filed document.
func fatalViolations(raw []byte) []Violation {
	var fs []einvoice.Finding
	_ = json.Unmarshal(raw, &fs) // filed by the pipeline; unreadable means none to name
	out := []Violation{}
	for _, f := range fs {
		if f.Fatal() {
			out = append(out, Violation{Code: f.Code, Field: f.Field, Message: f.Message})
		}
	}
	return out
}

func codesOf(vs []Violation) string {
	codes := make([]string, 0, len(vs))
	for _, v := range vs {
		if !slices.Contains(codes, v.Code) {
			codes = append(codes, v.Code)
		}
	}
	return strings.Join(codes, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "nothing extracted"
	}
	return s
}
