package ledger

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/org"
)

// AccountType is one of the five kinds of account.
type AccountType string

// The account types.
const (
	Asset     AccountType = "asset"
	Liability AccountType = "liability"
	Equity    AccountType = "equity"
	Income    AccountType = "income"
	Expense   AccountType = "expense"
)

// Account is an account of an org's chart.
type Account struct {
	ID     int64       `json:"-"`
	Code   string      `json:"code"`
	Name   string      `json:"name"`
	Type   AccountType `json:"type"`
	Active bool        `json:"active"`
}

// Well-known accounts of the default chart that the bookkeeper posts to.
const (
	AccountsPayable  = "2000"
	InputVAT         = "1400"
	GeneralExpenses  = "6000"
	AccountsReceiv   = "1200"
	ExchangeRateDiff = "7900"
)

// DefaultChart is the chart of accounts a new org starts with: enough to
// book supplier invoices and credit notes, pay them, and correct them.
var DefaultChart = []Account{
	{Code: "1000", Name: "Bank", Type: Asset},
	{Code: "1100", Name: "Cash", Type: Asset},
	{Code: AccountsReceiv, Name: "Accounts receivable", Type: Asset},
	{Code: InputVAT, Name: "Input VAT", Type: Asset},
	{Code: "1500", Name: "Prepaid expenses", Type: Asset},
	{Code: AccountsPayable, Name: "Accounts payable", Type: Liability},
	{Code: "2400", Name: "Output VAT", Type: Liability},
	{Code: "2900", Name: "Accrued expenses", Type: Liability},
	{Code: "3000", Name: "Share capital", Type: Equity},
	{Code: "3900", Name: "Retained earnings", Type: Equity},
	{Code: "4000", Name: "Sales", Type: Income},
	{Code: "4900", Name: "Other income", Type: Income},
	{Code: "5000", Name: "Cost of goods sold", Type: Expense},
	{Code: GeneralExpenses, Name: "General expenses", Type: Expense},
	{Code: "6100", Name: "Office supplies", Type: Expense},
	{Code: "6200", Name: "Software and subscriptions", Type: Expense},
	{Code: "6300", Name: "Travel", Type: Expense},
	{Code: "6400", Name: "Professional services", Type: Expense},
	{Code: "6500", Name: "Rent and premises", Type: Expense},
	{Code: ExchangeRateDiff, Name: "Exchange rate differences", Type: Expense},
}

// SeedDefaultChart gives a new org the default chart of accounts. It runs
// in the transaction that creates the org (it is an org.Seeder).
func SeedDefaultChart(ctx context.Context, tx pgx.Tx, o org.Org) error {
	codes, names, types := make([]string, 0, len(DefaultChart)), make([]string, 0, len(DefaultChart)), make([]string, 0, len(DefaultChart))
	for _, a := range DefaultChart {
		codes, names, types = append(codes, a.Code), append(names, a.Name), append(types, string(a.Type))
	}
	_, err := tx.Exec(ctx, seedChartSQL, o.ID, codes, names, types)
	if err != nil {
		return fmt.Errorf("ledger: seed chart of accounts: %w", err)
	}
	return nil
}

// Accounts lists an org's chart by code.
func Accounts(ctx context.Context, q database.Executor, orgID int64) ([]Account, error) {
	rows, err := q.Query(ctx, listAccountsSQL, orgID)
	if err != nil {
		return nil, fmt.Errorf("ledger: accounts: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Account, error) {
		var a Account
		err := r.Scan(&a.ID, &a.Code, &a.Name, &a.Type, &a.Active)
		return a, err
	})
}

// SetAccountActive activates or deactivates an account. Posted lines keep
// it; new entries cannot use an inactive account.
func SetAccountActive(ctx context.Context, q database.Executor, orgID int64, code string, active bool) error {
	tag, err := q.Exec(ctx, setAccountActiveSQL, orgID, code, active)
	if err != nil {
		return fmt.Errorf("ledger: set account active: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.New(apperr.NotFound, "no account %q", code)
	}
	return nil
}
