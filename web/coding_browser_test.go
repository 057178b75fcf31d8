package web_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// costCentres gives org orgID the dimension cost_center with the values
// OPS and RND.
func costCentres(t *testing.T, a *webtest.Site, orgID int64) {
	t.Helper()
	if _, err := a.DB.Pool.Exec(context.Background(), `WITH d AS (INSERT INTO dimensions (org_id, name) VALUES ($1, 'cost_center') RETURNING id)
		INSERT INTO dimension_values (dimension_id, code, name) SELECT d.id, v.code, v.name FROM d, (VALUES ('OPS', 'Operations'), ('RND', 'Research')) AS v (code, name)`, orgID); err != nil {
		t.Fatal(err)
	}
}

// typeIn types text into the focused field, replacing what it held, and
// tabs on to the next.
func typeIn(t *testing.T, p playwright.Page, text string) {
	t.Helper()
	webtest.Must(t, p.Keyboard().Press("Control+a"))
	webtest.Must(t, p.Keyboard().Type(text))
	webtest.Must(t, p.Keyboard().Press("Tab"))
}

// tabs presses Tab n times.
func tabs(t *testing.T, p playwright.Page, n int) {
	t.Helper()
	for range n {
		webtest.Must(t, p.Keyboard().Press("Tab"))
	}
}

// A reviewer codes a five-line invoice with the keyboard only: type-ahead
// picks accounts and cost centres, one line is split by percentage, one
// row copies the row above; saved, approved, the document is posted and
// its entry is on the ledger page.
func TestBrowserCodingAnInvoiceByKeyboard(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	costCentres(t, a, o.ID)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	p := signedInPage(t, a, u)
	url := uploadAndOpen(t, p, "invoice.xml", webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	id := webtest.MustAtoi(t, url[strings.LastIndex(url, "/")+1:])

	rows := p.GetByTestId("coding-row")
	row := func(i int) playwright.Locator { return rows.Nth(i) }
	webtest.Must(t, expect.Locator(rows).ToHaveCount(5))
	tabTo(t, p, "[data-testid=coding-account]", 200)

	// Line 1, consulting hours: a fragment of the account's name settles on it.
	typeIn(t, p, "profess")
	webtest.Must(t, expect.Locator(row(0).GetByTestId("coding-account")).ToHaveValue("6400"))
	typeIn(t, p, "ops")
	webtest.Must(t, expect.Locator(row(0).GetByTestId("coding-dimension")).ToHaveValue("OPS"))
	webtest.Must(t, expect.Locator(row(0).GetByTestId("coding-source")).ToHaveText("reviewer"))
	tabs(t, p, 4) // the amount, the row's three buttons

	// Line 2, paper: 40% to operations, split, the rest to research.
	typeIn(t, p, "office")
	typeIn(t, p, "OPS")
	typeIn(t, p, "40%")
	webtest.Must(t, expect.Locator(row(1).GetByTestId("coding-amount")).ToHaveValue("90.00"))
	check := p.Locator(`[data-testid=coding-line-check][data-line="2"]`)
	webtest.Must(t, expect.Locator(check).ToHaveAttribute("data-off", "true"))
	webtest.Must(t, expect.Locator(check.GetByTestId("coding-line-status")).ToHaveText("off by 135.00"))
	tabs(t, p, 1) // past Copy above, to Split
	webtest.Must(t, p.Keyboard().Press("Enter"))
	webtest.Must(t, expect.Locator(rows).ToHaveCount(6))
	webtest.Must(t, expect.Locator(row(2).GetByTestId("coding-account")).ToBeFocused())
	webtest.Must(t, expect.Locator(row(2).GetByTestId("coding-amount")).ToHaveValue("135.00"))
	webtest.Must(t, expect.Locator(check).ToHaveAttribute("data-off", "false"))
	tabs(t, p, 1)
	typeIn(t, p, "rnd")
	tabs(t, p, 4)

	// Line 3, the hotel: travel, operations.
	typeIn(t, p, "travel")
	typeIn(t, p, "ops")
	tabs(t, p, 4)

	// Line 4, books: coded as the row above.
	webtest.Must(t, expect.Locator(row(4).GetByTestId("coding-account")).ToBeFocused())
	tabs(t, p, 3)
	webtest.Must(t, expect.Locator(row(4).GetByTestId("coding-copy-above")).ToBeFocused())
	webtest.Must(t, p.Keyboard().Press("Enter"))
	webtest.Must(t, expect.Locator(row(4).GetByTestId("coding-account")).ToHaveValue("6300"))
	webtest.Must(t, expect.Locator(row(4).GetByTestId("coding-dimension")).ToHaveValue("OPS"))
	tabs(t, p, 4) // from the amount, past the three buttons

	// Line 5, the training day: the account by its code; Enter saves.
	typeIn(t, p, "6400")
	tabs(t, p, 1)
	webtest.Must(t, expect.Locator(row(5).GetByTestId("coding-amount")).ToBeFocused())
	webtest.Must(t, expect.Locator(p.GetByTestId("coding-summary")).ToHaveText("Every line is coded to its net."))
	webtest.Must(t, p.Keyboard().Press("Enter"))
	webtest.Must(t, expect.Locator(p.Locator("#flash")).ToContainText("Coding saved."))

	// Saved as typed.
	got, err := a.DB.Pool.Query(context.Background(), `SELECT c.line || ' ' || a.code || ' ' || coalesce(c.dimensions ->> 'cost_center', '-') || ' ' || c.amount::numeric(20,2) || ' ' || c.source
		FROM intake_coding c JOIN accounts a ON a.id = c.account_id WHERE c.intake_id = $1 ORDER BY c.row_no`, id)
	webtest.Must(t, err)
	var saved []string
	for got.Next() {
		var s string
		webtest.Must(t, got.Scan(&s))
		saved = append(saved, s)
	}
	webtest.Must(t, got.Err())
	want := []string{"1 6400 OPS 12000.00 reviewer", "2 6100 OPS 90.00 reviewer", "2 6100 RND 135.00 reviewer",
		"3 6300 OPS 2900.00 reviewer", "4 6300 OPS 747.00 reviewer", "5 6400 - 5000.00 reviewer"}
	if fmt.Sprint(saved) != fmt.Sprint(want) {
		t.Fatalf("the coding saved:\n%q\nwant\n%q", saved, want)
	}

	// Approved by its key, posted, its entry on the ledger page.
	webtest.Must(t, p.Keyboard().Press("a"))
	webtest.Must(t, expect.Locator(p.GetByTestId("posted")).ToBeVisible())
	entryID := testkit.Count(t, a.DB, `SELECT result_entry_id FROM intake_documents WHERE id = $1`, id)
	_, err = p.Goto("/ledger?source_type=intake&source_id=" + webtest.Itoa(int64(id)))
	webtest.Must(t, err)
	entry := p.GetByTestId("entry-row")
	webtest.Must(t, expect.Locator(entry).ToHaveCount(1))
	webtest.Must(t, expect.Locator(entry).ToContainText(fmt.Sprintf("#%d", entryID)))
	webtest.Must(t, expect.Locator(p.GetByTestId("coding-form")).ToHaveCount(0))

	// The entry debits the coding row by row: each row's account, cost
	// centre and amount is a line of its own (and the invoice's rounding of
	// -0.07 is a third line on the first row's account, 6400).
	_, err = p.Goto("/ledger/entries/" + webtest.Itoa(int64(entryID)))
	webtest.Must(t, err)
	for _, want := range []struct {
		account string
		lines   int
	}{{"6400", 3}, {"6100", 2}, {"6300", 2}} {
		account := p.GetByTestId("entry-line").Filter(playwright.LocatorFilterOptions{
			Has: p.Locator("td:first-child", playwright.PageLocatorOptions{HasText: regexp.MustCompile(`^\s*` + want.account + `\b`)})})
		webtest.Must(t, expect.Locator(account).ToHaveCount(want.lines))
	}
	for _, line := range []struct {
		account, cost, debit string
	}{{"6400", "OPS", "12000.0000"}, {"6100", "OPS", "90.0000"}, {"6100", "RND", "135.0000"}, {"6300", "OPS", "2900.0000"}, {"6300", "OPS", "747.0000"}, {"6400", "", "5000.0000"}} {
		if n := testkit.Count(t, a.DB, `SELECT count(*) FROM journal_lines l JOIN accounts c ON c.id = l.account_id
			WHERE l.entry_id = $1 AND c.code = $2 AND coalesce(l.dimensions ->> 'cost_center', '') = $3 AND l.debit = $4::numeric`,
			entryID, line.account, line.cost, line.debit); n != 1 {
			t.Errorf("entry lines on %s %s debiting %s: %d, want 1", line.account, line.cost, line.debit, n)
		}
	}
}
