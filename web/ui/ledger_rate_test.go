package ui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// A foreign-currency entry shows each line in its currency and in the base
// currency, and the rate used: the bookkeeper's (with its day and where it
// came from) for an intake document's entry, the one its amounts imply for
// another; an entry in the base currency shows neither.
func TestAForeignCurrencyEntryShowsBaseAmountsAndTheRateUsed(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB) // base EUR
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.Client(t)
	a.SignIn(t, c, u)
	ctx := context.Background()
	dec := decimal.RequireFromString
	post := func(sourceType, sourceID string) int64 {
		t.Helper()
		bd, bc := dec("92.13"), dec("92.13")
		res, err := ledger.Post(ctx, a.DB.Pool, ledger.Request{
			SourceKey: ledger.SourceKey{OrgID: o.ID, SourceType: sourceType, SourceID: sourceID, EntrySet: "bill"},
			Date:      "2026-12-01", Currency: "USD", Description: "Acme Inc. INV-9", Actor: "test",
			Lines: []ledger.Line{{Account: "6000", Debit: dec("100.00"), BaseDebit: &bd}, {Account: "2000", Credit: dec("100.00"), BaseCredit: &bc}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.Entry.ID
	}
	page := func(id int64) (rate string, cells []string) {
		t.Helper()
		d := webtest.Doc(t, webtest.Get(t, c, a.URL+"/ledger/entries/"+webtest.Itoa(id)))
		rate = strings.Join(strings.Fields(d.Find("[data-testid=entry-rate]").Text()), " ")
		for _, testid := range []string{"line-debit", "line-base-debit", "line-credit", "line-base-credit"} {
			cells = append(cells, strings.TrimSpace(d.Find("[data-testid=entry-line] [data-testid="+testid+"]").Text()))
		}
		return rate, cells
	}

	// The bookkeeper recorded the rate of 2026-11-30 for document 77.
	if _, err := a.DB.Pool.Exec(ctx, `INSERT INTO runs (id, org_id, kind, subject_id, state, next_node, data, finished_at)
		VALUES ('6f1d2c3b-0000-4000-8000-0000000000aa', $1, 'bookkeeper', 77, 'done', NULL,
		        '{"intake_id": 77, "currency": "USD", "base_currency": "EUR", "issue_date": "2026-11-30", "rate": "0.9213", "rate_from": "rate of 2026-11-30"}', now())`,
		o.ID); err != nil {
		t.Fatal(err)
	}
	rate, cells := page(post("intake", "77"))
	if rate != "rate 1 USD = 0.9213 EUR on 2026-11-30 (rate of 2026-11-30)" {
		t.Errorf("intake entry's rate: %q", rate)
	}
	if strings.Join(cells, "|") != "100.00|92.13|100.00|92.13" {
		t.Errorf("line amounts (debit, base debit, credit, base credit): %q", cells)
	}

	rate, _ = page(post("payroll", "nov"))
	if rate != "rate 1 USD = 0.9213 EUR on 2026-12-01 (implied by the entry's base amounts)" {
		t.Errorf("API entry's rate: %q", rate)
	}

	eur := webtest.PostEUR(t, a, o.ID, "e1", "6000", "2000", "5.00")
	rate, cells = page(eur.ID)
	if rate != "" || cells[1] != "" {
		t.Errorf("a base-currency entry shows a rate %q or base columns %q", rate, cells)
	}
}
