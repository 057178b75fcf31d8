package web_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// uploadAndOpen uploads one file and opens its document once the clerk has filed it.
func uploadAndOpen(t *testing.T, p playwright.Page, name string, content []byte, wantStatus string) string {
	t.Helper()
	_, err := p.Goto("/upload")
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("upload-input").SetInputFiles([]playwright.InputFile{{Name: name, MimeType: "application/xml", Buffer: content}}))
	webtest.Must(t, p.GetByTestId("upload-submit").Click())
	link := p.Locator(`[data-testid=upload-result][data-outcome=new] a`)
	webtest.Must(t, expect.Locator(link).ToHaveCount(1))
	webtest.Must(t, link.Click())
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/intake/\d+$`)))
	for i := 0; i < 200; i++ {
		if s, _ := p.GetByTestId("decision").GetAttribute("data-status"); s == wantStatus {
			break
		}
		_, err = p.Reload()
		webtest.Must(t, err)
	}
	// The decision panel refreshes itself, so it can reach the status while
	// the rest of the page still shows the document as it was loaded (the
	// header's badges, the fields): load the page once more, filed.
	_, err = p.Reload()
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("decision")).ToHaveAttribute("data-status", wantStatus))
	return p.URL()
}

func TestBrowserApprovePostsAndTheDuplicateIsRefusedInline(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	p := signedInPage(t, a, u)
	invoice := webtest.Sample(t, "ubl-invoice-multirate.xml")

	firstURL := uploadAndOpen(t, p, "invoice.xml", invoice, "pending")
	firstPath := firstURL[strings.Index(firstURL, "/intake/"):]
	webtest.Must(t, p.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
	// The bookkeeper posts it; the region updates itself in place.
	webtest.Must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
	webtest.Must(t, p.GetByTestId("entry-link").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("source-key")).ToContainText("intake / "+strings.TrimPrefix(firstPath, "/intake/")+" / bill"))
	webtest.Must(t, expect.Locator(p.GetByTestId("intake-link")).ToHaveAttribute("href", firstPath))

	// The same invoice as other bytes: flagged into the first one's group.
	copyBytes := append([]byte("<!-- sent again by the supplier -->\n"), invoice...)
	uploadAndOpen(t, p, "invoice-again.xml", copyBytes, "flagged")
	webtest.Must(t, expect.Locator(p.GetByTestId("flag-reason")).ToHaveText("duplicate"))
	webtest.Must(t, expect.Locator(p.GetByTestId("group-member")).ToHaveCount(2))
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=duplicate-of] a`)).ToHaveAttribute("href", firstPath))

	// The first is posted: the panel explains the 409 before anyone
	// presses approve, and the button is disabled.
	webtest.Must(t, expect.Locator(p.GetByTestId("approve")).ToBeDisabled())
	outcome := p.GetByTestId("outcome")
	webtest.Must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "conflict"))
	webtest.Must(t, expect.Locator(p.GetByTestId("blocking-link")).ToHaveAttribute("href", firstPath))
	webtest.Must(t, expect.Locator(p.GetByTestId("blocking-status")).ToHaveText("posted"))
	webtest.Must(t, expect.Locator(p.GetByTestId("blocking-by")).ToHaveText(u.Email))
	webtest.Must(t, expect.Locator(outcome).ToContainText("journal entry"))
	webtest.Must(t, expect.Locator(p.GetByTestId("error-page")).ToHaveCount(0))

	// The way forward: reject it as a duplicate, in place.
	webtest.Must(t, p.GetByLabel("Reason to reject").Fill("duplicate of the posted invoice"))
	webtest.Must(t, p.GetByTestId("reject").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText("duplicate of the posted invoice"))
}
