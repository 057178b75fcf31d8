package org_test

import (
	"context"
	"testing"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

// The org's bank account is stored normalized, refused (by field, and the
// account stays) when the IBAN or the BIC is not valid or is written with
// look-alike characters, cleared by two empty values, and audited with the
// account before and after.
func TestBankAccountIsAValidIBANAndBIC(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	o := testkit.Org(t, db)
	by := audit.System("test")
	got, err := org.SetBankAccount(ctx, db.Pool, o.ID, "de89 3704 0044 0532 0130 00", " cobadeffxxx ", by)
	if err != nil || got.BankIBAN != "DE89370400440532013000" || got.BankBIC != "COBADEFFXXX" {
		t.Fatalf("set: %+v %v", got, err)
	}
	d := lastDetail(t, db, o.ID, "org.bank_account_set")
	if after, _ := d["after"].(map[string]any); after["iban"] != "DE89370400440532013000" || after["bic"] != "COBADEFFXXX" {
		t.Errorf("audit detail %v", d)
	}
	for name, tt := range map[string]struct{ iban, bic string }{
		"bad checksum":     {"DE89370400440532013001", ""},
		"cyrillic":         {"DЕ89370400440532013000", "COBADEFFXXX"},
		"full-width bic":   {"DE89370400440532013000", "ＣＯＢＡDEFF"},
		"bic without iban": {"", "COBADEFFXXX"},
	} {
		_, err := org.SetBankAccount(ctx, db.Pool, o.ID, tt.iban, tt.bic, by)
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.Invalid {
			t.Fatalf("%s: %v, want invalid", name, err)
		}
		if faults, _ := e.Details[org.BankAccountFaults].(map[string]string); len(faults) == 0 {
			t.Errorf("%s: no fault by field: %+v", name, e)
		}
	}
	kept, err := org.ByID(ctx, db.Pool, o.ID)
	if err != nil || kept.BankIBAN != "DE89370400440532013000" || kept.BankBIC != "COBADEFFXXX" {
		t.Fatalf("a refused change changed the account: %+v %v", kept, err)
	}
	cleared, err := org.SetBankAccount(ctx, db.Pool, o.ID, " ", "", by)
	if err != nil || cleared.BankIBAN != "" || cleared.BankBIC != "" {
		t.Fatalf("clear: %+v %v", cleared, err)
	}
}
