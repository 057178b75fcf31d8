package intake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/failpoint"
	"greatbook/internal/jobs"
)

// Approval is the outcome of an approve: the document, now active, and the
// launch of its bookkeeper run.
type Approval struct {
	ID     int64
	Status Status
	Launch jobs.LaunchOutcome
}

// Blocking describes the accepted member of a group that refuses an approve.
type Blocking struct {
	ID         int64      `json:"id"`
	Status     Status     `json:"status"`
	ApprovedBy string     `json:"approved_by,omitempty"`
	ApprovedAt *time.Time `json:"approved_at,omitempty"`
	EntryID    int64      `json:"entry_id,omitempty"`
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
)

// groupLock takes the group lock of document id inside tx and returns the
// members it locked.
type groupLock interface {
	lockGroup(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error)
}

// maxConflictRetries bounds the retries of a decision that met a deadlock,
// a serialization failure, or a group that grew while it was locked.
const maxConflictRetries = 20

// errGroupGrew makes a decision start over: its group gained a member
// between finding and locking it.
var errGroupGrew = errors.New("intake: the duplicate group grew while it was being locked")

// lockGroupSQL is the first statement of every decision: it finds the
// whole duplicate group and locks it, every member, ordered by id, in one
// statement. The same order everywhere means no two decisions deadlock.
// The members are read by id (groupMembersWhere).
var lockGroupSQL = `SELECT ` + memberColumns + ` FROM intake_documents d
WHERE ` + groupMembersWhere + `
ORDER BY d.id
FOR UPDATE`

// The other statements of approve, named for the benchmark (Statements).
var recheckSQL = `SELECT coalesce(array_agg(id), '{}') FROM (` + groupIDsSQL + `) g`

const activateSQL = `UPDATE intake_documents SET status = 'active', decided_by = $2, decided_at = now(), decision_reason = NULL, updated_at = now() WHERE id = $1`

// Statements are the SQL of approve before its job is written
// (jobs.Statements has the rest), in order, for the benchmark that runs the
// same statements through pgbench: the very constants Approve sends
// (TestStatementsAreWhatApproveSends compares them with what reaches the
// server).
var Statements = struct {
	LockGroup, Recheck, Activate string
}{lockGroupSQL, recheckSQL, activateSQL}

// wholeGroupLock is the product's group lock: lockWholeGroup.
type wholeGroupLock struct{}

func (wholeGroupLock) lockGroup(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error) {
	return lockWholeGroup(ctx, tx, orgID, id)
}

// lockWholeGroup takes the group lock and proves that the group did not
// grow between the statement's snapshot and the lock (a new member filed,
// or an edge added, by a transaction that committed meanwhile).
func lockWholeGroup(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error) {
	locked, err := lockGroupMembers(ctx, tx, orgID, id)
	if err != nil {
		return nil, err
	}
	return locked, recheckGroup(ctx, tx, id, locked)
}

// lockGroupMembers sends lockGroupSQL: every member of the group, locked in
// id order; not_found when there is no such document in the org.
func lockGroupMembers(ctx context.Context, tx pgx.Tx, orgID, id int64) ([]Member, error) {
	rows, err := tx.Query(ctx, lockGroupSQL, id, orgID)
	if err != nil {
		return nil, fmt.Errorf("intake: lock group of document %d: %w", id, err)
	}
	locked, err := pgx.CollectRows(rows, scanMember)
	if err != nil {
		return nil, fmt.Errorf("intake: lock group of document %d: %w", id, err)
	}
	if len(locked) == 0 {
		return nil, apperr.New(apperr.NotFound, "no document %d", id)
	}
	return locked, nil
}

// recheckGroup returns errGroupGrew when the group now has a member that
// the lock did not take.
func recheckGroup(ctx context.Context, tx pgx.Tx, id int64, locked []Member) error {
	// A new statement sees what committed while we waited for the lock.
	var now []int64
	if err := tx.QueryRow(ctx, recheckSQL, id).Scan(&now); err != nil {
		return fmt.Errorf("intake: recheck group of document %d: %w", id, err)
	}
	ids := make([]int64, 0, len(locked))
	for _, m := range locked {
		ids = append(ids, m.ID)
	}
	for _, m := range now {
		if !slices.Contains(ids, m) {
			return errGroupGrew
		}
	}
	return nil
}

// retryConflicts runs a decision again after a deadlock, a serialization
// failure or a grown group, so that none reaches a caller.
func retryConflicts[T any](ctx context.Context, d *Decisions, fn func() (T, error)) (T, error) {
	var zero T
	for attempt := 1; ; attempt++ {
		v, err := fn()
		if errors.Is(err, errGroupGrew) || database.IsRetryableConflict(err) {
			d.conflicts.Add(1)
		}
		if err == nil || !(errors.Is(err, errGroupGrew) || database.IsRetryableConflict(err)) || attempt >= maxConflictRetries {
			if errors.Is(err, errGroupGrew) || database.IsRetryableConflict(err) {
				return zero, apperr.Wrap(err, apperr.Unavailable, "the document's group kept changing; try again")
			}
			return v, err
		}
		select {
		case <-ctx.Done():
			return zero, ctx.Err()
		case <-time.After(time.Duration(attempt) * time.Millisecond):
		}
	}
}

// Approve is the control that protects the ledger. In one transaction: lock
// the document's whole duplicate group; refuse while another member is
// accepted (duplicate_group_conflict, naming it) or when the document is not
// pending or flagged or lacks what posting needs (invalid_state); otherwise
// make it active, audit it, and write its outbox job. Only after the commit
// is the bookkeeper run launched; a launch failure is recorded on the job
// and in the audit trail and returned, and the approval stands.
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
	jobID, err := retryConflicts(ctx, d, func() (int64, error) {
		return database.WithTxV(ctx, d.pool, func(tx pgx.Tx) (int64, error) {
			// The group lock is the first statement: every decision on any
			// member of the group waits here, in the same order.
			group, err := d.lock.lockGroup(ctx, tx, orgID, id)
			if err != nil {
				return 0, err
			}
			var me Member
			for _, m := range group {
				if m.ID == id {
					me = m
				} else if m.Accepted() {
					return 0, groupConflict(id, m)
				}
			}
			if me.ID == 0 {
				return 0, apperr.New(apperr.NotFound, "no document %d", id)
			}
			acknowledged, err := approvable(me, ack)
			if err != nil {
				return 0, err
			}
			if _, err := tx.Exec(ctx, activateSQL, id, actor.Label); err != nil {
				return 0, fmt.Errorf("intake: approve document %d: %w", id, err)
			}
			var detail map[string]any
			if acknowledged != nil {
				detail = map[string]any{"acknowledged_invalid": true, "reason": ack.Reason, "violations": acknowledged}
			}
			if err := audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "approve", SubjectType: "intake",
				SubjectID: id, FromStatus: string(me.Status), ToStatus: string(Active), Detail: detail}); err != nil {
				return 0, fmt.Errorf("intake: audit approval of document %d: %w", id, err)
			}
			jobID, err := d.outbox.InsertTx(ctx, tx, orgID, id, actor.Label)
			if err != nil {
				return 0, err
			}
			if err := d.failpoints.Inject(ctx, FailpointBeforeCommit); err != nil {
				return 0, err
			}
			return jobID, nil
		})
	})
	if err != nil {
		return Approval{}, err
	}
	if err := d.failpoints.Inject(ctx, FailpointAfterCommit); err != nil {
		return Approval{}, err
	}
	// After the commit: the run reads the document on its own connection.
	launch := d.outbox.Launch(ctx, jobID, "approve", actor)
	return Approval{ID: id, Status: Active, Launch: launch}, nil
}

// BlockedBy returns the accepted member of a group that would refuse an
// approve of id, if there is one: what the decision panel explains before
// anyone presses approve.
func BlockedBy(group []Member, id int64) (Blocking, bool) {
	for _, m := range group {
		if m.ID != id && m.Accepted() {
			return m.blocking(), true
		}
	}
	return Blocking{}, false
}

func (m Member) blocking() Blocking {
	return Blocking{ID: m.ID, Status: m.Status, ApprovedBy: m.DecidedBy, ApprovedAt: m.DecidedAt, EntryID: m.ResultEntryID}
}

func groupConflict(id int64, m Member) error {
	b := m.blocking()
	msg := fmt.Sprintf("document %d is in a duplicate group whose member %d is already %s", id, m.ID, m.Status)
	if m.DecidedBy != "" && m.DecidedAt != nil {
		msg += fmt.Sprintf(" (approved by %s at %s)", m.DecidedBy, m.DecidedAt.UTC().Format(time.RFC3339))
	}
	if m.ResultEntryID != 0 {
		msg += fmt.Sprintf(", journal entry %d", m.ResultEntryID)
	}
	return apperr.New(apperr.DuplicateGroupConflict, "%s; the group may enter the ledger once", msg).With("blocking", b)
}

// approvable says whether a document may be approved on its own terms, and
// returns the violations an acknowledgement accepted (nil when none did).
func approvable(m Member, ack Acknowledgement) ([]Violation, error) {
	if m.Status != Pending && m.Status != Flagged {
		return nil, apperr.New(apperr.InvalidState, "document %d is %s; only a pending or flagged document can be approved", m.ID, m.Status)
	}
	if m.FlagReason == FlagNotAnInvoice {
		return nil, apperr.New(apperr.InvalidState, "document %d is not an invoice or a credit note (its finding says what it is); reject it", m.ID)
	}
	if (NeedsFields(m.FlagReason) && m.FlagReason != FlagInvalidEInvoice) || m.DocType == "" || !m.HasFields {
		return nil, apperr.New(apperr.InvalidState, "document %d has no valid fields to post (%s); type them in first", m.ID, orNone(m.FlagReason))
	}
	if m.nothingToPost() {
		// Refused up front, whatever else is wrong with it: approved, it
		// would only be abandoned by the bookkeeper as a dead letter. What a
		// reviewer means is "close it" (CloseNothingToPost).
		return nil, apperr.New(apperr.InvalidState, "document %d has nothing to post: every amount is zero; close it instead", m.ID).
			With("reason", FlagNothingToPost)
	}
	// The fatal findings decide, whatever the flag says: an invalid
	// e-invoice flagged as a duplicate, then marked not a duplicate, is
	// still invalid.
	var acknowledged []Violation
	if violations := fatalViolations(m.Findings); len(violations) > 0 || m.FlagReason == FlagInvalidEInvoice {
		if unpostable := slices.DeleteFunc(slices.Clone(violations), func(v Violation) bool { return !einvoice.Unpostable(v.Code) }); len(unpostable) > 0 {
			// No acknowledgement posts what the ledger cannot hold.
			return nil, apperr.New(apperr.InvalidState, "document %d cannot be posted as it is (%s); type its fields in or reject it", m.ID, codesOf(unpostable)).
				With("reason", "unpostable").With("violations", unpostable)
		}
		if !ack.Invalid {
			return nil, apperr.New(apperr.InvalidState, "document %d is an invalid e-invoice (%s); approving it needs an acknowledgement with a reason", m.ID, codesOf(violations)).
				With("reason", FlagInvalidEInvoice).With("violations", violations)
		}
		acknowledged = violations
	}
	return acknowledged, nil
}

// nothingToPost reports whether every amount the bookkeeper would post of
// the member is zero.
func (m Member) nothingToPost() bool { return m.NothingToPost || m.FlagReason == FlagNothingToPost }

// Closable says whether a document may be closed as having nothing to
// post (nil when it may): exactly when approve would refuse it for that
// reason.
func Closable(m Member) error {
	switch {
	case m.Status != Pending && m.Status != Flagged:
		return apperr.New(apperr.InvalidState, "document %d is %s; only a pending or flagged document can be closed", m.ID, m.Status)
	case m.FlagReason == FlagNotAnInvoice:
		return apperr.New(apperr.InvalidState, "document %d is not an invoice or a credit note; reject it", m.ID)
	case (NeedsFields(m.FlagReason) && m.FlagReason != FlagInvalidEInvoice) || m.DocType == "" || !m.HasFields:
		return apperr.New(apperr.InvalidState, "document %d has no valid fields (%s); type them in or reject it", m.ID, orNone(m.FlagReason))
	case !m.nothingToPost():
		return apperr.New(apperr.InvalidState, "document %d has something to post; approve or reject it", m.ID)
	}
	return nil
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

// Reject rejects a pending or flagged document with a reason. A rejected
// document gives its natural key up.
func (d *Decisions) Reject(ctx context.Context, orgID, id int64, reason string, actor audit.Actor) (Document, error) {
	return d.decide(ctx, orgID, id, reason, actor, decision{
		action: "reject",
		refuse: func(doc Document, _ Member) error {
			if !doc.Undecided() {
				return apperr.New(apperr.InvalidState, "document %d is %s; only a pending or flagged document can be rejected", id, doc.Status)
			}
			return nil
		},
		update: `UPDATE intake_documents SET status = 'rejected', decided_by = $2, decided_at = now(),
			decision_reason = $3, updated_at = now() WHERE id = $1`,
		args: []any{id, actor.Label, reason},
		detail: func(Document) map[string]any {
			return map[string]any{"reason": reason}
		},
	})
}

// NothingToPostReason is the reason a document closed as having nothing
// to post is rejected with.
const NothingToPostReason = "Closed: nothing to post (every amount of the document is zero)."

// CloseNothingToPost closes, in one step, a document that is valid but
// whose every amount is zero (so approve refuses it): rejected with the
// fixed NothingToPostReason, audited as a rejection. Any other document is
// refused with invalid_state.
func (d *Decisions) CloseNothingToPost(ctx context.Context, orgID, id int64, actor audit.Actor) (Document, error) {
	return d.decide(ctx, orgID, id, NothingToPostReason, actor, decision{
		action: "reject",
		refuse: func(_ Document, self Member) error { return Closable(self) },
		update: `UPDATE intake_documents SET status = 'rejected', decided_by = $2, decided_at = now(),
			decision_reason = $3, updated_at = now() WHERE id = $1`,
		args: []any{id, actor.Label, NothingToPostReason},
		detail: func(Document) map[string]any {
			return map[string]any{"reason": NothingToPostReason, "closed": FlagNothingToPost}
		},
	})
}

// MarkDistinct is an admin's "not a duplicate": it removes the document's
// duplicate_of edge, so that two genuinely distinct documents whose
// references collide (a supplier reusing numbers across years) can each be
// approved. The document keeps out of the natural key (its incumbent holds
// it) and remembers which row it is distinct from.
func (d *Decisions) MarkDistinct(ctx context.Context, orgID, id int64, reason string, actor audit.Actor) (Document, error) {
	return d.decide(ctx, orgID, id, reason, actor, decision{
		action: "not_a_duplicate",
		refuse: func(doc Document, _ Member) error {
			if doc.DuplicateOf == 0 {
				return apperr.New(apperr.InvalidState, "document %d is not filed as a duplicate", id)
			}
			if !doc.Undecided() {
				return apperr.New(apperr.InvalidState, "document %d is %s; decided documents keep their edges", id, doc.Status)
			}
			return nil
		},
		update: `UPDATE intake_documents SET distinct_from = duplicate_of, duplicate_of = NULL,
			duplicate_reason = NULL,
			status = CASE WHEN flag_reason = 'duplicate' THEN 'pending' ELSE status END,
			flag_reason = CASE WHEN flag_reason = 'duplicate' THEN NULL ELSE flag_reason END,
			updated_at = now() WHERE id = $1`,
		args: []any{id},
		detail: func(before Document) map[string]any {
			return map[string]any{"reason": reason, "was_duplicate_of": before.DuplicateOf, "duplicate_reason": before.DuplicateReason}
		},
	})
}

// decision is a reviewer's decision on one undecided document, other than
// approve (which launches bookkeeping): what refuses it, given the document
// and its group member as read under the group lock; the update that makes
// it; what the audit trail records besides the change of status.
type decision struct {
	action string
	refuse func(before Document, self Member) error
	update string
	args   []any
	detail func(before Document) map[string]any
}

// decide makes a decision with a reason in one transaction, audited, and
// returns the document as it left it.
func (d *Decisions) decide(ctx context.Context, orgID, id int64, reason string, actor audit.Actor, dec decision) (Document, error) {
	if err := audit.CheckReason(reason); err != nil {
		return Document{}, err
	}
	return retryConflicts(ctx, d, func() (Document, error) {
		return database.WithTxV(ctx, d.pool, func(tx pgx.Tx) (Document, error) {
			// The group lock first, as approve takes it: a decision that
			// comes while an approve of another member is in flight waits
			// for it and then reads the group as it left it.
			members, err := d.lock.lockGroup(ctx, tx, orgID, id)
			if err != nil {
				return Document{}, err
			}
			before, err := get(ctx, tx, orgID, id)
			if err != nil {
				return Document{}, err
			}
			var self Member
			for _, m := range members {
				if m.ID == id {
					self = m
				}
			}
			if err := dec.refuse(before, self); err != nil {
				return Document{}, err
			}
			if _, err := tx.Exec(ctx, dec.update, dec.args...); err != nil {
				return Document{}, fmt.Errorf("intake: %s document %d: %w", dec.action, id, err)
			}
			after, err := get(ctx, tx, orgID, id)
			if err != nil {
				return Document{}, err
			}
			if err := audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: dec.action, SubjectType: "intake",
				SubjectID: id, FromStatus: string(before.Status), ToStatus: string(after.Status), Detail: dec.detail(before)}); err != nil {
				return Document{}, err
			}
			return after, nil
		})
	})
}
