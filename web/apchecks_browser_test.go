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
)

// The payment-fraud signal end to end: two invoices of a supplier paid to
// one account are approved and posted by the bookkeeper; a third asking for
// another account opens with the alert at the top of its page, above the
// decision, naming the previous account masked and linking the invoices it
// came from. A fourth with the posted account has no alert.
func TestBrowserBankAccountChangeAlert(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	if _, err := org.SetIdentity(context.Background(), a.db.Pool, o.ID,
		org.Identity{LegalName: "Acme Handels GmbH", VATID: "DE123456789"}, audit.System("test")); err != nil {
		t.Fatal(err)
	}
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	s := apSite{site: a, api: c, orgID: o.ID}
	invoice := func(number, iban string) []byte {
		// In the org's own currency, so that the bookkeeper posts without asking.
		return bytes.Replace(apInvoice(number, "SE556677889901", day(-3), day(27), "Acme Handels GmbH", "DE123456789", iban),
			[]byte(`"currency": "EUR"`), []byte(`"currency": "SEK"`), 1)
	}
	var posted []int64
	for _, number := range []string{"NK-1", "NK-2"} {
		id := s.file(t, invoice(number, "SE45 5000 0000 0583 9825 7466"))
		if code, body := c.do("POST", "/api/v1/intake/"+itoa(id)+"/approve", "", nil); code != 200 {
			t.Fatalf("approve %d: %d %v", id, code, body)
		}
		c.waitStatus(float64(id), "posted")
		posted = append(posted, id)
	}
	changed := s.file(t, invoice("NK-3", "SE35 5000 0000 0549 1000 0003"))
	same := s.file(t, invoice("NK-4", "se4550000000058398257466"))

	p := a.signedIn(t, u)
	_, err := p.Goto(fmt.Sprintf("/intake/%d", changed))
	must(t, err)
	alert := p.GetByTestId("iban-alert")
	must(t, expect.Locator(alert).ToBeVisible())
	must(t, expect.Locator(alert.GetByRole("heading")).ToHaveText("The supplier's bank account changed"))
	must(t, expect.Locator(alert.GetByTestId("iban-new")).ToHaveText("SE35 •••• 0003"))
	must(t, expect.Locator(alert.GetByTestId("iban-previous")).ToContainText(regexp.MustCompile(`SE45 •••• 7466 on\s+document \d+\s*,\s*document \d+`)))
	for _, id := range posted {
		must(t, expect.Locator(alert.Locator(fmt.Sprintf(`a[href="/intake/%d"]`, id))).ToHaveCount(1))
	}
	must(t, expect.Locator(alert).Not().ToContainText("5000 0000 0583"))
	alertBox, err := alert.BoundingBox()
	must(t, err)
	decisionBox, err := p.GetByTestId("decision").BoundingBox()
	must(t, err)
	if alertBox == nil || decisionBox == nil || alertBox.Y >= decisionBox.Y {
		t.Fatalf("the alert (%v) is not above the decision (%v)", alertBox, decisionBox)
	}
	// The same warning, in plain words, among the page's AP checks.
	must(t, expect.Locator(p.Locator(`[data-testid=ap-finding][data-code=supplier_iban_changed]`)).ToContainText("payment fraud"))
	screenshot(t, p, "iban-alert.png")

	_, err = p.Goto(fmt.Sprintf("/intake/%d", same))
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("decision")).ToBeVisible())
	must(t, expect.Locator(p.GetByTestId("iban-alert")).ToHaveCount(0))
	must(t, expect.Locator(p.GetByTestId("ap-checks")).ToHaveCount(0))
}
