package web_test

import (
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// An admin, with the keyboard, adds an account and deactivates it, creates
// a dimension and adds a value, and imports a chart of accounts: a file
// with faults is refused naming each line and changes nothing, the fixed
// file is imported. A reviewer does not see the pages (403).
func TestBrowserChartAccountsDimensionsImport(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	p := signedInPage(t, a, testkit.User(t, a.DB, o, auth.RoleAdmin))
	kb := p.Keyboard()

	_, err := p.Goto("/admin/accounts")
	webtest.Must(t, err)
	webtest.Must(t, p.GetByLabel("Code", playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)}).Focus())
	webtest.Must(t, kb.Type("6600"))
	webtest.Must(t, kb.Press("Tab"))
	webtest.Must(t, kb.Type("Hardware"))
	webtest.Must(t, kb.Press("Enter"))
	webtest.Must(t, expect.Locator(p.GetByTestId("flash")).ToContainText("Account 6600 Hardware added"))
	row := p.Locator(`[data-testid=account][data-code="6600"]`)
	webtest.Must(t, expect.Locator(row.GetByTestId("account-state")).ToHaveText("active"))
	webtest.Must(t, row.GetByTestId("account-deactivate").Focus())
	webtest.Must(t, kb.Press("Enter"))
	webtest.Must(t, expect.Locator(p.GetByTestId("flash")).ToContainText("deactivated"))
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=account][data-code="6600"]`).GetByTestId("account-state")).ToHaveText("inactive"))

	bad := []byte("code;name;type\n6700;Legal;cost\n;Nameless;expense\n")
	webtest.Must(t, p.GetByTestId("accounts-file").SetInputFiles([]playwright.InputFile{{Name: "chart.csv", MimeType: "text/csv", Buffer: bad}}))
	webtest.Must(t, p.GetByTestId("accounts-import").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("chart-fault")).ToHaveText([]string{
		`line 2: type "cost" is not asset, liability, equity, income or expense`, "line 3: a code is required"}))
	good := []byte("\uFEFFcode;name;type\n6700;Legal;expense\n6800;Training;expense\n")
	webtest.Must(t, p.GetByTestId("accounts-file").SetInputFiles([]playwright.InputFile{{Name: "chart.csv", MimeType: "text/csv", Buffer: good}}))
	webtest.Must(t, p.GetByTestId("accounts-import").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("flash")).ToContainText("chart.csv imported: 2 rows, 2 added"))
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=account][data-code="6800"]`)).ToBeVisible())

	_, err = p.Goto("/admin/dimensions")
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("dimension-name").Focus())
	webtest.Must(t, kb.Type("kind"))
	webtest.Must(t, kb.Press("Enter"))
	webtest.Must(t, expect.Locator(p.GetByTestId("chart-error")).ToContainText("reserved"))
	webtest.Must(t, p.GetByTestId("dimension-name").Fill("cost_center"))
	webtest.Must(t, kb.Press("Enter"))
	webtest.Must(t, expect.Locator(p.GetByTestId("flash")).ToContainText("cost_center"))
	dim := p.Locator(`[data-testid=dimension][data-name="cost_center"]`)
	webtest.Must(t, dim.GetByTestId("value-new-code").Focus())
	webtest.Must(t, kb.Type("OPS"))
	webtest.Must(t, kb.Press("Tab"))
	webtest.Must(t, kb.Type("Operations"))
	webtest.Must(t, kb.Press("Enter"))
	webtest.Must(t, expect.Locator(p.GetByTestId("flash")).ToContainText("Value OPS of cost_center saved"))
	value := p.Locator(`[data-testid=dimension][data-name="cost_center"] [data-testid=dimension-value][data-code="OPS"]`)
	webtest.Must(t, expect.Locator(value.GetByTestId("value-name")).ToHaveValue("Operations"))
	webtest.Must(t, expect.Locator(value.GetByTestId("value-state")).ToHaveText("active"))

	reviewer := signedInPage(t, a, testkit.User(t, a.DB, o, auth.RoleReviewer))
	resp, err := reviewer.Goto("/admin/accounts")
	webtest.Must(t, err)
	if resp.Status() != 403 {
		t.Fatalf("a reviewer on the accounts page: %d", resp.Status())
	}
}
