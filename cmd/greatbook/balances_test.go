package main

import (
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// TestBalancesCheckFailsOnADifferenceAndRebuildCorrectsIt tampers with a
// kept balance: the check prints the difference and fails, the rebuild
// corrects and audits it, and the check passes again.
func TestBalancesCheckFailsOnADifferenceAndRebuildCorrectsIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme Ltd")
	runCLI(t, db.URL, "", "org", "add", "globex", "--name", "Globex")
	var acme int64
	if err := db.Pool.QueryRow(ctx, `SELECT id FROM orgs WHERE slug = 'acme'`).Scan(&acme); err != nil {
		t.Fatal(err)
	}
	_, err := ledger.Post(ctx, db.Pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: acme, SourceType: "test", SourceID: "1", EntrySet: "bill"},
		Date:      "2026-11-20", Currency: "EUR", Actor: "test",
		Lines: []ledger.Line{{Account: "6000", Debit: decimal.NewFromInt(100)}, {Account: "2000", Credit: decimal.NewFromInt(100)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out := runCLI(t, db.URL, "", "balances", "check"); out != "balances agree with the journal lines\n" {
		t.Fatalf("check: %q", out)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE ledger_balances SET credit = credit + 1 WHERE org_id = $1 AND dimension = ''
		AND account_id = (SELECT id FROM accounts WHERE org_id = $1 AND code = '2000')`, acme); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return db.URL
		}
		return ""
	}
	err = run(ctx, []string{"balances", "check"}, getenv, strings.NewReader(""), &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "1 balances differ") ||
		!strings.Contains(out.String(), "2026-11 all lines: kept debit 0 credit 101 lines 1; lines sum to debit 0 credit 100 lines 1") {
		t.Fatalf("check of a tampered balance: %v\n%s", err, out.String())
	}
	// Another org's check does not see it.
	if out := runCLI(t, db.URL, "", "balances", "check", "globex"); out != "balances agree with the journal lines\n" {
		t.Fatalf("globex's check: %q", out)
	}
	if out := runCLI(t, db.URL, "", "balances", "rebuild", "acme"); !strings.HasSuffix(out, "(1 differences corrected)\n") {
		t.Fatalf("rebuild: %q", out)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = $2 AND detail->>'differences' = '1'`,
		acme, ledger.AuditRebuildBalances); n != 1 {
		t.Fatalf("rebuild audit events: %d", n)
	}
	if out := runCLI(t, db.URL, "", "balances", "check", "acme"); out != "balances agree with the journal lines\n" {
		t.Fatalf("check after the rebuild: %q", out)
	}
	if err := run(ctx, []string{"balances", "check", "acme", "globex"}, getenv, strings.NewReader(""), &out, &errOut); err == nil ||
		!strings.Contains(err.Error(), "usage: greatbook balances") {
		t.Fatalf("two slugs: %v", err)
	}
}
