package ui

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/org"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// approvalPolicyForm is a stored policy as its form shows it.
func approvalPolicyForm(p org.ApprovalPolicy) views.ApprovalPolicyForm {
	f := views.ApprovalPolicyForm{SeparateSubmitter: p.SeparateSubmitter}
	for _, r := range p.Rules {
		f.Rules = append(f.Rules, views.ApprovalRuleRow{MinAmount: r.MinAmount, Approvals: strconv.Itoa(r.Approvals)})
	}
	return f
}

// typedApprovalPolicy reads the policy form: the rows as typed, less those
// ticked for removal and those left empty.
func typedApprovalPolicy(c echo.Context) (views.ApprovalPolicyForm, error) {
	form, err := c.FormParams()
	if err != nil {
		return views.ApprovalPolicyForm{}, err
	}
	f := views.ApprovalPolicyForm{SeparateSubmitter: c.FormValue("separate_submitter") == "true"}
	amounts, approvals, removed := form["min_amount"], form["approvals"], form["remove"]
	for i := range max(len(amounts), len(approvals)) {
		var r views.ApprovalRuleRow
		if i < len(amounts) {
			r.MinAmount = strings.TrimSpace(amounts[i])
		}
		if i < len(approvals) {
			r.Approvals = strings.TrimSpace(approvals[i])
		}
		if slices.Contains(removed, strconv.Itoa(i)) || (r.MinAmount == "" && r.Approvals == "") {
			continue
		}
		f.Rules = append(f.Rules, r)
	}
	return f, nil
}

// policyOf is the policy a form states; an approvals count that is not a
// number is 0, which the policy's check refuses and names.
func policyOf(f views.ApprovalPolicyForm) org.ApprovalPolicy {
	p := org.ApprovalPolicy{SeparateSubmitter: f.SeparateSubmitter, Rules: make([]org.ApprovalRule, 0, len(f.Rules))}
	for _, r := range f.Rules {
		n, err := strconv.Atoi(r.Approvals)
		if err != nil {
			n = 0
		}
		p.Rules = append(p.Rules, org.ApprovalRule{MinAmount: r.MinAmount, Approvals: n})
	}
	return p
}

// withFaults places the faults an invalid policy names ("reasons") beside
// the fields they are about, with a summary above the form (the domain's
// message when it names no field).
func withFaults(f views.ApprovalPolicyForm, e *apperr.Error) views.ApprovalPolicyForm {
	f.Error = e.Message
	reasons, _ := e.Details["reasons"].([]map[string]string)
	if len(reasons) > 0 {
		f.Error = "The policy was not saved: what is wrong is said beside each field."
	}
	for _, r := range reasons {
		var i int
		var name string
		if _, err := fmt.Sscanf(r["field"], "rules[%d].%s", &i, &name); err != nil || i < 0 || i >= len(f.Rules) {
			f.RulesError = strings.TrimSpace(f.RulesError + " " + r["message"])
			continue
		}
		switch name {
		case "min_amount":
			f.Rules[i].MinAmountError = r["message"]
		default:
			f.Rules[i].ApprovalsError = r["message"]
		}
	}
	return f
}

// SaveApprovalPolicy sets the org's approval policy from its form
// (audited); "Add a rule" shows the form again, as typed, with one more
// empty row. A policy that is not valid shows the form again with each
// fault beside its field.
func (h *Handlers) SaveApprovalPolicy(c echo.Context) error {
	f, err := typedApprovalPolicy(c)
	if err != nil {
		return err
	}
	if c.FormValue("add_rule") == "true" {
		if f.CanAddRule() {
			f.Rules = append(f.Rules, views.ApprovalRuleRow{})
		}
		return h.renderOrgSettings(c, http.StatusOK, func(p *views.OrgSettingsProps) { p.Policy = f })
	}
	u := httpkit.CurrentUser(c)
	if _, err := org.SetApprovalPolicy(c.Request().Context(), h.Pool, u.OrgID, policyOf(f), u.Actor()); err != nil {
		e := httpkit.Classify(err)
		if e.Code != apperr.Invalid {
			return err
		}
		return h.renderOrgSettings(c, httpkit.Status(e.Code), func(p *views.OrgSettingsProps) { p.Policy = withFaults(f, e) })
	}
	httpkit.Flash(c, "Approval policy saved: every approval from now on counts against it.")
	return c.Redirect(http.StatusSeeOther, "/admin/org#approval-policy")
}
