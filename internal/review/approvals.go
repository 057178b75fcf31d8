package review

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/org"
)

// ActionApprovalRecorded is the audit action of an approval that does not
// complete the count the policy asks (the event feed's
// document.approval_recorded); the one that completes it is an "approve".
const ActionApprovalRecorded = "approval_recorded"

// The reasons of the refusals of an approval step ("reason" of the error).
const (
	ReasonSeparationOfDuties = "separation_of_duties"
	ReasonAlreadyApproved    = "already_approved"
)

// Given is one approval a document has been given: by whom (the approver's
// email) and when.
type Given struct {
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// approvalRecord is what recordApproval read and wrote: the org's policy,
// the document's amount payable in the base currency (nil: no rate known
// yet), its submitters (read only when the policy separates them), the
// approvals it had before this one, and this one (nil when this approver
// had given one already).
type approvalRecord struct {
	policy     org.ApprovalPolicy
	submitters []string
	before     []Given
	this       *Given
	required   int
}

// recordApproval records actor's approval of document id and reads what
// decides it, in one statement.
func recordApproval(ctx context.Context, tx pgx.Tx, orgID, id int64, actor audit.Actor) (approvalRecord, error) {
	var separate *bool
	var rules []byte
	var payable *string
	var by []string
	var at []time.Time
	var thisAt *time.Time
	var rec approvalRecord
	if err := tx.QueryRow(ctx, recordApprovalSQL, id, orgID, actor.Label, actor.UserID).
		Scan(&separate, &rules, &payable, &rec.submitters, &by, &at, &thisAt); err != nil {
		return approvalRecord{}, fmt.Errorf("review: record approval of document %d: %w", id, err)
	}
	policy, err := org.ScanApprovalPolicy(separate, rules)
	if err != nil {
		return approvalRecord{}, err
	}
	rec.policy = policy
	rec.required, err = required(policy, payable)
	if err != nil {
		return approvalRecord{}, fmt.Errorf("review: amount of document %d: %w", id, err)
	}
	rec.before = givens(by, at)
	if thisAt != nil {
		rec.this = &Given{By: actor.Label, At: thisAt.UTC()}
	}
	return rec, nil
}

// required is the count policy asks of a document payable payable in the
// base currency (nil: no rate known yet).
func required(policy org.ApprovalPolicy, payable *string) (int, error) {
	if payable == nil {
		return policy.Required(nil), nil
	}
	amount, err := decimal.NewFromString(*payable)
	if err != nil {
		return 0, err
	}
	return policy.Required(&amount), nil
}

func givens(by []string, at []time.Time) []Given {
	out := make([]Given, 0, len(by))
	for i := range by {
		out = append(out, Given{By: by[i], At: at[i].UTC()})
	}
	return out
}

// refusal refuses an approval the policy does not allow: the submitter's,
// when the policy separates them, and a second one by the same person.
func (r approvalRecord) refusal(id int64, actor audit.Actor) error {
	reason := refusalReason(r.policy.SeparateSubmitter, r.submitters, r.before, actor.Label)
	if reason == "" && r.this == nil {
		reason = ReasonAlreadyApproved
	}
	switch reason {
	case ReasonSeparationOfDuties:
		return apperr.New(apperr.Forbidden, "you submitted document %d; the org's approval policy has someone else approve it", id).
			With("reason", ReasonSeparationOfDuties)
	case ReasonAlreadyApproved:
		return apperr.New(apperr.InvalidState, "you approved document %d already; its next approval is someone else's", id).
			With("reason", ReasonAlreadyApproved)
	}
	return nil
}

// refusalReason is why the policy refuses approver's approval of a document
// with submitters and approvals given (separate: the policy separates
// submitters), in the order approve checks them; "" when it allows it.
func refusalReason(separate bool, submitters []string, approvals []Given, approver string) string {
	if separate && slices.Contains(submitters, approver) {
		return ReasonSeparationOfDuties
	}
	if slices.ContainsFunc(approvals, func(g Given) bool { return g.By == approver }) {
		return ReasonAlreadyApproved
	}
	return ""
}

// approvals are the document's approvals with this one.
func (r approvalRecord) approvals() []Given {
	return append(slices.Clone(r.before), *r.this)
}

// ApprovalState is where a document stands towards its approval: the
// approvals it has been given, and how many the org's policy asks of it now.
type ApprovalState struct {
	Approvals []Given
	Required  int
}

// Approvals reads the approval state of a document of the org.
func Approvals(ctx context.Context, q database.Executor, orgID, id int64) (ApprovalState, error) {
	states, err := ApprovalsOf(ctx, q, orgID, []int64{id})
	if err != nil {
		return ApprovalState{}, err
	}
	st, ok := states[id]
	if !ok {
		return ApprovalState{}, apperr.New(apperr.NotFound, "no document %d", id)
	}
	return st, nil
}

// ApprovalsOf reads the approval state of documents of the org, by id, in
// one statement (a listing's page); ids not the org's are left out.
func ApprovalsOf(ctx context.Context, q database.Executor, orgID int64, ids []int64) (map[int64]ApprovalState, error) {
	rows, err := q.Query(ctx, approvalStateSQL, ids, orgID)
	if err != nil {
		return nil, fmt.Errorf("review: approvals: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]ApprovalState, len(ids))
	for rows.Next() {
		var id int64
		var separate *bool
		var rules []byte
		var payable *string
		var by []string
		var at []time.Time
		if err := rows.Scan(&id, &separate, &rules, &payable, &by, &at); err != nil {
			return nil, fmt.Errorf("review: approvals: %w", err)
		}
		policy, err := org.ScanApprovalPolicy(separate, rules)
		if err != nil {
			return nil, err
		}
		n, err := required(policy, payable)
		if err != nil {
			return nil, fmt.Errorf("review: amount of document %d: %w", id, err)
		}
		out[id] = ApprovalState{Approvals: givens(by, at), Required: n}
	}
	return out, rows.Err()
}

// Standing is where a document stands towards its approval for one
// approver: its approval state, and why approve would refuse this
// approver's approval now (ReasonSeparationOfDuties, ReasonAlreadyApproved;
// "" when it would count it).
type Standing struct {
	ApprovalState
	Refusal string
}

// StandingOf reads document id's approval state and whether approver (an
// actor's label) may give it an approval now, by the rules approve applies.
func StandingOf(ctx context.Context, q database.Executor, orgID, id int64, approver string) (Standing, error) {
	var separate *bool
	var rules []byte
	var payable *string
	var submitters, by []string
	var at []time.Time
	err := q.QueryRow(ctx, standingSQL, id, orgID).Scan(&separate, &rules, &payable, &submitters, &by, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return Standing{}, apperr.New(apperr.NotFound, "no document %d", id)
	}
	if err != nil {
		return Standing{}, fmt.Errorf("review: approval standing of document %d: %w", id, err)
	}
	policy, err := org.ScanApprovalPolicy(separate, rules)
	if err != nil {
		return Standing{}, err
	}
	st := Standing{ApprovalState: ApprovalState{Approvals: givens(by, at)}}
	if st.Required, err = required(policy, payable); err != nil {
		return Standing{}, fmt.Errorf("review: amount of document %d: %w", id, err)
	}
	st.Refusal = refusalReason(policy.SeparateSubmitter, submitters, st.Approvals, approver)
	return st, nil
}

// ClearApprovals forgets the approvals of document id, inside the caller's
// transaction: its facts changed (typed in again), so what was approved is
// no longer what it says.
func ClearApprovals(ctx context.Context, tx pgx.Tx, id int64) error {
	if _, err := tx.Exec(ctx, clearApprovalsSQL, id); err != nil {
		return fmt.Errorf("review: clear approvals of document %d: %w", id, err)
	}
	return nil
}
