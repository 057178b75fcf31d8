package web_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

// bookkeepingOrg is an org that keeps its books in the test invoices'
// currency (SEK) with a default expense account, so nothing is asked.
func bookkeepingOrg(t *testing.T, a *site) org.Org {
	t.Helper()
	o := testkit.OrgWith(t, a.db, "books-"+strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-")), "SEK")
	if _, err := a.db.Pool.Exec(context.Background(), `UPDATE orgs SET default_expense_account_id =
		(SELECT id FROM accounts WHERE org_id = $1 AND code = '6000') WHERE id = $1`, o.ID); err != nil {
		t.Fatal(err)
	}
	return o
}

// uploadAndOpen uploads one file and opens its document once the clerk has filed it.
func uploadAndOpen(t *testing.T, p playwright.Page, name string, content []byte, wantStatus string) string {
	t.Helper()
	_, err := p.Goto("/upload")
	must(t, err)
	must(t, p.GetByTestId("upload-input").SetInputFiles([]playwright.InputFile{{Name: name, MimeType: "application/xml", Buffer: content}}))
	must(t, p.GetByTestId("upload-submit").Click())
	link := p.Locator(`[data-testid=upload-result][data-outcome=new] a`)
	must(t, expect.Locator(link).ToHaveCount(1))
	must(t, link.Click())
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/intake/\d+$`)))
	for i := 0; i < 200; i++ {
		if s, _ := p.GetByTestId("decision").GetAttribute("data-status"); s == wantStatus {
			break
		}
		_, err = p.Reload()
		must(t, err)
	}
	// The decision panel refreshes itself, so it can reach the status while
	// the rest of the page still shows the document as it was loaded (the
	// header's badges, the fields): load the page once more, filed.
	_, err = p.Reload()
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("decision")).ToHaveAttribute("data-status", wantStatus))
	return p.URL()
}

func TestBrowserApprovePostsAndTheDuplicateIsRefusedInline(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	p := a.signedInPage(t, u)
	invoice := sample(t, "ubl-invoice-multirate.xml")

	firstURL := uploadAndOpen(t, p, "invoice.xml", invoice, "pending")
	firstPath := firstURL[strings.Index(firstURL, "/intake/"):]
	must(t, p.GetByTestId("approve").Click())
	must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
	// The bookkeeper posts it; the region updates itself in place.
	must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
	must(t, p.GetByTestId("entry-link").Click())
	must(t, expect.Locator(p.GetByTestId("source-key")).ToContainText("intake / "+strings.TrimPrefix(firstPath, "/intake/")+" / bill"))
	must(t, expect.Locator(p.GetByTestId("intake-link")).ToHaveAttribute("href", firstPath))

	// The same invoice as other bytes: flagged into the first one's group.
	copyBytes := append([]byte("<!-- sent again by the supplier -->\n"), invoice...)
	uploadAndOpen(t, p, "invoice-again.xml", copyBytes, "flagged")
	must(t, expect.Locator(p.GetByTestId("flag-reason")).ToHaveText("duplicate"))
	must(t, expect.Locator(p.GetByTestId("group-member")).ToHaveCount(2))
	must(t, expect.Locator(p.Locator(`[data-testid=duplicate-of] a`)).ToHaveAttribute("href", firstPath))

	// The first is posted: the panel explains the 409 before anyone
	// presses approve, and the button is disabled.
	must(t, expect.Locator(p.GetByTestId("approve")).ToBeDisabled())
	outcome := p.GetByTestId("outcome")
	must(t, expect.Locator(outcome).ToHaveAttribute("data-outcome", "conflict"))
	must(t, expect.Locator(p.GetByTestId("blocking-link")).ToHaveAttribute("href", firstPath))
	must(t, expect.Locator(p.GetByTestId("blocking-status")).ToHaveText("posted"))
	must(t, expect.Locator(p.GetByTestId("blocking-by")).ToHaveText(u.Email))
	must(t, expect.Locator(outcome).ToContainText("journal entry"))
	must(t, expect.Locator(p.GetByTestId("error-page")).ToHaveCount(0))

	// The way forward: reject it as a duplicate, in place.
	must(t, p.GetByLabel("Reason to reject").Fill("duplicate of the posted invoice"))
	must(t, p.GetByTestId("reject").Click())
	must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText("duplicate of the posted invoice"))
}
