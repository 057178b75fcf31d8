package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// An admin changes the default expense account on the settings page; the
// next approved document of a supplier without a rule is posted by the
// bookkeeper to the new account, not the old one.
func TestBrowserDefaultAccountSteersTheBookkeeper(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a) // SEK, default account 6000
	admin := signedInPage(t, a, testkit.User(t, a.DB, o, auth.RoleAdmin))
	_, err := admin.Goto("/admin/org")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(admin.GetByTestId("supplier-rules-link")).ToHaveAttribute("href", "/admin/supplier-rules"))
	webtest.Must(t, expect.Locator(admin.GetByLabel("Default expense account", playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)})).ToHaveValue("6000"))
	_, err = admin.GetByLabel("Default expense account", playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)}).SelectOption(playwright.SelectOptionValues{Values: &[]string{"6200"}})
	webtest.Must(t, err)
	webtest.Must(t, admin.GetByTestId("default-account-save").Click())
	webtest.Must(t, expect.Locator(admin.GetByTestId("flash")).ToContainText("go to 6200"))
	webtest.Must(t, expect.Locator(admin.GetByLabel("Default expense account", playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)})).ToHaveValue("6200"))

	reviewer := signedInPage(t, a, testkit.User(t, a.DB, o, auth.RoleReviewer))
	uploadAndOpen(t, reviewer.Page, "invoice.xml", webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	webtest.Must(t, reviewer.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(reviewer.GetByTestId("posted")).ToBeVisible())

	var codes []string
	rows, err := a.DB.Pool.Query(context.Background(), `SELECT DISTINCT a.code FROM journal_lines l JOIN accounts a ON a.id = l.account_id
		WHERE l.org_id = $1 AND a.type = 'expense' ORDER BY 1`, o.ID)
	webtest.Must(t, err)
	for rows.Next() {
		var c string
		webtest.Must(t, rows.Scan(&c))
		codes = append(codes, c)
	}
	webtest.Must(t, rows.Err())
	if len(codes) != 1 || codes[0] != "6200" {
		t.Fatalf("the bill's expense lines are on %v, want only 6200", codes)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM account_choices WHERE org_id = $1 AND chosen_by = 'default' AND account_code = '6200'`, o.ID); n != 1 {
		t.Fatalf("%d account choices by the default 6200", n)
	}
}

// An admin sets a two-step rule and the separation of submitters on the
// settings page (a fault shown beside its field first); the API answers
// the policy as set. A reviewer does not see the page (403), and may not
// set the policy from a page or through the API (403).
func TestBrowserAdminSetsTheApprovalPolicy(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	admin := signedInPage(t, a, testkit.User(t, a.DB, o, auth.RoleAdmin))
	_, err := admin.Goto("/admin/org")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(admin.GetByTestId("policy-rule")).ToHaveCount(1))
	webtest.Must(t, admin.GetByLabel("Separate the submitter").Check())
	webtest.Must(t, admin.GetByTestId("policy-add-rule").Click())
	webtest.Must(t, expect.Locator(admin.GetByTestId("policy-rule")).ToHaveCount(2))
	webtest.Must(t, expect.Locator(admin.GetByLabel("Separate the submitter")).ToBeChecked())
	webtest.Must(t, admin.GetByLabel("Rule 2: from the amount").Fill("0"))
	webtest.Must(t, admin.GetByLabel("Rule 2: approvals").Fill("2"))
	webtest.Must(t, admin.GetByTestId("approval-policy-save").Click())
	webtest.Must(t, expect.Locator(admin.GetByTestId("policy-min-amount-error")).ToContainText("must be above the rule before it"))
	webtest.Must(t, expect.Locator(admin.GetByLabel("Rule 2: from the amount")).ToHaveAttribute("aria-invalid", "true"))
	assertAccessible(t, admin.Page)
	webtest.Must(t, admin.GetByLabel("Rule 2: from the amount").Fill("1000"))
	webtest.Must(t, admin.GetByLabel("Rule 2: from the amount").Press("Enter")) // Enter saves, as the first button does
	webtest.Must(t, expect.Locator(admin.GetByTestId("flash")).ToContainText("Approval policy saved"))
	webtest.Must(t, expect.Locator(admin.GetByLabel("Rule 2: from the amount")).ToHaveValue("1000.00"))
	webtest.Must(t, expect.Locator(admin.GetByLabel("Separate the submitter")).ToBeChecked())
	assertAccessible(t, admin.Page)

	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	api := a.APIFor(t, reviewer)
	status, body := api.Get("/api/v1/approval-policy")
	rules, _ := body["rules"].([]any)
	if status != 200 || body["separate_submitter"] != true || len(rules) != 2 ||
		fmt.Sprint(rules[0]) != "map[approvals:1 min_amount:0.00]" || fmt.Sprint(rules[1]) != "map[approvals:2 min_amount:1000.00]" {
		t.Fatalf("GET /api/v1/approval-policy: %d %v", status, body)
	}
	if status, _ := api.Do("PUT", "/api/v1/approval-policy", "application/json",
		[]byte(`{"separate_submitter": false, "rules": [{"min_amount": "0.00", "approvals": 1}]}`)); status != 403 {
		t.Fatalf("a reviewer's PUT /api/v1/approval-policy: %d, want 403", status)
	}
	rp := signedInPage(t, a, reviewer)
	resp, err := rp.Goto("/admin/org")
	webtest.Must(t, err)
	if resp.Status() != 403 {
		t.Fatalf("a reviewer on /admin/org: %d, want 403", resp.Status())
	}
	// The reviewer's own session and CSRF token, posting the form by hand.
	_, err = rp.Goto("/desk")
	webtest.Must(t, err)
	posted, err := rp.Evaluate(`async () => {
		const body = new URLSearchParams({_csrf: document.querySelector("input[name=_csrf]").value, min_amount: "0.00", approvals: "1"});
		const resp = await fetch("/admin/org/approval-policy", {method: "POST", body});
		return resp.status + " " + (await resp.text());
	}`)
	webtest.Must(t, err)
	if answer, _ := posted.(string); !strings.HasPrefix(answer, "403 ") || !strings.Contains(answer, "needs the admin role") {
		t.Fatalf("a reviewer posts the policy: %.300v, want 403 for the role", posted)
	}
	if _, body := api.Get("/api/v1/approval-policy"); body["separate_submitter"] != true {
		t.Fatalf("the policy after the reviewer's attempts: %v", body)
	}
}
