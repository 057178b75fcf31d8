package web_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"testing"

	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// The payment-fraud signal end to end: two invoices of a supplier paid to
// one account are approved and posted by the bookkeeper; a third asking for
// another account opens with the alert at the top of its page, above the
// decision, naming the previous account masked and linking the invoices it
// came from. A fourth with the posted account has no alert.
func TestBrowserBankAccountChangeAlert(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	if _, err := org.SetIdentity(context.Background(), a.DB.Pool, o.ID,
		org.Identity{LegalName: "Acme Handels GmbH", VATID: "DE123456789"}, audit.System("test")); err != nil {
		t.Fatal(err)
	}
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	s := webtest.APSite{Site: a, Reviewer: c, OrgID: o.ID}
	invoice := func(number, iban string) []byte {
		// In the org's own currency, so that the bookkeeper posts without asking.
		return bytes.Replace(webtest.APInvoice(number, "SE556677889901", webtest.Day(-3), webtest.Day(27), "Acme Handels GmbH", "DE123456789", iban),
			[]byte(`"currency": "EUR"`), []byte(`"currency": "SEK"`), 1)
	}
	var posted []int64
	for _, number := range []string{"NK-1", "NK-2"} {
		id := s.File(t, invoice(number, "SE45 5000 0000 0583 9825 7466"))
		if code, body := c.Do("POST", "/api/v1/intake/"+webtest.Itoa(id)+"/approve", "", nil); code != 200 {
			t.Fatalf("approve %d: %d %v", id, code, body)
		}
		c.WaitStatus(float64(id), "posted")
		posted = append(posted, id)
	}
	changed := s.File(t, invoice("NK-3", "SE35 5000 0000 0549 1000 0003"))
	same := s.File(t, invoice("NK-4", "se4550000000058398257466"))

	p := signedIn(t, a, u)
	_, err := p.Goto(fmt.Sprintf("/intake/%d", changed))
	webtest.Must(t, err)
	alert := p.GetByTestId("iban-alert")
	webtest.Must(t, expect.Locator(alert).ToBeVisible())
	webtest.Must(t, expect.Locator(alert.GetByRole("heading")).ToHaveText("The supplier's bank account changed"))
	webtest.Must(t, expect.Locator(alert.GetByTestId("iban-new")).ToHaveText("SE35 •••• 0003"))
	webtest.Must(t, expect.Locator(alert.GetByTestId("iban-previous")).ToContainText(regexp.MustCompile(`SE45 •••• 7466 on\s+document \d+\s*,\s*document \d+`)))
	for _, id := range posted {
		webtest.Must(t, expect.Locator(alert.Locator(fmt.Sprintf(`a[href="/intake/%d"]`, id))).ToHaveCount(1))
	}
	webtest.Must(t, expect.Locator(alert).Not().ToContainText("5000 0000 0583"))
	alertBox, err := alert.BoundingBox()
	webtest.Must(t, err)
	decisionBox, err := p.GetByTestId("decision").BoundingBox()
	webtest.Must(t, err)
	if alertBox == nil || decisionBox == nil || alertBox.Y >= decisionBox.Y {
		t.Fatalf("the alert (%v) is not above the decision (%v)", alertBox, decisionBox)
	}
	// The same warning, in plain words, among the page's AP checks.
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=ap-finding][data-code=supplier_iban_changed]`)).ToContainText("payment fraud"))
	screenshot(t, p, "iban-alert.png")

	_, err = p.Goto(fmt.Sprintf("/intake/%d", same))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("decision")).ToBeVisible())
	webtest.Must(t, expect.Locator(p.GetByTestId("iban-alert")).ToHaveCount(0))
	webtest.Must(t, expect.Locator(p.GetByTestId("ap-checks")).ToHaveCount(0))
}
