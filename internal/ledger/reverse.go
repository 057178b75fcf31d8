package ledger

import (
	"context"
	"fmt"

	"greatbook/internal/database"
)

// ReversalSuffix is appended to the original's entry_set to form the
// reversal's source key.
const ReversalSuffix = "/reversal"

// Reverse posts the reversal of an entry: the same source type and id, the
// entry set followed by "/reversal", every line on the other side. It is a
// post like any other, so reversing twice returns the first reversal. The
// reversal is dated date, or the original's date when date is empty (so
// that a retry on another day is still an exact replay).
func Reverse(ctx context.Context, db database.Executor, orgID, entryID int64, date, actor string) (Result, error) {
	orig, err := Get(ctx, db, orgID, entryID)
	if err != nil {
		return Result{}, err
	}
	if date == "" {
		date = orig.Date
	}
	req := Request{
		SourceKey:   SourceKey{OrgID: orgID, SourceType: orig.SourceType, SourceID: orig.SourceID, EntrySet: orig.EntrySet + ReversalSuffix},
		Date:        date,
		Currency:    orig.Currency,
		Description: fmt.Sprintf("Reversal of entry %d", orig.ID),
		ReversesID:  orig.ID,
		Actor:       actor,
	}
	for _, l := range orig.Lines {
		bd, bc := l.BaseCredit, l.BaseDebit
		req.Lines = append(req.Lines, Line{Account: l.Account, Debit: l.Credit, Credit: l.Debit,
			BaseDebit: &bd, BaseCredit: &bc, Dimensions: l.Dimensions})
	}
	res, err := Post(ctx, db, req)
	Observe(ctx, db, req, res, err)
	return res, err
}
