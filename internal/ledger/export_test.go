package ledger

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// PostTxWithoutLock posts without the advisory lock, as a writer that forgot
// it would: tests prove that the unique index is still a backstop.
func PostTxWithoutLock(ctx context.Context, tx pgx.Tx, req Request) (Result, error) {
	return post(ctx, tx, req, postOptions{lock: false})
}

// LookupSQL is the source-key lookup, for the plan test.
const LookupSQL = lookupSQL

// AccountsSQL is the account lookup of a post, for the plan test.
const AccountsSQL = accountsSQL
