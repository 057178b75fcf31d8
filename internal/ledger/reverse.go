package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/storable"
)

// ReversalSuffix is appended to the original's entry_set to form the
// reversal's source key.
const ReversalSuffix = "/reversal"

// MaxReversalReason bounds a reversal's reason, in bytes.
const MaxReversalReason = 1000

// AuditReverse is the audit action of a reversal; its detail holds the
// reason and the entry reversed.
const AuditReverse = "reverse_entry"

// Reversal is what a reversal asks for besides the entry: its date (the
// original's when empty), why, and who.
type Reversal struct {
	Date   string
	Reason string
	Actor  audit.Actor
}

// NeedReversalReason is the rule of the reversal form: a person reversing
// an entry says why (at least three characters). The API's reason stays
// optional, as its contract had none.
func NeedReversalReason(reason string) error {
	if len([]rune(strings.TrimSpace(reason))) < 3 {
		return apperr.New(apperr.Invalid, "say why you reverse this entry (at least 3 characters)").
			With("reasons", []Reason{{Field: "reason", Message: "is required"}})
	}
	return nil
}

// Reverse posts the reversal of an entry: the same source type and id, the
// entry set followed by "/reversal", every line on the other side. It is a
// post like any other, so reversing twice returns the first reversal. The
// reversal is dated r.Date, or the original's date when empty (so that a
// retry on another day is still an exact replay). The reason is not one of
// the entry's facts (a retry with other words is still a replay): it is
// recorded in the audit trail, in the reversal's transaction, when the
// reversal is new. It takes the pool, not an executor: it opens its own
// transaction, in which PostTx writes the reversal.
func Reverse(ctx context.Context, db *pgxpool.Pool, orgID, entryID int64, r Reversal) (Result, error) {
	r.Reason = strings.TrimSpace(r.Reason)
	if p := storable.Problem(r.Reason, MaxReversalReason); p != "" {
		return Result{}, apperr.New(apperr.Invalid, "the reason %s", p).With("reasons", []Reason{{Field: "reason", Message: p}})
	}
	orig, err := Get(ctx, db, orgID, entryID)
	if err != nil {
		return Result{}, err
	}
	date := r.Date
	if date == "" {
		date = orig.Date
	}
	req := Request{
		SourceKey:   SourceKey{OrgID: orgID, SourceType: orig.SourceType, SourceID: orig.SourceID, EntrySet: orig.EntrySet + ReversalSuffix},
		Date:        date,
		Currency:    orig.Currency,
		Description: fmt.Sprintf("Reversal of entry %d", orig.ID),
		ReversesID:  orig.ID,
		Actor:       r.Actor.Label,
	}
	for _, l := range orig.Lines {
		bd, bc := l.BaseCredit, l.BaseDebit
		req.Lines = append(req.Lines, Line{Account: l.Account, Debit: l.Credit, Credit: l.Debit,
			BaseDebit: &bd, BaseCredit: &bc, Dimensions: l.Dimensions})
	}
	res, err := database.WithTxV(ctx, db, func(tx pgx.Tx) (Result, error) {
		res, err := PostTx(ctx, tx, req)
		if err != nil || res.Replayed {
			return res, err
		}
		return res, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: r.Actor, Action: AuditReverse,
			SubjectType: "journal_entry", SubjectID: res.Entry.ID, Detail: map[string]any{"reason": r.Reason, "reverses_id": orig.ID}})
	})
	if err != nil {
		err = commitError(err)
	}
	Observe(ctx, db, req, res, err)
	if err == nil {
		res.Entry.ReversalReason = r.Reason
		if res.Replayed {
			res.Entry.ReversalReason, err = reversalReason(ctx, db, orgID, res.Entry.ID)
		}
	}
	return res, err
}

// reversalReason is the reason recorded when the reversal entryID was
// posted; empty for an entry that is no reversal or was given none.
func reversalReason(ctx context.Context, q database.Executor, orgID, entryID int64) (string, error) {
	var reason string
	err := q.QueryRow(ctx, reversalReasonSQL, orgID, AuditReverse, entryID).Scan(&reason)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("ledger: reversal reason of entry %d: %w", entryID, err)
	}
	return reason, nil
}
