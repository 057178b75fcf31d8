package web_test

import (
	"context"
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
