package org

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
)

// ApprovalPolicy is how an org approves documents: how many distinct people
// approve a document, by its amount payable in the base currency, and
// whether whoever submitted it may be one of them (four eyes).
type ApprovalPolicy struct {
	// SeparateSubmitter: whoever uploaded, typed in or composed a document
	// may not approve it.
	SeparateSubmitter bool `json:"separate_submitter"`
	// Rules, ordered by MinAmount, the first at 0.00.
	Rules []ApprovalRule `json:"rules"`
}

// ApprovalRule says how many approvals a document of at least MinAmount
// (in the base currency, two decimals, as text) needs.
type ApprovalRule struct {
	MinAmount string `json:"min_amount"`
	Approvals int    `json:"approvals"`
}

// Limits of an approval policy.
const (
	MaxApprovals     = 5
	MaxApprovalRules = 10
)

// DefaultApprovalPolicy is the policy of an org that never set one: one
// approval, which the submitter may give (approve as it always was).
func DefaultApprovalPolicy() ApprovalPolicy {
	return ApprovalPolicy{Rules: []ApprovalRule{{MinAmount: "0.00", Approvals: 1}}}
}

// Required is how many approvals a document whose amount payable in the
// base currency is amount needs: the rule with the highest MinAmount not
// above it. A credit note counts by its size (a negative amount's absolute
// value). nil (no rate known yet to convert the amount) is the strictest
// rule: the most approvals any rule asks.
func (p ApprovalPolicy) Required(amount *decimal.Decimal) int {
	if len(p.Rules) == 0 {
		return 1
	}
	if amount == nil {
		most := 0
		for _, r := range p.Rules {
			most = max(most, r.Approvals)
		}
		return most
	}
	size := amount.Abs()
	required := p.Rules[0].Approvals
	for _, r := range p.Rules {
		if min, err := decimal.NewFromString(r.MinAmount); err == nil && !min.GreaterThan(size) {
			required = r.Approvals
		}
	}
	return required
}

// CheckApprovalPolicy validates a policy and returns it with its amounts
// written as two-decimal text: at least one and at most MaxApprovalRules
// rules, the first at 0.00, their amounts rising strictly, each asking for
// 1 to MaxApprovals approvals. Refused with invalid, each fault named in
// "reasons".
func CheckApprovalPolicy(p ApprovalPolicy) (ApprovalPolicy, error) {
	var reasons []map[string]string
	fault := func(field, msg string) { reasons = append(reasons, map[string]string{"field": field, "message": msg}) }
	out := ApprovalPolicy{SeparateSubmitter: p.SeparateSubmitter, Rules: make([]ApprovalRule, 0, len(p.Rules))}
	switch {
	case len(p.Rules) == 0:
		fault("rules", "needs at least one rule, the first at min_amount 0.00")
	case len(p.Rules) > MaxApprovalRules:
		fault("rules", fmt.Sprintf("has at most %d rules", MaxApprovalRules))
	}
	var previous *decimal.Decimal
	for i, r := range p.Rules {
		field := fmt.Sprintf("rules[%d]", i)
		if r.Approvals < 1 || r.Approvals > MaxApprovals {
			fault(field+".approvals", fmt.Sprintf("must be between 1 and %d", MaxApprovals))
		}
		amount, err := decimal.NewFromString(r.MinAmount)
		switch {
		case err != nil || len(r.MinAmount) > 24:
			fault(field+".min_amount", "must be an amount such as 10000.00")
			continue
		case amount.IsNegative():
			fault(field+".min_amount", "must not be negative")
		case !amount.Equal(amount.Round(2)):
			fault(field+".min_amount", "has at most two decimals")
		case i == 0 && !amount.IsZero():
			fault(field+".min_amount", "the first rule starts at 0.00, so that every amount has a rule")
		case previous != nil && !amount.GreaterThan(*previous):
			fault(field+".min_amount", "must be above the rule before it (rules are ordered by min_amount, each amount once)")
		}
		previous = &amount
		out.Rules = append(out.Rules, ApprovalRule{MinAmount: amount.StringFixed(2), Approvals: r.Approvals})
	}
	if len(reasons) > 0 {
		return ApprovalPolicy{}, apperr.New(apperr.Invalid, "the approval policy is not valid: %s %s", reasons[0]["field"], reasons[0]["message"]).
			With("reasons", reasons)
	}
	return out, nil
}

// ScanApprovalPolicy reads a policy stored as its two columns; a missing
// row (both NULL) is the default policy.
func ScanApprovalPolicy(separate *bool, rules []byte) (ApprovalPolicy, error) {
	if separate == nil || rules == nil {
		return DefaultApprovalPolicy(), nil
	}
	p := ApprovalPolicy{SeparateSubmitter: *separate}
	if err := json.Unmarshal(rules, &p.Rules); err != nil {
		return ApprovalPolicy{}, fmt.Errorf("org: approval rules: %w", err)
	}
	return p, nil
}

// ApprovalPolicyOf returns the org's approval policy (the default when it
// never set one).
func ApprovalPolicyOf(ctx context.Context, q database.Executor, orgID int64) (ApprovalPolicy, error) {
	var separate *bool
	var rules []byte
	err := q.QueryRow(ctx, approvalPolicySQL, orgID).Scan(&separate, &rules)
	if errors.Is(err, pgx.ErrNoRows) {
		return DefaultApprovalPolicy(), nil
	}
	if err != nil {
		return ApprovalPolicy{}, fmt.Errorf("org: approval policy of %d: %w", orgID, err)
	}
	return ScanApprovalPolicy(separate, rules)
}

// SetApprovalPolicy validates and stores the org's approval policy, audited
// as org.approval_policy_set with the policy before and after. Documents
// approved in part keep the approvals they have; each approval from now on
// counts against this policy.
func SetApprovalPolicy(ctx context.Context, db database.Executor, orgID int64, p ApprovalPolicy, by audit.Actor) (ApprovalPolicy, error) {
	p, err := CheckApprovalPolicy(p)
	if err != nil {
		return ApprovalPolicy{}, err
	}
	rules, err := json.Marshal(p.Rules)
	if err != nil {
		return ApprovalPolicy{}, fmt.Errorf("org: approval rules: %w", err)
	}
	return database.WithTxV(ctx, db, func(tx pgx.Tx) (ApprovalPolicy, error) {
		before, err := ApprovalPolicyOf(ctx, tx, orgID)
		if err != nil {
			return ApprovalPolicy{}, err
		}
		if _, err := tx.Exec(ctx, setApprovalPolicySQL, orgID, p.SeparateSubmitter, rules, by.Label); err != nil {
			return ApprovalPolicy{}, fmt.Errorf("org: set approval policy of %d: %w", orgID, err)
		}
		return p, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: by, Action: "org.approval_policy_set",
			SubjectType: "org", SubjectID: orgID, Detail: map[string]any{"before": before, "after": p}})
	})
}
