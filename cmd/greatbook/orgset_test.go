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
