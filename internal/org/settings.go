package org

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
)

// Address is the org's postal address as a buyer: what the "addressed to
// another company" check compares an invoice's buyer address with when
// neither the VAT id nor the name decides.
type Address struct {
	Lines    []string // street, building, department: at most MaxAddressLines
	City     string
	Postcode string
	Country  string // ISO 3166-1 alpha-2, upper case
}

// IsZero reports whether no part of the address is set.
func (a Address) IsZero() bool {
	return len(a.Lines) == 0 && a.City == "" && a.Postcode == "" && a.Country == ""
}

// Limits of an org's address (the database checks them too).
const (
	MaxAddressLines    = 3
	MaxAddressLineSize = 200
	MaxCity            = 100
	MaxPostcode        = 20
)

func validText(s string, limit int) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0) && len(s) <= limit
}

// cleanAddress folds runs of spaces, drops empty lines and checks the
// bounds; the country is upper-cased.
func cleanAddress(a Address) (Address, error) {
	var out Address
	for _, l := range a.Lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out.Lines = append(out.Lines, l)
		}
	}
	if out.Lines == nil {
		out.Lines = []string{}
	}
	out.City = strings.Join(strings.Fields(a.City), " ")
	out.Postcode = strings.Join(strings.Fields(a.Postcode), " ")
	out.Country = strings.ToUpper(strings.TrimSpace(a.Country))
	for _, l := range out.Lines {
		if !validText(l, MaxAddressLineSize) {
			return Address{}, apperr.New(apperr.Invalid, "an address line must be text of at most %d bytes", MaxAddressLineSize)
		}
	}
	switch {
	case len(out.Lines) > MaxAddressLines:
		return Address{}, apperr.New(apperr.Invalid, "the address has at most %d lines", MaxAddressLines)
	case !validText(out.City, MaxCity):
		return Address{}, apperr.New(apperr.Invalid, "the city must be text of at most %d bytes", MaxCity)
	case !validText(out.Postcode, MaxPostcode):
		return Address{}, apperr.New(apperr.Invalid, "the postcode must be text of at most %d bytes", MaxPostcode)
	case out.Country != "" && (len(out.Country) != 2 || strings.Trim(out.Country, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != ""):
		return Address{}, apperr.New(apperr.Invalid, "the country must be a two-letter ISO 3166 code such as DE")
	}
	return out, nil
}

// SetBaseCurrency changes the org's base currency, only while its ledger is
// empty, no approved document waits to be posted and no exchange rate is
// remembered: every entry states its amounts
// in the base currency of its day and is immutable, and every remembered
// rate converts into it, so a change afterwards would make the books say
// two currencies at once. Refused with invalid_state then. Audited as
// org.base_currency_set with the currency before and after.
func SetBaseCurrency(ctx context.Context, db database.Executor, orgID int64, currency string, by audit.Actor) (Org, error) {
	currency = strings.ToUpper(strings.TrimSpace(currency))
	if len(currency) != 3 || strings.Trim(currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return Org{}, apperr.New(apperr.Invalid, "the base currency %q must be an ISO 4217 code such as EUR", clip(currency))
	}
	return database.WithTxV(ctx, db, func(tx pgx.Tx) (Org, error) {
		// The org row first: an entry being posted holds a key-share lock on
		// it until it commits, so the count below sees every entry there is.
		before, err := lockOrg(ctx, tx, orgID)
		if err != nil || before.BaseCurrency == currency {
			return before, err
		}
		// An approved document's bookkeeper converts into the base currency
		// it read when it started: while one waits to be posted, a change
		// would label its entry with a currency it was not converted into.
		// Approving also holds a key-share lock on the org row (the job's
		// foreign key) until it commits, so none is missed.
		var entries, rates, waiting int64
		if err := tx.QueryRow(ctx, baseCurrencyUsesSQL, orgID).Scan(&entries, &rates, &waiting); err != nil {
			return Org{}, fmt.Errorf("org: set base currency of %d: %w", orgID, err)
		}
		switch {
		case entries > 0:
			return Org{}, apperr.New(apperr.InvalidState,
				"the base currency stays %s: the ledger has %d entries in it already, and entries are never changed", before.BaseCurrency, entries)
		case waiting > 0:
			return Org{}, apperr.New(apperr.InvalidState,
				"the base currency stays %s: %d approved documents wait to be posted in it", before.BaseCurrency, waiting)
		case rates > 0:
			return Org{}, apperr.New(apperr.InvalidState,
				"the base currency stays %s: %d remembered exchange rates convert into it; forget them first", before.BaseCurrency, rates)
		}
		var o Org
		if err := scanOrg(tx.QueryRow(ctx, setBaseCurrencySQL, orgID, currency), &o); err != nil {
			return Org{}, fmt.Errorf("org: set base currency of %d: %w", orgID, err)
		}
		return o, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: by, Action: "org.base_currency_set",
			SubjectType: "org", SubjectID: orgID, Detail: map[string]any{"before": before.BaseCurrency, "after": o.BaseCurrency}})
	})
}

// SetDefaultExpenseAccount sets the account a supplier's costs go to when
// no rule and nobody says otherwise: an active expense account of the org,
// named by its code ("" unsets it: the bookkeeper then asks). Audited as
// org.default_expense_account_set with the code before and after.
func SetDefaultExpenseAccount(ctx context.Context, db database.Executor, orgID int64, code string, by audit.Actor) (Org, error) {
	code = strings.TrimSpace(code)
	if !validText(code, 32) {
		return Org{}, apperr.New(apperr.Invalid, "an account code has at most 32 characters")
	}
	return database.WithTxV(ctx, db, func(tx pgx.Tx) (Org, error) {
		before, err := lockOrg(ctx, tx, orgID)
		if err != nil {
			return Org{}, err
		}
		var accountID *int64
		if code != "" {
			var id int64
			var kind string
			var active bool
			// FOR SHARE: the account cannot be deactivated until this commits.
			err := tx.QueryRow(ctx, shareAccountSQL, orgID, code).Scan(&id, &kind, &active)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				return Org{}, apperr.New(apperr.Invalid, "there is no account %q in this org", clip(code))
			case err != nil:
				return Org{}, fmt.Errorf("org: default account of %d: %w", orgID, err)
			case kind != "expense":
				return Org{}, apperr.New(apperr.Invalid, "account %s is a %s account: the default must be an expense account", code, kind)
			case !active:
				return Org{}, apperr.New(apperr.Invalid, "account %s is inactive: the default must be an active expense account", code)
			}
			accountID = &id
		}
		var o Org
		if err := scanOrg(tx.QueryRow(ctx, setDefaultExpenseAccountSQL, orgID, accountID), &o); err != nil {
			return Org{}, fmt.Errorf("org: default account of %d: %w", orgID, err)
		}
		return o, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: by, Action: "org.default_expense_account_set",
			SubjectType: "org", SubjectID: orgID, Detail: map[string]any{"before": before.DefaultExpenseAccount, "after": o.DefaultExpenseAccount}})
	})
}

// clip shortens a value quoted back in an error.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	return strings.ToValidUTF8(s[:40], "") + "…"
}

// AccountOption is an active expense account the default may be set to.
type AccountOption struct {
	Code string
	Name string
}

// Settings is what the admin's settings page shows: the org, the accounts
// its default may name, and the remembered exchange rates.
type Settings struct {
	Org             Org
	ExpenseAccounts []AccountOption
	Rates           []ExchangeRate
}

// ReadSettings reads the admin's settings page of the org.
func ReadSettings(ctx context.Context, q database.Executor, orgID int64) (Settings, error) {
	o, err := ByID(ctx, q, orgID)
	if err != nil {
		return Settings{}, err
	}
	rows, err := q.Query(ctx, expenseAccountsSQL, orgID)
	if err != nil {
		return Settings{}, fmt.Errorf("org: expense accounts of %d: %w", orgID, err)
	}
	accounts, err := pgx.CollectRows(rows, pgx.RowToStructByPos[AccountOption])
	if err != nil {
		return Settings{}, fmt.Errorf("org: expense accounts of %d: %w", orgID, err)
	}
	rates, err := ExchangeRates(ctx, q, orgID)
	return Settings{Org: o, ExpenseAccounts: accounts, Rates: rates}, err
}
