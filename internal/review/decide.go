package review

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/intake"
)

// Reject rejects a pending or flagged document with a reason. A rejected
// document gives its natural key up.
func (d *Decisions) Reject(ctx context.Context, orgID, id int64, reason string, actor audit.Actor) (intake.Document, error) {
	return d.decide(ctx, orgID, id, reason, actor, decision{
		action: "reject",
		refuse: func(doc intake.Document, _ Member) error {
			if !doc.Undecided() {
				return apperr.New(apperr.InvalidState, "document %d is %s; only a pending or flagged document can be rejected", id, doc.Status)
			}
			return nil
		},
		update: rejectSQL,
		args:   []any{id, actor.Label, reason},
		detail: func(intake.Document) map[string]any {
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
func (d *Decisions) CloseNothingToPost(ctx context.Context, orgID, id int64, actor audit.Actor) (intake.Document, error) {
	return d.decide(ctx, orgID, id, NothingToPostReason, actor, decision{
		action: "reject",
		refuse: func(_ intake.Document, self Member) error { return Closable(self) },
		update: rejectSQL,
		args:   []any{id, actor.Label, NothingToPostReason},
		detail: func(intake.Document) map[string]any {
			return map[string]any{"reason": NothingToPostReason, "closed": intake.FlagNothingToPost}
		},
	})
}

// MarkDistinct is an admin's "not a duplicate": it removes the document's
// duplicate_of edge, so that two genuinely distinct documents whose
// references collide (a supplier reusing numbers across years) can each be
// approved. The document keeps out of the natural key (its incumbent holds
// it) and remembers which row it is distinct from.
func (d *Decisions) MarkDistinct(ctx context.Context, orgID, id int64, reason string, actor audit.Actor) (intake.Document, error) {
	return d.decide(ctx, orgID, id, reason, actor, decision{
		action: "not_a_duplicate",
		refuse: func(doc intake.Document, _ Member) error {
			if doc.DuplicateOf == 0 {
				return apperr.New(apperr.InvalidState, "document %d is not filed as a duplicate", id)
			}
			if !doc.Undecided() {
				return apperr.New(apperr.InvalidState, "document %d is %s; decided documents keep their edges", id, doc.Status)
			}
			return nil
		},
		update: markDistinctSQL,
		args:   []any{id},
		detail: func(before intake.Document) map[string]any {
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
	refuse func(before intake.Document, self Member) error
	update string
	args   []any
	detail func(before intake.Document) map[string]any
}

// decide makes a decision with a reason in one transaction, audited, and
// returns the document as it left it.
func (d *Decisions) decide(ctx context.Context, orgID, id int64, reason string, actor audit.Actor, dec decision) (intake.Document, error) {
	if err := audit.CheckReason(reason); err != nil {
		return intake.Document{}, err
	}
	return retryConflicts(ctx, d, func() (intake.Document, error) {
		return database.WithTxV(ctx, d.pool, func(tx pgx.Tx) (intake.Document, error) {
			// The group lock first, as approve takes it: a decision that
			// comes while an approve of another member is in flight waits
			// for it and then reads the group as it left it.
			members, err := d.lock.lockGroup(ctx, tx, orgID, id)
			if err != nil {
				return intake.Document{}, err
			}
			before, err := intake.GetDocument(ctx, tx, orgID, id)
			if err != nil {
				return intake.Document{}, err
			}
			var self Member
			for _, m := range members {
				if m.ID == id {
					self = m
				}
			}
			if err := dec.refuse(before, self); err != nil {
				return intake.Document{}, err
			}
			if _, err := tx.Exec(ctx, dec.update, dec.args...); err != nil {
				return intake.Document{}, fmt.Errorf("review: %s document %d: %w", dec.action, id, err)
			}
			after, err := intake.GetDocument(ctx, tx, orgID, id)
			if err != nil {
				return intake.Document{}, err
			}
			if err := audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: dec.action, SubjectType: "intake",
				SubjectID: id, FromStatus: string(before.Status), ToStatus: string(after.Status), Detail: dec.detail(before)}); err != nil {
				return intake.Document{}, err
			}
			return after, nil
		})
	})
}

// Closable says whether a document may be closed as having nothing to
// post (nil when it may): exactly when approve would refuse it for that
// reason.
func Closable(m Member) error {
	switch {
	case m.Status != intake.Pending && m.Status != intake.Flagged:
		return apperr.New(apperr.InvalidState, "document %d is %s; only a pending or flagged document can be closed", m.ID, m.Status)
	case m.FlagReason == intake.FlagNotAnInvoice:
		return apperr.New(apperr.InvalidState, "document %d is not an invoice or a credit note; reject it", m.ID)
	case (intake.NeedsFields(m.FlagReason) && m.FlagReason != intake.FlagInvalidEInvoice) || m.DocType == "" || !m.HasFields:
		return apperr.New(apperr.InvalidState, "document %d has no valid fields (%s); type them in or reject it", m.ID, orNone(m.FlagReason))
	case !m.nothingToPost():
		return apperr.New(apperr.InvalidState, "document %d has something to post; approve or reject it", m.ID)
	}
	return nil
}
