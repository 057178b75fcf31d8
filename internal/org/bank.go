package org

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apchecks"
	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
)

// BankAccountFaults is the detail key of a refused bank account's error:
// a map from the field ("iban", "bic") to why it was refused, for a form to
// show beside the field it is about.
const BankAccountFaults = "fields"

// SetBankAccount sets the org's own bank account, the debtor of its payment
// files: a valid IBAN (apchecks.ValidIBAN: look-alike characters are
// refused) and optionally its bank's BIC, both stored normalized; both
// empty clear it. A BIC without an IBAN names no account and is refused.
// Audited as org.bank_account_set with the account before and after.
func SetBankAccount(ctx context.Context, db database.Executor, orgID int64, iban, bic string, by audit.Actor) (Org, error) {
	iban, bic, err := cleanBankAccount(iban, bic)
	if err != nil {
		return Org{}, err
	}
	return database.WithTxV(ctx, db, func(tx pgx.Tx) (Org, error) {
		before, err := lockOrg(ctx, tx, orgID)
		if err != nil || (before.BankIBAN == iban && before.BankBIC == bic) {
			return before, err
		}
		var o Org
		if err := scanOrg(tx.QueryRow(ctx, setBankAccountSQL, orgID, iban, bic), &o); err != nil {
			return Org{}, fmt.Errorf("org: bank account of %d: %w", orgID, err)
		}
		return o, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: by, Action: "org.bank_account_set",
			SubjectType: "org", SubjectID: orgID, Detail: map[string]any{
				"before": map[string]string{"iban": before.BankIBAN, "bic": before.BankBIC},
				"after":  map[string]string{"iban": o.BankIBAN, "bic": o.BankBIC}}})
	})
}

// cleanBankAccount is the account as stored, or an invalid error whose
// BankAccountFaults detail names what is wrong with each part.
func cleanBankAccount(iban, bic string) (string, string, error) {
	faults := map[string]string{}
	if strings.TrimSpace(iban) == "" {
		iban = ""
	} else if valid, err := apchecks.ValidIBAN(iban); err != nil {
		faults["iban"] = message(err)
	} else {
		iban = valid
	}
	if strings.TrimSpace(bic) == "" {
		bic = ""
	} else if valid, err := apchecks.ValidBIC(bic); err != nil {
		faults["bic"] = message(err)
	} else if iban == "" && faults["iban"] == "" {
		faults["bic"] = "a BIC names the bank of an account: give the IBAN too"
	} else {
		bic = valid
	}
	if len(faults) == 0 {
		return iban, bic, nil
	}
	var parts []string
	for _, field := range []string{"iban", "bic"} {
		if f, ok := faults[field]; ok {
			parts = append(parts, f)
		}
	}
	return "", "", apperr.New(apperr.Invalid, "%s", strings.Join(parts, "; ")).With(BankAccountFaults, faults)
}

// message is err's user-safe message.
func message(err error) string {
	if e, ok := apperr.As(err); ok {
		return e.Message
	}
	return err.Error()
}
