package main

import (
	"context"
	"strings"
	"testing"

	"greatbook/internal/testkit"
)

// greatbook org set sets the org's identity as a buyer (audited); a flag
// left out keeps its value; an age out of bounds is refused in one line.
func TestOrgSetSetsTheBuyerIdentity(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme")
	out := runCLI(t, db.URL, "", "org", "set", "acme", "--legal-name", "Acme Handels GmbH", "--vat-id", "DE123456789")
	if !strings.Contains(out, `"Acme Handels GmbH"`) || !strings.Contains(out, "18 months") {
		t.Fatalf("org set printed %q", out)
	}
	runCLI(t, db.URL, "", "org", "set", "acme", "--max-issue-age-months", "24")
	var legal, vat string
	var months int
	if err := db.Pool.QueryRow(context.Background(), `SELECT legal_name, vat_id, max_issue_age_months FROM orgs WHERE slug = 'acme'`).
		Scan(&legal, &vat, &months); err != nil {
		t.Fatal(err)
	}
	if legal != "Acme Handels GmbH" || vat != "DE123456789" || months != 24 {
		t.Fatalf("org is %q %q %d", legal, vat, months)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'org.identity_set' AND actor = 'system:cli'`); n != 2 {
		t.Fatalf("%d audit events, want 2", n)
	}
	var stdout, stderr strings.Builder
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return db.URL
		}
		return ""
	}
	err := run(context.Background(), []string{"org", "set", "acme", "--max-issue-age-months", "0"}, getenv, strings.NewReader(""), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "between 1 and 120") {
		t.Fatalf("an age of 0 months: %v", err)
	}
}

// greatbook org set sets the address, the default expense account and the
// base currency, each audited; the currency is refused once the ledger has
// an entry, and an account that is not an active expense account is refused.
func TestOrgSetSetsAddressCurrencyAndDefaultAccount(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme")
	out := runCLI(t, db.URL, "", "org", "set", "acme", "--address-line", "Hauptstraße 1", "--address-line", "Hof 2",
		"--city", "Berlin", "--postcode", "10115", "--country", "de", "--base-currency", "chf", "--default-expense-account", "6100")
	for _, want := range []string{"base currency CHF", "default expense account 6100", `"Hauptstraße 1; Hof 2"`, "DE"} {
		if !strings.Contains(out, want) {
			t.Fatalf("org set printed %q, want %q in it", out, want)
		}
	}
	var lines []string
	var city, postcode, country, currency, account string
	if err := db.Pool.QueryRow(ctx, `SELECT address_lines, city, postcode, country, base_currency,
		(SELECT code FROM accounts WHERE id = default_expense_account_id) FROM orgs WHERE slug = 'acme'`).
		Scan(&lines, &city, &postcode, &country, &currency, &account); err != nil {
		t.Fatal(err)
	}
	if strings.Join(lines, "|") != "Hauptstraße 1|Hof 2" || city != "Berlin" || postcode != "10115" || country != "DE" || currency != "CHF" || account != "6100" {
		t.Fatalf("org is %q %q %q %q %s %s", lines, city, postcode, country, currency, account)
	}
	for _, action := range []string{"org.identity_set", "org.base_currency_set", "org.default_expense_account_set"} {
		if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = $1 AND actor = 'system:cli'`, action); n != 1 {
			t.Fatalf("%d %s audit events, want 1", n, action)
		}
	}
	fails := func(want string, args ...string) {
		t.Helper()
		var stdout, stderr strings.Builder
		getenv := func(k string) string {
			if k == "DATABASE_URL" {
				return db.URL
			}
			return ""
		}
		err := run(ctx, append([]string{"org", "set", "acme"}, args...), getenv, strings.NewReader(""), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("org set %v: %v, want %q", args, err, want)
		}
	}
	fails("expense account", "--default-expense-account", "4000")
	fails("no account", "--default-expense-account", "9999")
	fails("ISO 3166", "--country", "Germany")
	if _, err := db.Pool.Exec(ctx, `WITH e AS (INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency)
		SELECT id, 'test', '1', 'main', '2026-01-02', 'CHF', 'CHF' FROM orgs WHERE slug = 'acme' RETURNING id, org_id)
		INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit)
		SELECT e.id, e.org_id, n, a.id, 10 - 10 * n, 10 * n, 10 - 10 * n, 10 * n
		FROM e, (VALUES (0, '6000'), (1, '2000')) AS v (n, code) JOIN accounts a ON a.code = v.code
		WHERE a.org_id = e.org_id`); err != nil {
		t.Fatal(err)
	}
	fails("entries are never changed", "--base-currency", "EUR")
	out = runCLI(t, db.URL, "", "org", "set", "acme", "--default-expense-account", "")
	if !strings.Contains(out, "default expense account none") {
		t.Fatalf("unset printed %q", out)
	}
}

// greatbook org set --bank-iban --bank-bic sets the org's bank account,
// normalized and audited; an invalid IBAN (a Cyrillic look-alike among
// them) is refused and the account stays; an empty IBAN clears it.
func TestOrgSetSetsBankAccount(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme")
	out := runCLI(t, db.URL, "", "org", "set", "acme", "--bank-iban", "de89 3704 0044 0532 0130 00", "--bank-bic", "cobadeffxxx")
	if !strings.Contains(out, "bank account DE89370400440532013000 (BIC COBADEFFXXX)") {
		t.Fatalf("org set printed %q", out)
	}
	account := func() (iban, bic string) {
		t.Helper()
		if err := db.Pool.QueryRow(ctx, `SELECT bank_iban, bank_bic FROM orgs WHERE slug = 'acme'`).Scan(&iban, &bic); err != nil {
			t.Fatal(err)
		}
		return iban, bic
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'org.bank_account_set' AND actor = 'system:cli'`); n != 1 {
		t.Fatalf("%d org.bank_account_set audit events, want 1", n)
	}
	for _, args := range [][]string{{"--bank-iban", "DЕ89370400440532013000"}, {"--bank-iban", "DE89370400440532013001"}, {"--bank-bic", "COBA"}} {
		var stdout, stderr strings.Builder
		getenv := func(k string) string {
			if k == "DATABASE_URL" {
				return db.URL
			}
			return ""
		}
		if err := run(ctx, append([]string{"org", "set", "acme"}, args...), getenv, strings.NewReader(""), &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "not a") {
			t.Fatalf("org set %v: %v, want refused", args, err)
		}
	}
	if iban, bic := account(); iban != "DE89370400440532013000" || bic != "COBADEFFXXX" {
		t.Fatalf("a refused change changed the account to %q %q", iban, bic)
	}
	runCLI(t, db.URL, "", "org", "set", "acme", "--bank-iban", "")
	if iban, bic := account(); iban != "" || bic != "" {
		t.Fatalf("cleared account is %q %q", iban, bic)
	}
}
