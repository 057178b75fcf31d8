package web_test

import (
	"regexp"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func TestBrowserTypewriterComposeReviseSubmit(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	p := signedInPage(t, a, u)

	_, err := p.Goto("/typewriter/new")
	webtest.Must(t, err)
	for label, value := range map[string]string{"Number": "PAPER-42", "Issue date": "2026-11-20", "Currency": "SEK",
		"Seller": "Paper Supplier AB", "Seller VAT id": "SE556677889901", "Buyer": "Acme AB",
		// The buyer's VAT id gives the rendered invoice its buyer's country (EN 16931 BR-10, BR-11).
		"Buyer VAT id":  "SE556000000101",
		"Description 1": "Copy paper", "Quantity": "10", "Unit price": "45.00", "VAT %": "25"} {
		webtest.Must(t, p.GetByLabel(label, pwExact()).First().Fill(value))
	}
	// The live preview adds it up as it is typed.
	webtest.Must(t, expect.Locator(p.GetByTestId("preview-ok")).ToBeVisible())
	webtest.Must(t, expect.Locator(p.GetByTestId("field-payable")).ToContainText("562.50"))
	webtest.Must(t, p.GetByTestId("compose-submit").Click())
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/typewriter/\d+$`)))
	webtest.Must(t, expect.Locator(p.GetByTestId("version")).ToHaveCount(1))

	// Submit v1; it is filed pending and live.
	webtest.Must(t, p.GetByTestId("submit-version").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("flash")).ToContainText("Version 1 submitted"))
	webtest.Must(t, expect.Locator(p.GetByTestId("live")).ToHaveCount(1))

	// Revise: twelve reams, not ten.
	webtest.Must(t, p.GetByTestId("revise").Click())
	webtest.Must(t, p.GetByLabel("Quantity").First().Fill("12"))
	webtest.Must(t, expect.Locator(p.GetByTestId("field-payable")).ToContainText("675.00"))
	webtest.Must(t, p.GetByTestId("compose-submit").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("version")).ToHaveCount(2))
	// The diff names what changed.
	webtest.Must(t, expect.Locator(p.GetByTestId("diff")).ToContainText("line 1"))
	webtest.Must(t, expect.Locator(p.GetByTestId("diff")).ToContainText("675"))

	// Submit v2: flagged as a newer version of v1's row, in v1's group.
	webtest.Must(t, p.Locator(`[data-testid=version][data-version="2"] [data-testid=submit-version]`).Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("flash")).ToContainText("flagged as a newer version"))
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=version][data-version="2"] [data-testid=version-duplicate-of]`)).ToBeVisible())
	webtest.Must(t, p.Locator(`[data-testid=version][data-version="2"] [data-testid=version-intake]`).Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("flag-reason")).ToHaveText("duplicate"))
	webtest.Must(t, expect.Locator(p.GetByTestId("group-member")).ToHaveCount(2))
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=document-version-chain] [data-testid=version]`)).ToHaveCount(2))
	// Approving v2 while v1 is pending would be allowed; approve v1 first and v2 is refused inline.
	webtest.Must(t, p.Locator(`[data-testid=duplicate-of] a`).Click())
	webtest.Must(t, p.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
	_, err = p.GoBack()
	webtest.Must(t, err)
	_, err = p.Reload()
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("approve")).ToBeDisabled())
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "conflict"))
}
