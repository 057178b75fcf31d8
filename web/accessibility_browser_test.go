package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
	"github.com/shopspring/decimal"

	"greatbook/internal/auth"
	st "greatbook/internal/bankstatement/statementtest"
	"greatbook/internal/chart"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/ledger"
	"greatbook/internal/payments"
	"greatbook/internal/testkit"
	"greatbook/internal/testkit/browser"
	"greatbook/web/webtest"
)

// axeViolation is one rule axe-core found broken, with where.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// assertAccessible runs axe-core on the page as it is and fails the test for
// every serious or critical violation (minor and moderate ones are not
// counted).
func assertAccessible(t *testing.T, p playwright.Page) {
	t.Helper()
	if ok, _ := p.Evaluate(`() => typeof window.axe !== "undefined"`); ok != true {
		// Evaluated through the driver, not added as a <script>: the app's
		// Content-Security-Policy refuses inline scripts, rightly.
		src, err := os.ReadFile(browser.AxeScript(t))
		webtest.Must(t, err)
		_, err = p.Evaluate(string(src) + "\n;undefined")
		webtest.Must(t, err)
	}
	raw, err := p.Evaluate(`async () => {
		const r = await axe.run(document, { resultTypes: ["violations"] });
		return JSON.stringify(r.violations.filter(v => v.impact === "serious" || v.impact === "critical"));
	}`)
	webtest.Must(t, err)
	var vs []axeViolation
	webtest.Must(t, json.Unmarshal([]byte(raw.(string)), &vs))
	for _, v := range vs {
		var where []string
		for _, n := range v.Nodes {
			where = append(where, fmt.Sprint(n.Target)+": "+strings.ReplaceAll(n.Summary, "\n", " "))
		}
		t.Errorf("%s: axe %s (%s): %s\n\t%s", p.URL(), v.ID, v.Impact, v.Help, strings.Join(where, "\n\t"))
	}
}

// Every page of the app, in the states a reviewer and an operator meet,
// has no serious or critical accessibility violation.
func TestBrowserEveryPageIsAccessible(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)
	c := a.APIFor(t, admin)
	ctx := context.Background()
	// A dimension of the org: the coding grid's columns and the ledger's filters.
	costCentres(t, a, o.ID)

	// A posted document and a flagged copy of it (the group diagram).
	posted, duplicate := webtest.TwoCopies(t, c)
	if code, body := c.PostJSON("/api/v1/intake/"+webtest.Itoa(posted)+"/approve", ""); code != 200 {
		t.Fatalf("approve: %d %v", code, body)
	}
	c.WaitStatus(float64(posted), "posted")
	entryID := testkit.Count(t, a.DB, `SELECT result_entry_id FROM intake_documents WHERE id = $1`, posted)
	invalid := webtest.Filed(t, c, webtest.BrokenCopy(t, "NK-BROKEN-1"), "flagged")
	// A dead letter.
	fix := breakLaunches(a, "bookkeeper pool refused the run (injected)")
	code, body := c.Do("POST", "/api/v1/documents", "application/json", webtest.JSONInvoice("DL-1"))
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	dead := int64(body["intake_id"].(float64))
	c.WaitStatus(float64(dead), "pending")
	c.PostJSON("/api/v1/intake/"+webtest.Itoa(dead)+"/approve", "")
	fix()
	jobID := testkit.Count(t, a.DB, `SELECT id FROM jobs WHERE intake_id = $1`, dead)
	runID := ""
	webtest.Must(t, a.DB.Pool.QueryRow(ctx, `SELECT coalesce(max(id::text), '') FROM runs`).Scan(&runID))
	code, body = c.Do("POST", "/api/v1/documents", "application/json", []byte(strings.Replace(string(webtest.JSONInvoice("P-1")), `"quantity":"10"`, `"quantity":"11"`, 1)))
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	pending := int64(body["intake_id"].(float64))
	c.WaitStatus(float64(pending), "pending")
	// A document of the typewriter, submitted: the version chain.
	d, err := ownjson.Parse(webtest.JSONInvoice("TW-1"))
	webtest.Must(t, err)
	tw, err := a.App.Typewriter.Compose(ctx, o.ID, d, admin.Actor())
	webtest.Must(t, err)
	chainDoc, err := a.App.Typewriter.Submit(ctx, o.ID, tw.Versions[0].ID, admin.Actor())
	webtest.Must(t, err)

	// A plain PDF read from its text with its number not found (its page
	// notes how it was read; its type-in form shows the page and the
	// places), and a supplier's learned layout (the layouts page lists it).
	readDoc := webtest.FiledPDF(t, c, webtest.GermanInvoice(t, "Beleg:", "BX-1001", "03.02.2025", "100,00", "19,00", "119,00"), "flagged")
	if _, err := a.DB.Pool.Exec(ctx, `INSERT INTO supplier_layouts (org_id, supplier_key, supplier_name, layout, learned_from, learned_by)
		VALUES ($1, 'vat:DE123456789', 'Lieferant GmbH', '{"fields": {"number": {"page": 1, "box": {"x0": 0.3, "y0": 0.2, "x1": 0.4, "y1": 0.22}, "label_box": {"x0": 0.1, "y0": 0.2, "x1": 0.15, "y1": 0.22}}}}', $2, 'test')`,
		o.ID, readDoc); err != nil {
		t.Fatal(err)
	}
	// A supplier rule (the supplier-rules page lists it).
	if _, err := a.DB.Pool.Exec(ctx, `INSERT INTO supplier_accounts (org_id, supplier_key, account_id, created_by)
		SELECT $1, 'SE556677889901', id, 'test' FROM accounts WHERE org_id = $1 AND code = '6200'`, o.ID); err != nil {
		t.Fatal(err)
	}
	// A dimension with an active and an inactive value (the dimensions page lists them).
	if _, err := chart.PutValues(ctx, a.DB.Pool, o.ID, "cost_center", []chart.ValueChange{{Code: "OPS", Name: "Operations"},
		{Code: "OLD", Name: "Closed", Active: new(false)}}, admin.Actor()); err != nil {
		t.Fatal(err)
	}
	// A remembered exchange rate (the org settings page lists it).
	if _, err := a.DB.Pool.Exec(ctx, `INSERT INTO exchange_rates (org_id, currency, rate_date, rate, created_by)
		VALUES ($1, 'GBP', '2026-01-02', 13.1, 'test') ON CONFLICT DO NOTHING`, o.ID); err != nil {
		t.Fatal(err)
	}
	// A supplier's changed bank account and a due date passed at arrival
	// (the IBAN alert and the AP checks): two posted invoices paid to one
	// account, a third asking for another.
	s := webtest.APSite{Site: a, Reviewer: c, OrgID: o.ID}
	apBill := func(number, due, iban string) []byte {
		return bytes.Replace(webtest.APInvoice(number, "SE556677889901", webtest.Day(-3), due, "Acme AB", "", iban),
			[]byte(`"currency": "EUR"`), []byte(`"currency": "SEK"`), 1)
	}
	for _, number := range []string{"IBAN-1", "IBAN-2"} {
		id := s.File(t, apBill(number, webtest.Day(27), "SE45 5000 0000 0583 9825 7466"))
		if code, body := c.PostJSON("/api/v1/intake/"+webtest.Itoa(id)+"/approve", ""); code != 200 {
			t.Fatalf("approve %d: %d %v", id, code, body)
		}
		c.WaitStatus(float64(id), "posted")
	}
	ibanChanged := s.File(t, apBill("IBAN-3", webtest.Day(-1), "SE35 5000 0000 0549 1000 0003"))
	// A pay run with an item and a blocked document to confirm (the pay
	// runs' pages), and invoices due this week (the desk's due tab).
	webtest.SetBankAccount(t, a, o, "NL91ABNA0417164300", "ABNANL2A")
	webtest.PostedBill(t, a, o, admin, webtest.Bill{Supplier: "Zeta SA", Number: "PAY-1", Payable: "100", Due: webtest.Day(1), IBAN: "FR1420041010050500013M02606"})
	webtest.PostedBill(t, a, o, admin, webtest.Bill{Supplier: "Gamma SARL", Number: "PAY-2", Payable: "7", Due: webtest.Day(1), IBAN: "DE89370400440532013001"})
	payRun, err := a.App.Payments.Propose(ctx, o.ID, payments.Proposal{ExecutionDate: webtest.Day(1), DueUntil: webtest.Day(7)}, admin.Actor())
	webtest.Must(t, err)
	webtest.PostedBill(t, a, o, admin, webtest.Bill{Supplier: "Zeta SA", Number: "PAY-3", Payable: "12", Due: webtest.Day(-2), IBAN: "FR1420041010050500013M02606"})
	// A bookkeeper's question on the desk: a bill in EUR asks for the rate.
	asks := s.File(t, webtest.APInvoice("RATE-1", "DE999999999", webtest.Day(-3), webtest.Day(27), "Acme AB", "", ""))
	if code, body := c.PostJSON("/api/v1/intake/"+webtest.Itoa(asks)+"/approve", ""); code != 200 {
		t.Fatalf("approve %d: %d %v", asks, code, body)
	}
	webtest.OpenQuestion(t, a, o, asks)
	// A foreign-currency entry: USD lines with their SEK base amounts.
	dec := decimal.RequireFromString
	base := dec("1050.00")
	usd, err := ledger.Post(ctx, a.DB.Pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: o.ID, SourceType: "payroll", SourceID: "usd", EntrySet: "bill"},
		Date:      "2026-12-01", Currency: "USD", Description: "Acme Inc. INV-9", Actor: "test",
		Lines: []ledger.Line{{Account: "6000", Debit: dec("100.00"), BaseDebit: &base}, {Account: "2000", Credit: dec("100.00"), BaseCredit: &base}},
	})
	webtest.Must(t, err)

	// A bank statement with lines no payment matched (the import's page
	// lists them with their reasons).
	statement, _, err := a.App.BankStatements.Import(ctx, o.ID, st.Camt053("STMT-A11Y", "NL91ABNA0417164300",
		st.Paid("GB-NOBODY", "5.00"), st.Entry{Amount: "7.50", Status: "PDNG", Reference: "PENDING-1"},
		st.Returned("GB-GONE", "12.00", "AC04")), admin.Actor())
	webtest.Must(t, err)

	p := browser.NewPage(t, a.URL)
	_, err = p.Goto("/signin")
	webtest.Must(t, err)
	assertAccessible(t, p)
	signInWith(t, p, admin.Email, testkit.TestPassword)
	webtest.Must(t, expect.Locator(p.GetByTestId("current-user")).ToBeVisible())

	// Every HTML page route of web/server.go is visited below. Deliberately
	// not visited on their own: the htmx fragments (/intake/:id/decision,
	// /compare, /watch, /upload/documents/:id, /typewriter/:id/diff): they
	// re-render regions the full pages show, where axe checks them; /intake/:id/pages/:n
	// (a page's image, shown on the type-in form); /intake/:id/original and
	// /typewriter/versions/:id/pdf (the PDF or XML itself); /metrics and
	// /healthz (not HTML); "/" (a redirect to /desk).
	pages := []string{"/desk"}
	for _, tab := range []string{"review", "flagged", "approved", "posted", "reversed", "rejected", "all"} {
		pages = append(pages, "/desk?tab="+tab)
	}
	for _, id := range []int64{pending, duplicate, posted, invalid, dead, chainDoc.ID} {
		pages = append(pages, "/intake/"+webtest.Itoa(id))
	}
	for _, id := range []int64{ibanChanged, asks} {
		pages = append(pages, "/intake/"+webtest.Itoa(id))
	}
	pages = append(pages, "/intake/"+webtest.Itoa(pending)+"/type-in", "/typewriter/"+webtest.Itoa(tw.ID)+"/revise",
		"/ledger/entries/"+webtest.Itoa(usd.Entry.ID), "/admin/supplier-rules", "/admin/org",
		"/admin/accounts", "/admin/dimensions", "/bank-statements", "/bank-statements/"+webtest.Itoa(statement.ID))
	pages = append(pages, "/intake/"+webtest.Itoa(readDoc), "/intake/"+webtest.Itoa(readDoc)+"/type-in", "/admin/layouts")
	pages = append(pages, "/payment-runs", "/payment-runs/"+webtest.Itoa(payRun.ID), "/desk/due")
	pages = append(pages, "/upload", "/typewriter", "/typewriter/new", "/typewriter/"+webtest.Itoa(tw.ID),
		"/ledger", "/ledger/trial-balance", "/ledger/trial-balance?dimension=cost_center", "/ledger/source-keys", "/ledger/entries/"+webtest.Itoa(int64(entryID)),
		"/admin/dead-letters", "/admin/jobs/"+webtest.Itoa(int64(jobID)), "/admin/runs", "/no-such-page", "/intake/999999")
	if runID != "" {
		pages = append(pages, "/admin/runs/"+runID)
	}
	// States a page shows only with particular data (a question, an IBAN
	// alert, a rate, totals), checked present so that axe judges them too.
	shows := map[string][]string{
		"/desk":                                {"desk-question"},
		"/intake/" + webtest.Itoa(ibanChanged): {"iban-alert", "ap-checks"},
		"/ledger/entries/" + webtest.Itoa(usd.Entry.ID): {"entry-rate"},
		"/ledger/trial-balance":                         {"tb-totals"},
		"/intake/" + webtest.Itoa(pending):              {"coding-form", "coding-dimension", "coding-check"},
		"/admin/runs":                                   {"run-counts"},
		"/admin/supplier-rules":                         {"supplier-rule"},
		"/payment-runs":                                 {"propose-form", "run-row"},
		"/payment-runs/" + webtest.Itoa(payRun.ID):      {"run-item", "blocked-document", "confirm-form", "approve-run"},
		"/desk/due":                                     {"due-row", "due-total"},
		"/intake/" + webtest.Itoa(posted):               {"coding-grid", "payment-state"},
		"/admin/accounts":                               {"account", "account-create-form", "accounts-import-form"},
		"/admin/dimensions":                             {"dimension-value", "dimension-create-form", "values-import-form", "value-add-form"},
		"/admin/org":                                    {"org-settings-form", "default-account-form", "base-currency-form", "exchange-rate", "supplier-rules-link"},
	}
	shows["/intake/"+webtest.Itoa(readDoc)] = []string{"read-source", "read-uncertain"}
	shows["/intake/"+webtest.Itoa(readDoc)+"/type-in"] = []string{"read-page-image", "read-box", "read-note", "read-totals"}
	shows["/admin/layouts"] = []string{"layout", "layouts-reset"}
	shows["/bank-statements"] = []string{"statement-import-form", "bank-statement"}
	shows["/bank-statements/"+webtest.Itoa(statement.ID)] = []string{"statement-summary", "unmatched-line"}
	for _, path := range pages {
		_, err := p.Goto(path)
		webtest.Must(t, err)
		for _, testid := range shows[path] {
			webtest.Must(t, expect.Locator(p.GetByTestId(testid).First()).ToBeVisible())
		}
		assertAccessible(t, p)
	}

	// The org settings re-rendered with an error (422).
	_, err = p.Goto("/admin/org")
	webtest.Must(t, err)
	webtest.Must(t, p.Locator("#org-max-age").Fill("500"))
	_, err = p.Evaluate(`() => { const f = document.querySelector("[data-testid=org-settings-form]"); f.noValidate = true; f.requestSubmit(); }`)
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("org-settings-error")).ToBeVisible())
	assertAccessible(t, p)
	// A refused change of a setting (409: a rate is remembered).
	_, err = p.Goto("/admin/org")
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("base-currency").Fill("CHF"))
	webtest.Must(t, p.GetByTestId("base-currency-save").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("org-settings-refusal")).ToBeVisible())
	assertAccessible(t, p)

	// The reversal's two steps on a ledger entry: the form asking for a
	// reason, the confirmation after one, and the form again when the
	// reason is too short.
	_, err = p.Goto("/ledger/entries/" + webtest.Itoa(int64(entryID)))
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("reverse-reason").Fill("booked twice"))
	webtest.Must(t, p.GetByTestId("reverse").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("reverse-confirm-button")).ToBeVisible())
	assertAccessible(t, p)
	_, err = p.Goto("/ledger/entries/" + webtest.Itoa(int64(entryID)))
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("reverse-reason").Fill("x"))
	_, err = p.Evaluate(`() => { const f = document.querySelector("[data-testid=reverse-form]"); f.noValidate = true; f.requestSubmit(); }`)
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("reverse-problem")).ToBeVisible())
	assertAccessible(t, p)

	// The bank statements page with a refused file (422).
	_, err = p.Goto("/bank-statements")
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("statement-file").SetInputFiles([]playwright.InputFile{{Name: "statement.xml", MimeType: "application/xml",
		Buffer: []byte("not a statement")}}))
	webtest.Must(t, p.GetByTestId("statement-import").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("statement-error")).ToBeVisible())
	assertAccessible(t, p)

	// The upload page with a file's result shown.
	_, err = p.Goto("/upload")
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("upload-input").SetInputFiles([]playwright.InputFile{{Name: "again.json", MimeType: "application/json", Buffer: webtest.JSONInvoice("UP-1")}}))
	webtest.Must(t, p.GetByTestId("upload-submit").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("upload-result")).ToHaveCount(1))
	assertAccessible(t, p)

	// A document opened from a sorted desk: the queue's previous and next links.
	_, err = p.Goto("/desk?tab=all&sort=amount")
	webtest.Must(t, err)
	href, err := p.GetByTestId("queue-row").Nth(1).GetAttribute("data-href")
	webtest.Must(t, err)
	_, err = p.Goto(href)
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("queue-previous")).ToHaveCount(1))
	assertAccessible(t, p)

	// A phone's width (390 px): the sign-in page and every page above again,
	// where tables scroll sideways inside their wrappers.
	phone := browser.NewPage(t, a.URL, browser.Options{Width: 390, Height: 844})
	_, err = phone.Goto("/signin")
	webtest.Must(t, err)
	assertAccessible(t, phone)
	signInWith(t, phone, admin.Email, testkit.TestPassword)
	webtest.Must(t, expect.Locator(phone.GetByTestId("current-user")).ToBeVisible())
	for _, path := range pages {
		_, err := phone.Goto(path)
		webtest.Must(t, err)
		for _, testid := range shows[path] {
			webtest.Must(t, expect.Locator(phone.GetByTestId(testid).First()).ToBeAttached())
		}
		assertAccessible(t, phone)
	}

	// A reviewer's view: the panel of a dead letter, and the 403 of an admin page.
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	rp := signedIn(t, a, reviewer)
	for _, path := range []string{"/desk", "/intake/" + webtest.Itoa(dead), "/admin/dead-letters"} {
		_, err := rp.Goto(path)
		webtest.Must(t, err)
		assertAccessible(t, rp)
	}
}
