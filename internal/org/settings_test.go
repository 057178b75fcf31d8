package org_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func wantCode(t *testing.T, err error, code apperr.Code) {
	t.Helper()
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
}

// lastDetail is the detail of the org's newest audit event of action.
func lastDetail(t *testing.T, db *testkit.DB, orgID int64, action string) map[string]any {
	t.Helper()
	var raw []byte
	if err := db.Pool.QueryRow(context.Background(), `SELECT detail FROM audit_events WHERE org_id = $1 AND action = $2 ORDER BY id DESC LIMIT 1`,
		orgID, action).Scan(&raw); err != nil {
		t.Fatalf("audit %s: %v", action, err)
	}
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// The default expense account is an active expense account of the org;
// any other is refused and the default stays; a change is audited with
// the account before and after.
func TestDefaultExpenseAccountIsAnActiveExpenseAccountOfTheOrg(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	o, other := testkit.Org(t, db), testkit.Org(t, db)
	by := audit.System("test")
	if _, err := db.Pool.Exec(ctx, `UPDATE accounts SET active = false WHERE org_id = $1 AND code = '6300'`, o.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO accounts (org_id, code, name, type) VALUES ($1, '6900', 'Elsewhere', 'expense')`, other.ID); err != nil {
		t.Fatal(err)
	}
	got, err := org.SetDefaultExpenseAccount(ctx, db.Pool, o.ID, "6000", by)
	if err != nil || got.DefaultExpenseAccount != "6000" {
		t.Fatalf("set 6000: %+v %v", got, err)
	}
	for name, code := range map[string]string{"income": "4000", "asset": "1000", "inactive": "6300", "unknown": "9999", "another org's": "6900"} {
		_, err := org.SetDefaultExpenseAccount(ctx, db.Pool, o.ID, code, by)
		wantCode(t, err, apperr.Invalid)
		t.Logf("%s: %v", name, err)
	}
	got, err = org.SetDefaultExpenseAccount(ctx, db.Pool, o.ID, "6100", by)
	if err != nil || got.DefaultExpenseAccount != "6100" {
		t.Fatalf("set 6100: %+v %v", got, err)
	}
	if d := lastDetail(t, db, o.ID, "org.default_expense_account_set"); d["before"] != "6000" || d["after"] != "6100" {
		t.Fatalf("audit detail %v", d)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'org.default_expense_account_set'`, o.ID); n != 2 {
		t.Fatalf("%d audit events, want 2 (refusals are not changes)", n)
	}
	reread, err := org.ByID(ctx, db.Pool, o.ID)
	if err != nil || reread.DefaultExpenseAccount != "6100" {
		t.Fatalf("reread %+v %v", reread, err)
	}
	if got, err = org.SetDefaultExpenseAccount(ctx, db.Pool, o.ID, "", by); err != nil || got.DefaultExpenseAccount != "" {
		t.Fatalf("unset: %+v %v", got, err)
	}
}

// The base currency changes only while the ledger is empty and no rate is
// remembered; then it is refused with invalid_state saying why.
func TestBaseCurrencyChangesOnlyWhileTheLedgerIsEmpty(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	o := testkit.Org(t, db)
	by := audit.System("test")
	_, err := org.SetBaseCurrency(ctx, db.Pool, o.ID, "euro", by)
	wantCode(t, err, apperr.Invalid)
	got, err := org.SetBaseCurrency(ctx, db.Pool, o.ID, "chf", by)
	if err != nil || got.BaseCurrency != "CHF" {
		t.Fatalf("empty ledger: %+v %v", got, err)
	}
	if d := lastDetail(t, db, o.ID, "org.base_currency_set"); d["before"] != "EUR" || d["after"] != "CHF" {
		t.Fatalf("audit detail %v", d)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO exchange_rates (org_id, currency, rate_date, rate, created_by) VALUES ($1, 'USD', '2026-01-02', 0.9, 'x')`, o.ID); err != nil {
		t.Fatal(err)
	}
	_, err = org.SetBaseCurrency(ctx, db.Pool, o.ID, "EUR", by)
	wantCode(t, err, apperr.InvalidState)
	if err := org.ForgetExchangeRate(ctx, db.Pool, o.ID, "usd", "2026-01-02", by); err != nil {
		t.Fatal(err)
	}
	// An approved document waiting for the bookkeeper (its job not done).
	var jobID int64
	if err := db.Pool.QueryRow(ctx, `WITH d AS (INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes, received_via, received_by)
		VALUES ($1, repeat('a', 64), 'application/json', 1, 'api', 'x') RETURNING id)
		INSERT INTO jobs (org_id, intake_id, created_by) SELECT $1, id, 'x' FROM d RETURNING id`, o.ID).Scan(&jobID); err != nil {
		t.Fatal(err)
	}
	_, err = org.SetBaseCurrency(ctx, db.Pool, o.ID, "EUR", by)
	wantCode(t, err, apperr.InvalidState)
	if !strings.Contains(err.Error(), "wait to be posted") {
		t.Fatalf("refusal says %v", err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE jobs SET status = 'done' WHERE id = $1`, jobID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO exchange_rates (org_id, currency, rate_date, rate, created_by) VALUES ($1, 'USD', '2026-01-02', 0.9, 'x')`, o.ID); err != nil {
		t.Fatal(err)
	}
	if err := org.ForgetExchangeRate(ctx, db.Pool, o.ID, "usd", "2026-01-02", by); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `WITH e AS (INSERT INTO journal_entries (org_id, source_type, source_id, entry_set, entry_date, currency, base_currency)
		VALUES ($1, 'test', '1', 'main', '2026-01-02', 'CHF', 'CHF') RETURNING id)
		INSERT INTO journal_lines (entry_id, org_id, line_no, account_id, debit, credit, base_debit, base_credit)
		SELECT e.id, $1, n, a.id, CASE n WHEN 0 THEN 10 ELSE 0 END, CASE n WHEN 1 THEN 10 ELSE 0 END,
		       CASE n WHEN 0 THEN 10 ELSE 0 END, CASE n WHEN 1 THEN 10 ELSE 0 END
		FROM e, (VALUES (0, '6000'), (1, '2000')) AS v (n, code) JOIN accounts a ON a.org_id = $1 AND a.code = v.code`, o.ID); err != nil {
		t.Fatal(err)
	}
	_, err = org.SetBaseCurrency(ctx, db.Pool, o.ID, "EUR", by)
	wantCode(t, err, apperr.InvalidState)
	if reread, _ := org.ByID(ctx, db.Pool, o.ID); reread.BaseCurrency != "CHF" {
		t.Fatalf("base currency %s after a refusal", reread.BaseCurrency)
	}
}

// The address is part of the identity: cleaned, bounded, audited with
// before and after.
func TestIdentityCarriesTheAddress(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	o := testkit.Org(t, db)
	by := audit.System("test")
	id := org.Identity{LegalName: "Acme GmbH", Address: org.Address{Lines: []string{"  Hauptstraße   1 ", "", "Hinterhaus"}, City: "Berlin", Postcode: "10115", Country: "de"}}
	got, err := org.SetIdentity(ctx, db.Pool, o.ID, id, by)
	if err != nil {
		t.Fatal(err)
	}
	a := got.Identity.Address
	if len(a.Lines) != 2 || a.Lines[0] != "Hauptstraße 1" || a.Lines[1] != "Hinterhaus" || a.City != "Berlin" || a.Postcode != "10115" || a.Country != "DE" {
		t.Fatalf("address %+v", a)
	}
	id.Address.City = "Hamburg"
	if _, err := org.SetIdentity(ctx, db.Pool, o.ID, id, by); err != nil {
		t.Fatal(err)
	}
	d := lastDetail(t, db, o.ID, "org.identity_set")
	before, _ := d["before"].(map[string]any)
	after, _ := d["after"].(map[string]any)
	if before["city"] != "Berlin" || after["city"] != "Hamburg" {
		t.Fatalf("audit detail %v", d)
	}
	for name, bad := range map[string]org.Address{
		"four lines": {Lines: []string{"a", "b", "c", "d"}},
		"country":    {Country: "Germany"},
		"long city":  {City: string(make([]byte, 101))},
		"postcode":   {Postcode: "123456789012345678901"},
	} {
		_, err := org.SetIdentity(ctx, db.Pool, o.ID, org.Identity{Address: bad}, by)
		wantCode(t, err, apperr.Invalid)
		t.Logf("%s: %v", name, err)
	}
}

// A remembered rate is listed with who set it and when, changed (audited
// before/after) and forgotten; a bad rate is refused.
func TestExchangeRatesListChangeForget(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	o := testkit.Org(t, db)
	by := audit.System("admin")
	if _, err := db.Pool.Exec(ctx, `INSERT INTO exchange_rates (org_id, currency, rate_date, rate, created_by) VALUES ($1, 'USD', '2026-01-02', 0.9, 'bookkeeper@x')`, o.ID); err != nil {
		t.Fatal(err)
	}
	rates, err := org.ExchangeRates(ctx, db.Pool, o.ID)
	if err != nil || len(rates) != 1 || rates[0].Rate != "0.9" || rates[0].SetBy != "bookkeeper@x" || rates[0].Date != "2026-01-02" {
		t.Fatalf("rates %+v %v", rates, err)
	}
	for _, bad := range []string{"0", "-1", "abc", "1.00000000001", "10000000000"} {
		wantCode(t, org.ChangeExchangeRate(ctx, db.Pool, o.ID, "USD", "2026-01-02", bad, by), apperr.Invalid)
	}
	wantCode(t, org.ChangeExchangeRate(ctx, db.Pool, o.ID, "GBP", "2026-01-02", "1.1", by), apperr.NotFound)
	if err := org.ChangeExchangeRate(ctx, db.Pool, o.ID, "USD", "2026-01-02", "0.92", by); err != nil {
		t.Fatal(err)
	}
	if d := lastDetail(t, db, o.ID, "exchange_rate_changed"); d["before"] != "0.9" || d["after"] != "0.92" {
		t.Fatalf("audit detail %v", d)
	}
	rates, _ = org.ExchangeRates(ctx, db.Pool, o.ID)
	if rates[0].Rate != "0.92" || rates[0].SetBy != by.Label {
		t.Fatalf("after change %+v", rates)
	}
	if err := org.ForgetExchangeRate(ctx, db.Pool, o.ID, "USD", "2026-01-02", by); err != nil {
		t.Fatal(err)
	}
	wantCode(t, org.ForgetExchangeRate(ctx, db.Pool, o.ID, "USD", "2026-01-02", by), apperr.NotFound)
	if d := lastDetail(t, db, o.ID, "exchange_rate_forgotten"); d["before"] != "0.92" {
		t.Fatalf("audit detail %v", d)
	}
}
