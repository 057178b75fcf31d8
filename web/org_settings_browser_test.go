package web_test

import (
	"context"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
)

// An admin changes the default expense account on the settings page; the
// next approved document of a supplier without a rule is posted by the
// bookkeeper to the new account, not the old one.
func TestBrowserDefaultAccountSteersTheBookkeeper(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a) // SEK, default account 6000
	admin := a.signedInPage(t, testkit.User(t, a.db, o, auth.RoleAdmin))
	_, err := admin.Goto("/admin/org")
	must(t, err)
	must(t, expect.Locator(admin.GetByTestId("supplier-rules-link")).ToHaveAttribute("href", "/admin/supplier-rules"))
	must(t, expect.Locator(admin.GetByLabel("Default expense account", playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)})).ToHaveValue("6000"))
	_, err = admin.GetByLabel("Default expense account", playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)}).SelectOption(playwright.SelectOptionValues{Values: &[]string{"6200"}})
	must(t, err)
	must(t, admin.GetByTestId("default-account-save").Click())
	must(t, expect.Locator(admin.GetByTestId("flash")).ToContainText("go to 6200"))
	must(t, expect.Locator(admin.GetByLabel("Default expense account", playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)})).ToHaveValue("6200"))

	reviewer := a.signedInPage(t, testkit.User(t, a.db, o, auth.RoleReviewer))
	uploadAndOpen(t, reviewer.Page, "invoice.xml", sample(t, "ubl-invoice-multirate.xml"), "pending")
	must(t, reviewer.GetByTestId("approve").Click())
	must(t, expect.Locator(reviewer.GetByTestId("posted")).ToBeVisible())

	var codes []string
	rows, err := a.db.Pool.Query(context.Background(), `SELECT DISTINCT a.code FROM journal_lines l JOIN accounts a ON a.id = l.account_id
		WHERE l.org_id = $1 AND a.type = 'expense' ORDER BY 1`, o.ID)
	must(t, err)
	for rows.Next() {
		var c string
		must(t, rows.Scan(&c))
		codes = append(codes, c)
	}
	must(t, rows.Err())
	if len(codes) != 1 || codes[0] != "6200" {
		t.Fatalf("the bill's expense lines are on %v, want only 6200", codes)
	}
	if n := testkit.Count(t, a.db, `SELECT count(*) FROM account_choices WHERE org_id = $1 AND chosen_by = 'default' AND account_code = '6200'`, o.ID); n != 1 {
		t.Fatalf("%d account choices by the default 6200", n)
	}
}
