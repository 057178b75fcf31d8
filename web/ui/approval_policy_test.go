package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// The approval policy's form on the org settings page: "Add a rule" shows
// one more empty row without saving; an invalid policy is shown again as
// typed with each fault beside its field and nothing stored; a valid one
// is saved (audited), empty and removed rows left out; a reviewer may not
// post it.
func TestApprovalPolicyForm(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	ctx := context.Background()
	o := testkit.Org(t, a.DB)
	admin, reviewer := testkit.User(t, a.DB, o, auth.RoleAdmin), testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.Client(t)
	csrf := a.SignIn(t, c, admin)
	post := func(values url.Values) *http.Response {
		t.Helper()
		values.Set("_csrf", csrf)
		resp, err := c.PostForm(a.URL+"/admin/org/approval-policy", values)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	page := webtest.Doc(t, webtest.Get(t, c, a.URL+"/admin/org"))
	if n := page.Find(`[data-testid=policy-rule]`).Length(); n != 1 || page.Find(`[data-testid=policy-approvals]`).AttrOr("value", "") != "1" ||
		page.Find(`[data-testid=policy-separate-submitter][checked]`).Length() != 0 {
		t.Fatalf("the default policy shows %d rules: %q", n, page.Find(`[data-testid=approval-policy]`).Text())
	}

	resp := post(url.Values{"min_amount": {"0.00"}, "approvals": {"1"}, "add_rule": {"true"}})
	added := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusOK || added.Find(`[data-testid=policy-rule]`).Length() != 2 {
		t.Fatalf("add a rule: %d, %d rows", resp.StatusCode, added.Find(`[data-testid=policy-rule]`).Length())
	}
	if p, _ := org.ApprovalPolicyOf(ctx, a.DB.Pool, o.ID); len(p.Rules) != 1 {
		t.Fatalf("adding a row saved %v", p)
	}

	resp = post(url.Values{"separate_submitter": {"true"}, "min_amount": {"0.00", "-5", "100"}, "approvals": {"1", "9", "two"}})
	bad := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || bad.Find(`[data-testid=approval-policy-error]`).Length() != 1 {
		t.Fatalf("an invalid policy: %d %q", resp.StatusCode, bad.Find(`[data-testid=approval-policy]`).Text())
	}
	rows := bad.Find(`[data-testid=policy-rule]`)
	if rows.Length() != 3 || rows.Eq(1).Find(`[data-testid=policy-min-amount]`).AttrOr("value", "") != "-5" ||
		rows.Eq(1).Find(`[data-testid=policy-min-amount-error]`).Text() != "must not be negative" ||
		rows.Eq(1).Find(`[data-testid=policy-approvals-error]`).Text() != "must be between 1 and 5" ||
		rows.Eq(2).Find(`[data-testid=policy-approvals-error]`).Text() != "must be between 1 and 5" ||
		rows.Eq(2).Find(`[data-testid=policy-min-amount-error]`).Length() != 0 ||
		rows.Eq(1).Find(`[data-testid=policy-min-amount]`).AttrOr("aria-describedby", "") != "policy-rule-1-min-error" ||
		bad.Find(`[data-testid=policy-separate-submitter][checked]`).Length() != 1 {
		t.Fatalf("the faults are not beside their fields: %q", bad.Find(`[data-testid=policy-rules]`).Text())
	}
	if p, _ := org.ApprovalPolicyOf(ctx, a.DB.Pool, o.ID); p.SeparateSubmitter || len(p.Rules) != 1 {
		t.Fatalf("an invalid policy stored %v", p)
	}

	// Row 1 ticked for removal, row 3 left empty: saved without them.
	resp = post(url.Values{"separate_submitter": {"true"}, "min_amount": {"0", "50", "1000", ""}, "approvals": {"1", "3", "2", ""}, "remove": {"1"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a valid policy: %d, want 303", resp.StatusCode)
	}
	p, err := org.ApprovalPolicyOf(ctx, a.DB.Pool, o.ID)
	if err != nil || !p.SeparateSubmitter || len(p.Rules) != 2 || p.Rules[1] != (org.ApprovalRule{MinAmount: "1000.00", Approvals: 2}) {
		t.Fatalf("stored %+v, %v", p, err)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'org.approval_policy_set' AND actor = $2`, o.ID, admin.Email); n != 1 {
		t.Fatalf("%d audit events of the policy by the admin, want 1", n)
	}
	page = webtest.Doc(t, webtest.Get(t, c, a.URL+"/admin/org"))
	if page.Find(`[data-testid=policy-min-amount]`).Eq(1).AttrOr("value", "") != "1000.00" || page.Find(`[data-testid=policy-separate-submitter][checked]`).Length() != 1 {
		t.Fatalf("the page does not show the saved policy: %q", page.Find(`[data-testid=policy-rules]`).Text())
	}

	rc := a.Client(t)
	rcsrf := a.SignIn(t, rc, reviewer)
	resp, err = rc.PostForm(a.URL+"/admin/org/approval-policy", url.Values{"_csrf": {rcsrf}, "min_amount": {"0.00"}, "approvals": {"1"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a reviewer posts the policy: %d, want 403", resp.StatusCode)
	}
}
