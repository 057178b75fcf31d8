package ui_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// TestOneMoneyFormatOnEveryPage: an amount reads "24,321.00 SEK" on the
// desk, the document page, the side-by-side comparison and the ledger, all
// through money.Display.
func TestOneMoneyFormatOnEveryPage(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.OrgWith(t, a.DB, "sek", "SEK")
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.Client(t)
	a.SignIn(t, c, u)
	api := a.APIFor(t, u)
	_, second := webtest.TwoCopies(t, api)
	if _, err := ledger.Post(context.Background(), a.DB.Pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: o.ID, SourceType: "intake", SourceID: "7", EntrySet: "bill"},
		Date:      "2026-11-20", Currency: "SEK", Description: "Thousands AB",
		Lines: []ledger.Line{{Account: "6000", Debit: decimal.RequireFromString("24321")}, {Account: "2000", Credit: decimal.RequireFromString("24321")}},
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, selector string }{
		{"/desk", "[data-testid=queue-row]"},
		{"/intake/" + webtest.Itoa(second), "[data-testid=field-payable]"},
		{"/intake/" + webtest.Itoa(second), "[data-testid=compare]"},
		{"/ledger", "main table tbody tr"},
	} {
		got := webtest.Doc(t, webtest.Get(t, c, a.URL+tc.path)).Find(tc.selector).First().Text()
		if !strings.Contains(got, "24,321.00 SEK") {
			t.Errorf("%s %s: %q does not show 24,321.00 SEK", tc.path, tc.selector, strings.Join(strings.Fields(got), " "))
		}
	}
}

// The desk sorts by the amount in the org's base currency and shows it
// beside a foreign amount: 1,020 EUR at a remembered 11.50 is 11,730 SEK,
// less than 24,231 SEK; an amount in a currency with no rate yet says so
// and sorts last.
func TestTheDeskSortsAndShowsAmountsInTheBaseCurrency(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.OrgWith(t, a.DB, "sek-base", "SEK")
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.Client(t)
	a.SignIn(t, c, u)
	api := a.APIFor(t, u)
	upload := func(number, currency, price string) string {
		t.Helper()
		body := fmt.Sprintf(`{"type": "invoice", "number": %q, "issue_date": "2026-11-10", "currency": %q,
			"seller": {"name": "Supplier %s", "vat_id": "SE5566778899%s01"}, "buyer": {"name": "Org"},
			"lines": [{"description": "Goods", "quantity": "1", "unit_price": %q, "tax_rate": "0"}]}`, number, currency, number, number[len(number)-2:], price)
		code, res := api.Do("POST", "/api/v1/documents", "application/json", []byte(body))
		if code != 202 {
			t.Fatalf("upload %s: %d %v", number, code, res)
		}
		api.WaitStatus(res["intake_id"].(float64), "pending")
		return webtest.Itoa(int64(res["intake_id"].(float64)))
	}
	sek := upload("S-11", "SEK", "24231.00")
	eur := upload("E-12", "EUR", "1020.00")
	usd := upload("U-13", "USD", "5000.00")
	if _, err := a.DB.Pool.Exec(context.Background(), `INSERT INTO exchange_rates (org_id, currency, rate_date, rate, created_by)
		VALUES ($1, 'EUR', '2026-11-09', 11.5, 'test')`, o.ID); err != nil {
		t.Fatal(err)
	}
	d := webtest.Doc(t, webtest.Get(t, c, a.URL+"/desk?order=-amount"))
	var order []string
	base := map[string]string{}
	d.Find(`[data-testid=queue-row]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("data-document-id")
		order = append(order, id)
		base[id] = strings.TrimSpace(s.Find(`[data-testid=queue-amount-base]`).Text())
	})
	if want := []string{sek, eur, usd}; !slices.Equal(order, want) {
		t.Errorf("largest amount first: %v, want %v", order, want)
	}
	if base[eur] != "≈ 11,730.00 SEK" || base[usd] != "no rate yet" || base[sek] != "" {
		t.Errorf("base amounts shown: %q", base)
	}
}
