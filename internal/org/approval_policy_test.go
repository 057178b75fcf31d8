package org_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

func rules(pairs ...any) []org.ApprovalRule {
	var out []org.ApprovalRule
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, org.ApprovalRule{MinAmount: pairs[i].(string), Approvals: pairs[i+1].(int)})
	}
	return out
}

// An org without a policy has the default; a valid policy is stored (its
// amounts written with two decimals) and audited; an invalid one is
// refused naming each fault, and the policy stays.
func TestApprovalPolicyReadAndWrite(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	o := testkit.Org(t, db)
	by := audit.System("test")
	got, err := org.ApprovalPolicyOf(ctx, db.Pool, o.ID)
	if err != nil || !reflect.DeepEqual(got, org.DefaultApprovalPolicy()) {
		t.Fatalf("default: %+v %v", got, err)
	}
	want := org.ApprovalPolicy{SeparateSubmitter: true, Rules: rules("0.00", 1, "10000.00", 2)}
	set, err := org.SetApprovalPolicy(ctx, db.Pool, o.ID, org.ApprovalPolicy{SeparateSubmitter: true, Rules: rules("0", 1, "10000", 2)}, by)
	if err != nil || !reflect.DeepEqual(set, want) {
		t.Fatalf("set: %+v %v", set, err)
	}
	if got, err := org.ApprovalPolicyOf(ctx, db.Pool, o.ID); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back: %+v %v", got, err)
	}
	if d := lastDetail(t, db, o.ID, "org.approval_policy_set"); d["after"] == nil || d["before"] == nil {
		t.Fatalf("audit detail: %v", d)
	}
	for name, bad := range map[string][]org.ApprovalRule{
		"no rules":             nil,
		"zero approvals":       rules("0.00", 0),
		"six approvals":        rules("0.00", 1, "100.00", 6),
		"unordered amounts":    rules("0.00", 1, "500.00", 2, "100.00", 3),
		"a duplicate amount":   rules("0.00", 1, "100.00", 2, "100.00", 3),
		"a negative amount":    rules("0.00", 1, "-5.00", 2),
		"not an amount":        rules("0.00", 1, "ten", 2),
		"three decimals":       rules("0.00", 1, "10.005", 2),
		"not starting at 0.00": rules("100.00", 1),
		"eleven rules":         rules("0", 1, "1", 1, "2", 1, "3", 1, "4", 1, "5", 1, "6", 1, "7", 1, "8", 1, "9", 1, "10", 1),
	} {
		_, err := org.SetApprovalPolicy(ctx, db.Pool, o.ID, org.ApprovalPolicy{Rules: bad}, by)
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.Invalid || e.Details["reasons"] == nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got, _ := org.ApprovalPolicyOf(ctx, db.Pool, o.ID); !reflect.DeepEqual(got, want) {
		t.Fatalf("an invalid policy changed it: %+v", got)
	}
}

func TestApprovalPolicyRequired(t *testing.T) {
	t.Parallel()
	p := org.ApprovalPolicy{Rules: rules("0.00", 1, "1000.00", 2, "10000.00", 4)}
	amount := func(s string) *decimal.Decimal { d := decimal.RequireFromString(s); return &d }
	for _, tc := range []struct {
		amount *decimal.Decimal
		want   int
	}{
		{amount("0"), 1}, {amount("999.99"), 1}, {amount("1000.00"), 2}, {amount("9999.999"), 2},
		{amount("10000"), 4}, {amount("1e9"), 4},
		{amount("-1500"), 2}, // a credit note counts by its size
		{nil, 4},             // no rate known yet: the strictest rule
	} {
		if got := p.Required(tc.amount); got != tc.want {
			t.Errorf("Required(%v) = %d, want %d", tc.amount, got, tc.want)
		}
	}
	if got := org.DefaultApprovalPolicy().Required(nil); got != 1 {
		t.Errorf("the default policy asks %d approvals", got)
	}
}
