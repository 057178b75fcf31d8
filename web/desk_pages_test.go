package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// TestOneMoneyFormatOnEveryPage: an amount reads "24,321.00 SEK" on the
// desk, the document page, the side-by-side comparison and the ledger, all
// through money.Display.
func TestOneMoneyFormatOnEveryPage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := testkit.OrgWith(t, a.db, "sek", "SEK")
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := a.client(t)
	a.signIn(t, c, u)
	api := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	_, second := twoCopies(t, api)
	if _, err := ledger.Post(context.Background(), a.db.Pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: o.ID, SourceType: "intake", SourceID: "7", EntrySet: "bill"},
		Date:      "2026-11-20", Currency: "SEK", Description: "Thousands AB",
		Lines: []ledger.Line{{Account: "6000", Debit: decimal.RequireFromString("24321")}, {Account: "2000", Credit: decimal.RequireFromString("24321")}},
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, selector string }{
		{"/desk", "[data-testid=queue-row]"},
		{"/intake/" + itoa(second), "[data-testid=field-payable]"},
		{"/intake/" + itoa(second), "[data-testid=compare]"},
		{"/ledger", "main table tbody tr"},
	} {
		got := doc(t, get(t, c, a.URL+tc.path)).Find(tc.selector).First().Text()
		if !strings.Contains(got, "24,321.00 SEK") {
			t.Errorf("%s %s: %q does not show 24,321.00 SEK", tc.path, tc.selector, strings.Join(strings.Fields(got), " "))
		}
	}
}
