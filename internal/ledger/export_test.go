package ledger

import (
	"context"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
)

// PostTxWithoutLock posts without the advisory lock, as a writer that forgot
// it would: tests prove that the unique index is still a backstop.
func PostTxWithoutLock(ctx context.Context, tx pgx.Tx, req Request) (Result, error) {
	return postTx(ctx, tx, req, func(req Request) (string, []any) {
		return `SELECT base_currency, ` + database.KeyLookupSettings + ` FROM orgs WHERE id = $1`, []any{req.OrgID}
	})
}

// LookupSQL is the source-key lookup, for the plan test.
const LookupSQL = lookupSQL

// AccountsSQL is the account lookup of a post, for the plan test.
const AccountsSQL = accountsSQL

// The trial balance's statements, for the plan test.
const (
	TrialBalanceSQL            = trialBalanceSQL
	TrialBalanceAsOfSQL        = trialBalanceAsOfSQL
	TrialBalanceByDimensionSQL = trialBalanceByDimensionSQL
)
