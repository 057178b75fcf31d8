package bookkeeper_test

import (
	"context"
	"strings"
	"testing"

	"greatbook/internal/apperr"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/testkit"
)

// An answer without an account is refused as invalid (a 422), never taken
// for the first account of the list.
func TestAMissingAccountIsRefusedAsInvalid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, "SEK")
	f.approve(t)
	q := f.waitQuestion(t, bookkeeper.AskExpenseAccount)
	for _, account := range []string{"", "  "} {
		err := f.app.Bookkeeper.Answer(ctx, f.org.ID, q.RunID, map[string]string{"account": account}, true, f.actor)
		if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), "choose an expense account") {
			t.Fatalf("answer %q: %v, want invalid: choose an expense account", account, err)
		}
	}
}

// The entry says which rule chose its account: the answer that set the
// supplier's rule, then that rule for the next bill; an admin changes the
// rule (audited), the next bill follows it, and after forgetting it the
// bookkeeper asks again, suggesting the account used before.
func TestTheEntrySaysWhichRuleChoseTheAccountAndAnAdminChangesOrForgetsIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, "SEK")
	first := f.approve(t)
	q := f.waitQuestion(t, bookkeeper.AskExpenseAccount)
	if q, _, err := f.app.Bookkeeper.OpenQuestion(ctx, f.org.ID, first); err != nil || q.Suggested != nil {
		t.Fatalf("a first bill of a supplier has nothing to suggest: %+v %v", q, err)
	}
	if err := f.app.Bookkeeper.Answer(ctx, f.org.ID, q.RunID, map[string]string{"account": "6200"}, true, f.actor); err != nil {
		t.Fatal(err)
	}
	e := f.waitPosted(t, first)
	answered, err := bookkeeper.ChoiceForEntry(ctx, f.db.Pool, f.org.ID, e.ID)
	if err != nil || answered == nil || answered.ChosenBy != bookkeeper.ChosenByAnswer || answered.SetBy != f.actor.Label || !answered.Remembered {
		t.Fatalf("choice of the answered bill: %+v %v", answered, err)
	}

	second := f.approve(t)
	e = f.waitPosted(t, second)
	rule, err := bookkeeper.ChoiceForDocument(ctx, f.db.Pool, f.org.ID, second)
	if err != nil || rule == nil || rule.EntryID != e.ID || rule.ChosenBy != bookkeeper.ChosenByRule || rule.Account != "6200" || rule.SetBy != f.actor.Label || rule.SetAt == nil {
		t.Fatalf("choice of the bill the rule booked: %+v %v", rule, err)
	}
	if got := rule.Describe(); !strings.Contains(got, "remembered for VAT id ") || !strings.Contains(got, "set by "+f.actor.Label+" on ") {
		t.Fatalf("description: %q", got)
	}

	rules, err := bookkeeper.SupplierRules(ctx, f.db.Pool, f.org.ID)
	if err != nil || len(rules) != 1 || rules[0].Account.Code != "6200" || rules[0].SupplierKey != rule.SupplierKey {
		t.Fatalf("rules: %+v %v", rules, err)
	}
	admin := f.actor
	admin.Label = "boss@example.test"
	if err := bookkeeper.ChangeSupplierRule(ctx, f.db.Pool, f.org.ID, rule.SupplierKey, "", admin); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a change without an account: %v", err)
	}
	if err := bookkeeper.ChangeSupplierRule(ctx, f.db.Pool, f.org.ID, rule.SupplierKey, "6300", admin); err != nil {
		t.Fatal(err)
	}
	third := f.approve(t)
	if e := f.waitPosted(t, third); e.Lines[0].Account != "6300" {
		t.Fatalf("the changed rule was not used: %+v", e.Lines[0])
	}
	if c, _ := bookkeeper.ChoiceForDocument(ctx, f.db.Pool, f.org.ID, third); c == nil || c.SetBy != admin.Label {
		t.Fatalf("choice after the change: %+v", c)
	}

	if err := bookkeeper.ForgetSupplierRule(ctx, f.db.Pool, f.org.ID, rule.SupplierKey, admin); err != nil {
		t.Fatal(err)
	}
	if err := bookkeeper.ForgetSupplierRule(ctx, f.db.Pool, f.org.ID, rule.SupplierKey, admin); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("forgetting twice: %v", err)
	}
	fourth := f.approve(t)
	f.waitQuestion(t, bookkeeper.AskExpenseAccount)
	asked, _, err := f.app.Bookkeeper.OpenQuestion(ctx, f.org.ID, fourth)
	if err != nil || asked == nil || asked.Suggested == nil || asked.Suggested.Account.Code != "6300" {
		t.Fatalf("the account used before is suggested: %+v %v", asked, err)
	}
	desk, err := f.app.Bookkeeper.DeskQuestions(ctx, f.org.ID)
	if err != nil || len(desk) != 1 || desk[0].Suggested == nil || len(desk[0].Choices) == 0 {
		t.Fatalf("desk questions: %+v %v", desk, err)
	}

	if n := testkit.Count(t, f.db, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND subject_type = 'supplier_rule'
		AND action IN ('supplier_rule_changed', 'supplier_rule_forgotten') AND actor = $2`, f.org.ID, admin.Label); n != 2 {
		t.Fatalf("audited rule changes: %d, want 2", n)
	}
}
