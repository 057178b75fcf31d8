package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/storable"
)

// Get returns one of an org's entries, with the id of its reversal if any.
func Get(ctx context.Context, q database.Executor, orgID, id int64) (Entry, error) {
	e, err := scanEntry(q.QueryRow(ctx, getEntrySQL, orgID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Entry{}, apperr.New(apperr.NotFound, "no journal entry %d", id)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("ledger: get entry %d: %w", id, err)
	}
	err = q.QueryRow(ctx, reversedBySQL, orgID, id).Scan(&e.ReversedByID)
	if err != nil {
		return Entry{}, fmt.Errorf("ledger: get entry %d: %w", id, err)
	}
	if e.ReversesID != 0 {
		if e.ReversalReason, err = reversalReason(ctx, q, orgID, id); err != nil {
			return Entry{}, err
		}
	}
	return e, nil
}

// ReversalOf is the entry that reversed entry id, with its reason; ok is
// false while the entry stands.
func ReversalOf(ctx context.Context, q database.Executor, orgID, id int64) (reversal Entry, ok bool, err error) {
	var by int64
	err = q.QueryRow(ctx, reversedBySQL, orgID, id).Scan(&by)
	if err != nil || by == 0 {
		if err != nil {
			err = fmt.Errorf("ledger: reversal of entry %d: %w", id, err)
		}
		return Entry{}, false, err
	}
	reversal, err = Get(ctx, q, orgID, by)
	return reversal, err == nil, err
}

// Filter narrows a list of entries. Empty fields do not filter.
type Filter struct {
	SourceType string
	SourceID   string
	Account    string
	From, To   string // YYYY-MM-DD, inclusive
	// Dimension keeps the entries with a line that carries it, of Value
	// when that is not empty.
	Dimension, Value string
	// Before is a keyset position in the list's order (date, then id, both
	// newest first): only entries after it in that order. Nil: from the top.
	Before *Position
	Limit  int
	Offset int
}

// Position is an entry's place in the newest-first order of List: its date
// and id (unique, so the order is total and a page boundary never moves).
type Position struct {
	Date string // YYYY-MM-DD
	ID   int64
}

// List returns an org's entries matching f, newest first.
func List(ctx context.Context, q database.Executor, orgID int64, f Filter) ([]Entry, error) {
	for _, d := range []struct{ name, value string }{{"from", f.From}, {"to", f.To}} {
		if err := checkDate(d.name, d.value); err != nil {
			return nil, err
		}
	}
	if err := storable.CheckParameters(storable.Param{Name: "source_type", Value: f.SourceType, Max: MaxKeyText},
		storable.Param{Name: "source_id", Value: f.SourceID, Max: MaxKeyText}, storable.Param{Name: "account", Value: f.Account, Max: MaxKeyText},
		storable.Param{Name: "dimension", Value: f.Dimension, Max: MaxKeyText}, storable.Param{Name: "value", Value: f.Value, Max: MaxKeyText}); err != nil {
		return nil, err
	}
	where := []string{listEntriesOfOrg}
	args := []any{orgID}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	if f.SourceType != "" {
		where = append(where, fmt.Sprintf(listEntriesSourceType, arg(f.SourceType)))
	}
	if f.SourceID != "" {
		where = append(where, fmt.Sprintf(listEntriesSourceID, arg(f.SourceID)))
	}
	if f.Account != "" {
		where = append(where, fmt.Sprintf(listEntriesAccount, arg(f.Account)))
	}
	switch {
	case f.Dimension != "" && f.Value != "":
		where = append(where, fmt.Sprintf(listEntriesDimensionValue, arg(f.Dimension), arg(f.Value)))
	case f.Dimension != "":
		where = append(where, fmt.Sprintf(listEntriesDimension, arg(f.Dimension)))
	}
	if f.From != "" {
		where = append(where, fmt.Sprintf(listEntriesFrom, arg(f.From)))
	}
	if f.To != "" {
		where = append(where, fmt.Sprintf(listEntriesTo, arg(f.To)))
	}
	if f.Before != nil {
		if err := checkDate("cursor", f.Before.Date); err != nil || f.Before.Date == "" || f.Before.ID <= 0 {
			return nil, apperr.New(apperr.Invalid, "the parameter cursor is not a position in this list").With("parameter", "cursor")
		}
		where = append(where, fmt.Sprintf(listEntriesBefore, arg(f.Before.Date), arg(f.Before.ID)))
	}
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 100
	}
	sql := listEntriesWhere + strings.Join(where, " AND ") +
		fmt.Sprintf(listEntriesOrderLimits, arg(f.Limit), arg(max(f.Offset, 0)))
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: list entries: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("ledger: list entries: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, err
	}
	return out, reversedBy(ctx, q, orgID, out)
}

// reversedBy fills the reversal of each listed entry that has one, as Get
// does for one, in one query for the list.
func reversedBy(ctx context.Context, q database.Executor, orgID int64, entries []Entry) error {
	ids := make([]int64, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	rows, err := q.Query(ctx, reversedByManySQL, orgID, ids)
	if err != nil {
		return fmt.Errorf("ledger: list entries: %w", err)
	}
	defer rows.Close()
	by := map[int64]int64{}
	for rows.Next() {
		var of, id int64
		if err := rows.Scan(&of, &id); err != nil {
			return fmt.Errorf("ledger: list entries: %w", err)
		}
		by[of] = id
	}
	for i := range entries {
		entries[i].ReversedByID = by[entries[i].ID]
	}
	return rows.Err()
}

// BalanceRow is one account of a trial balance, in base currency: all of
// its lines, or (by a dimension) those of one value of the dimension.
type BalanceRow struct {
	Account
	// Value is the dimension's value of the lines summed ("" for lines
	// without it) in a trial balance by dimension.
	Value   string
	Debit   decimal.Decimal
	Credit  decimal.Decimal
	Balance decimal.Decimal // debit − credit
}

// TrialBalance sums every account's lines up to and including asOf (all
// dates when empty), in base currency. Total debits equal total credits.
func TrialBalance(ctx context.Context, q database.Executor, orgID int64, asOf string) ([]BalanceRow, error) {
	if err := checkDate("as_of", asOf); err != nil {
		return nil, err
	}
	sql, args := trialBalanceSQL, []any{orgID}
	if asOf != "" {
		sql, args = trialBalanceAsOfSQL, append(args, asOf)
	}
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: trial balance: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (BalanceRow, error) {
		var b BalanceRow
		var d, c string
		if err := r.Scan(&b.ID, &b.Code, &b.Name, &b.Type, &b.Active, &d, &c); err != nil {
			return b, err
		}
		b.Debit, _ = decimal.NewFromString(d)
		b.Credit, _ = decimal.NewFromString(c)
		b.Balance = b.Debit.Sub(b.Credit)
		return b, nil
	})
}

// TrialBalanceBy is the trial balance with each account's lines grouped by
// their value of dimension (a row per account and value, "" for the lines
// without it), of value only when it is not empty; without a dimension it
// is TrialBalance. Filtered by a value, it sums only the lines carrying it,
// which need not balance (the payable and VAT lines carry no cost centre).
func TrialBalanceBy(ctx context.Context, q database.Executor, orgID int64, asOf, dimension, value string) ([]BalanceRow, error) {
	if dimension == "" {
		return TrialBalance(ctx, q, orgID, asOf)
	}
	if err := checkDate("as_of", asOf); err != nil {
		return nil, err
	}
	if err := storable.CheckParameters(storable.Param{Name: "dimension", Value: dimension, Max: MaxKeyText},
		storable.Param{Name: "value", Value: value, Max: MaxKeyText}); err != nil {
		return nil, err
	}
	var date *string
	if asOf != "" {
		date = &asOf
	}
	rows, err := q.Query(ctx, trialBalanceByDimensionSQL, orgID, dimension, date, value)
	if err != nil {
		return nil, fmt.Errorf("ledger: trial balance by %s: %w", dimension, err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (BalanceRow, error) {
		var b BalanceRow
		var d, c string
		if err := r.Scan(&b.ID, &b.Code, &b.Name, &b.Type, &b.Active, &b.Value, &d, &c); err != nil {
			return b, err
		}
		b.Debit, _ = decimal.NewFromString(d)
		b.Credit, _ = decimal.NewFromString(c)
		b.Balance = b.Debit.Sub(b.Credit)
		return b, nil
	})
}

// BalanceTotals are a trial balance's column sums, in base currency.
type BalanceTotals struct {
	Debit, Credit decimal.Decimal
	// Difference is Debit − Credit: zero when the ledger balances.
	Difference decimal.Decimal
}

// Balanced says whether total debits equal total credits.
func (t BalanceTotals) Balanced() bool { return t.Difference.IsZero() }

// Totals sums a trial balance's debits and credits.
func Totals(rows []BalanceRow) BalanceTotals {
	var t BalanceTotals
	for _, r := range rows {
		t.Debit = t.Debit.Add(r.Debit)
		t.Credit = t.Credit.Add(r.Credit)
	}
	t.Difference = t.Debit.Sub(t.Credit)
	return t
}

// checkDate accepts an empty string or a date YYYY-MM-DD.
func checkDate(field, d string) error {
	if d == "" {
		return nil
	}
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return apperr.New(apperr.Invalid, "%s must be a date YYYY-MM-DD, not %q", field, clip(d)).With("parameter", field)
	}
	if t.Year() < EarliestYear || t.Year() > LatestYear {
		return apperr.New(apperr.Invalid, "%s %s is outside the years %d to %d", field, d, EarliestYear, LatestYear).With("parameter", field)
	}
	return nil
}
