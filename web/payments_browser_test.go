package web_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// Two admins pay two invoices a proposal blocked: one whose supplier was
// last paid to another account, one stating an invalid IBAN. Ann, who
// approved both, proposes a run and is refused when she confirms an account
// (four eyes); Bob confirms the changed IBAN and the corrected one; the next
// proposal takes both, and its approved file holds both transfers.
func TestBrowserPayRunWithFourEyesConfirmation(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	webtest.SetBankAccount(t, a, o, "NL91ABNA0417164300", "ABNANL2A")
	ann, bob := testkit.User(t, a.DB, o, auth.RoleAdmin), testkit.User(t, a.DB, o, auth.RoleAdmin)
	paid := webtest.PostedBill(t, a, o, ann, webtest.Bill{Supplier: "Acme GmbH", Number: "A-1", Payable: "10", IBAN: "DE89370400440532013000"})
	webtest.PaidBefore(t, a, o, paid, "DE89370400440532013000")
	changed := webtest.PostedBill(t, a, o, ann, webtest.Bill{Supplier: "Acme GmbH", Number: "A-2", Payable: "336.90", Due: webtest.Day(2),
		IBAN: "GB29NWBK60161331926819"})
	invalid := webtest.PostedBill(t, a, o, ann, webtest.Bill{Supplier: "Gamma SARL", Number: "G-1", Payable: "42.10", Due: webtest.Day(1),
		IBAN: "DE89370400440532013001"})
	blocked := func(p *pageT, id int64) playwright.Locator {
		return p.Locator(`[data-testid=blocked-document][data-intake-id="` + webtest.Itoa(id) + `"]`)
	}

	// Ann proposes from the nav's pay runs page.
	pa := signedInPage(t, a, ann)
	webtest.Must(t, pa.GetByRole("link", playwright.PageGetByRoleOptions{Name: "Pay runs", Exact: playwright.Bool(true)}).Click())
	webtest.Must(t, expect.Page(pa).ToHaveURL(regexp.MustCompile(`/payment-runs$`)))
	webtest.Must(t, pa.GetByLabel("Execution date").Fill(webtest.Day(1)))
	webtest.Must(t, pa.GetByLabel("Pay what is due until").Fill(webtest.Day(7)))
	webtest.Must(t, pa.GetByTestId("propose").Click())
	webtest.Must(t, expect.Page(pa).ToHaveURL(regexp.MustCompile(`/payment-runs/\d+$`)))
	firstRun := pa.URL()
	webtest.Must(t, expect.Locator(pa.GetByTestId("blocked-document")).ToHaveCount(2))
	webtest.Must(t, expect.Locator(blocked(pa, changed).GetByTestId("blocked-reason")).ToContainText(
		"IBAN changed since the supplier was last paid: another admin must confirm it"))
	webtest.Must(t, expect.Locator(blocked(pa, invalid).GetByTestId("blocked-reason")).ToContainText("not a valid one"))
	webtest.Must(t, expect.Locator(pa.GetByTestId("no-items")).ToBeVisible())
	assertAccessible(t, pa.Page)

	// She approved the invoice: her confirmation is refused beside it.
	webtest.Must(t, blocked(pa, changed).GetByTestId("confirm-iban").Click())
	refusal := blocked(pa, changed).GetByTestId("run-outcome")
	webtest.Must(t, expect.Locator(refusal).ToHaveAttribute("data-outcome", "separation_of_duties"))
	webtest.Must(t, expect.Locator(refusal).ToContainText("another admin must"))
	assertAccessible(t, pa.Page)

	// Bob confirms the changed IBAN, and the corrected one for the invalid.
	pb := signedInPage(t, a, bob)
	_, err := pb.Goto(firstRun)
	webtest.Must(t, err)
	webtest.Must(t, blocked(pb, changed).GetByTestId("confirm-iban").Click())
	webtest.Must(t, expect.Locator(pb.GetByTestId("run-outcome")).ToContainText("GB29 •••• 6819 confirmed"))
	webtest.Must(t, expect.Locator(pb.GetByTestId("blocked-document")).ToHaveCount(1))
	webtest.Must(t, blocked(pb, invalid).GetByLabel("Corrected IBAN").Fill("DE44 5001 0517 5407 3249 31"))
	webtest.Must(t, blocked(pb, invalid).GetByTestId("confirm-iban").Click())
	webtest.Must(t, expect.Locator(pb.GetByTestId("run-outcome")).ToContainText("DE44 •••• 4931 confirmed"))
	webtest.Must(t, expect.Locator(pb.GetByTestId("no-blocked")).ToBeVisible())

	// A new proposal takes both; approved, its file holds both transfers.
	_, err = pa.Goto("/payment-runs")
	webtest.Must(t, err)
	webtest.Must(t, pa.GetByLabel("Execution date").Fill(webtest.Day(1)))
	webtest.Must(t, pa.GetByLabel("Pay what is due until").Fill(webtest.Day(7)))
	webtest.Must(t, pa.GetByTestId("propose").Click())
	webtest.Must(t, expect.Page(pa).Not().ToHaveURL(firstRun))
	webtest.Must(t, expect.Locator(pa.GetByTestId("run-item")).ToHaveCount(2))
	webtest.Must(t, expect.Locator(pa.GetByTestId("run-total")).ToContainText("379.00"))
	webtest.Must(t, expect.Locator(pa.Locator(`[data-testid=run-item][data-intake-id="`+webtest.Itoa(invalid)+`"]`)).ToContainText("DE44 •••• 4931"))
	ids, err := pa.GetByTestId("item-end-to-end-id").AllTextContents()
	webtest.Must(t, err)
	webtest.Must(t, pa.GetByTestId("approve-run").Click())
	webtest.Must(t, expect.Locator(pa.GetByTestId("payment-run")).ToHaveAttribute("data-status", "approved"))
	assertAccessible(t, pa.Page)
	download, err := pa.ExpectDownload(func() error { return pa.GetByTestId("download-file").Click() })
	webtest.Must(t, err)
	path, err := download.Path()
	webtest.Must(t, err)
	file, err := os.ReadFile(path)
	webtest.Must(t, err)
	if len(ids) != 2 || !strings.HasSuffix(download.SuggestedFilename(), ".xml") {
		t.Fatalf("end-to-end ids %v, file %q", ids, download.SuggestedFilename())
	}
	for _, id := range ids {
		if !strings.Contains(string(file), "<EndToEndId>"+id+"</EndToEndId>") {
			t.Fatalf("the file has no transfer %s:\n%.2000s", id, file)
		}
	}

	// The run is sent now: the invoice's page says so.
	_, err = pa.Goto("/intake/" + webtest.Itoa(changed))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(pa.GetByTestId("payment-state")).ToContainText("Sent in pay run"))
}
