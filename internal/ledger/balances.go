package ledger

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/database"
)

// BalanceDifference is one account, month, dimension and value whose kept
// balance (ledger_balances, summed over its slots) is not the sum of its
// journal lines.
type BalanceDifference struct {
	OrgID, AccountID int64
	Period           string // the month's first day, YYYY-MM-DD
	// Dimension is "" for the account's lines as a whole, else a dimension
	// of them with its Value.
	Dimension, Value string
	KeptDebit        decimal.Decimal
	KeptCredit       decimal.Decimal
	KeptLines        int64
	LinesDebit       decimal.Decimal
	LinesCredit      decimal.Decimal
	Lines            int64
}

func (d BalanceDifference) String() string {
	what := "all lines"
	if d.Dimension != "" {
		what = d.Dimension + "=" + d.Value
	}
	return fmt.Sprintf("org %d account %d %s %s: kept debit %s credit %s lines %d; lines sum to debit %s credit %s lines %d",
		d.OrgID, d.AccountID, d.Period[:7], what, d.KeptDebit, d.KeptCredit, d.KeptLines, d.LinesDebit, d.LinesCredit, d.Lines)
}

// CheckBalances compares the kept balances of an org (every org when orgID
// is 0) with the sums of their journal lines and returns where they differ
// (at most 1,000 differences); none when they agree, as they always should.
// It reads every line it checks.
func CheckBalances(ctx context.Context, q database.Executor, orgID int64) ([]BalanceDifference, error) {
	rows, err := q.Query(ctx, checkBalancesSQL, orgID)
	if err != nil {
		return nil, fmt.Errorf("ledger: check balances: %w", err)
	}
	diffs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (BalanceDifference, error) {
		var d BalanceDifference
		var kd, kc, ld, lc string
		err := r.Scan(&d.OrgID, &d.AccountID, &d.Period, &d.Dimension, &d.Value, &kd, &kc, &d.KeptLines, &ld, &lc, &d.Lines)
		d.KeptDebit, _ = decimal.NewFromString(kd)
		d.KeptCredit, _ = decimal.NewFromString(kc)
		d.LinesDebit, _ = decimal.NewFromString(ld)
		d.LinesCredit, _ = decimal.NewFromString(lc)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("ledger: check balances: %w", err)
	}
	return diffs, nil
}

// AuditRebuildBalances is the audit action of a rebuild of the balances;
// its detail counts the differences it corrected.
const AuditRebuildBalances = "rebuild_balances"

// RebuildBalancesTx recomputes the kept balances of an org (every org when
// orgID is 0) from their journal lines, in the caller's transaction, and
// returns the differences it corrected (as CheckBalances found them). Its
// first statement locks journal_lines against inserts until the
// transaction ends, so that no posting adds to balances being rebuilt.
func RebuildBalancesTx(ctx context.Context, tx pgx.Tx, orgID int64) ([]BalanceDifference, error) {
	if _, err := tx.Exec(ctx, lockLinesSQL); err != nil {
		return nil, fmt.Errorf("ledger: rebuild balances: %w", err)
	}
	diffs, err := CheckBalances(ctx, tx, orgID)
	if err != nil {
		return nil, err
	}
	for _, sql := range []string{deleteBalancesSQL, rebuildBalancesSQL} {
		if _, err := tx.Exec(ctx, sql, orgID); err != nil {
			return nil, fmt.Errorf("ledger: rebuild balances: %w", err)
		}
	}
	return diffs, nil
}
