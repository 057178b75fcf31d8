package main

import (
	"context"
	"strings"
	"testing"

	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

// greatbook org policy prints the org's approval policy (the default when
// never set); its flags set it, audited: --separate-submitter alone keeps
// the rules, the --rule flags replace them all.
func TestOrgPolicySetsAndPrintsTheApprovalPolicy(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme", "--currency", "SEK")
	if out := runCLI(t, db.URL, "", "org", "policy", "acme"); out != "org acme: separate submitter false\norg acme: from 0.00 SEK, 1 approval\n" {
		t.Fatalf("the default policy printed %q", out)
	}
	out := runCLI(t, db.URL, "", "org", "policy", "acme", "--separate-submitter", "--rule", "0=1", "--rule", "1000=2", "--rule", "50000.5=3")
	want := "org acme: separate submitter true\norg acme: from 0.00 SEK, 1 approval\norg acme: from 1000.00 SEK, 2 approvals\norg acme: from 50000.50 SEK, 3 approvals\n"
	if out != want {
		t.Fatalf("org policy printed %q, want %q", out, want)
	}
	if again := runCLI(t, db.URL, "", "org", "policy", "acme"); again != want {
		t.Fatalf("without flags it printed %q, want %q", again, want)
	}
	out = runCLI(t, db.URL, "", "org", "policy", "acme", "--separate-submitter=false")
	if !strings.HasPrefix(out, "org acme: separate submitter false\n") || !strings.Contains(out, "from 50000.50 SEK, 3 approvals") {
		t.Fatalf("--separate-submitter=false printed %q: the rules should stay", out)
	}
	o, err := org.BySlug(ctx, db.Pool, "acme")
	if err != nil {
		t.Fatal(err)
	}
	p, err := org.ApprovalPolicyOf(ctx, db.Pool, o.ID)
	if err != nil || p.SeparateSubmitter || len(p.Rules) != 3 || p.Rules[2] != (org.ApprovalRule{MinAmount: "50000.50", Approvals: 3}) {
		t.Fatalf("stored %+v, %v", p, err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'org.approval_policy_set' AND actor = 'system:cli'`); n != 2 {
		t.Fatalf("%d audit events, want 2 (printing sets nothing)", n)
	}
}

// Invalid input is refused in one line, and changes nothing.
func TestOrgPolicyRefusesInvalidInput(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	runCLI(t, db.URL, "", "org", "add", "acme", "--name", "Acme")
	getenv := func(k string) string {
		if k == "DATABASE_URL" {
			return db.URL
		}
		return ""
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no slug", nil, "usage: greatbook org policy"},
		{"an unknown org", []string{"nope", "--separate-submitter"}, "nope"},
		{"a rule without its count", []string{"acme", "--rule", "1000"}, "want MIN=N"},
		{"a count that is not a number", []string{"acme", "--rule", "0=two"}, "want MIN=N"},
		{"a first rule above zero", []string{"acme", "--rule", "100=1"}, "the first rule starts at 0.00"},
		{"too many approvals", []string{"acme", "--rule", "0=6"}, "between 1 and 5"},
		{"amounts not rising", []string{"acme", "--rule", "0=1", "--rule", "500=2", "--rule", "500=3"}, "must be above the rule before it"},
		{"three decimals", []string{"acme", "--rule", "0=1", "--rule", "10.005=2"}, "at most two decimals"},
		{"not a boolean", []string{"acme", "--separate-submitter=maybe"}, "separate-submitter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			err := run(context.Background(), append([]string{"org", "policy"}, tc.args...), getenv, strings.NewReader(""), &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line saying %q", err, tc.want)
			}
			if stdout.Len() != 0 {
				t.Fatalf("a refusal printed %q", stdout.String())
			}
		})
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'org.approval_policy_set'`); n != 0 {
		t.Fatalf("%d policies set by refused commands", n)
	}
}
