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
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
	"greatbook/internal/testkit/browser"
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
		must(t, err)
		_, err = p.Evaluate(string(src) + "\n;undefined")
		must(t, err)
	}
	raw, err := p.Evaluate(`async () => {
		const r = await axe.run(document, { resultTypes: ["violations"] });
		return JSON.stringify(r.violations.filter(v => v.impact === "serious" || v.impact === "critical"));
	}`)
	must(t, err)
	var vs []axeViolation
	must(t, json.Unmarshal([]byte(raw.(string)), &vs))
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
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	admin := testkit.User(t, a.db, o, auth.RoleAdmin)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, admin)}
	ctx := context.Background()

	// A posted document and a flagged copy of it (the group diagram).
	posted, duplicate := twoCopies(t, c)
	if code, body := c.postJSON("/api/v1/intake/"+itoa(posted)+"/approve", ""); code != 200 {
		t.Fatalf("approve: %d %v", code, body)
	}
	c.waitStatus(float64(posted), "posted")
	entryID := testkit.Count(t, a.db, `SELECT result_entry_id FROM intake_documents WHERE id = $1`, posted)
	invalid := filed(t, c, brokenCopy(t, "NK-BROKEN-1"), "flagged")
	// A dead letter.
	fix := breakLaunches(a, "bookkeeper pool refused the run (injected)")
	code, body := c.do("POST", "/api/v1/documents", "application/json", jsonInvoice("DL-1"))
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	dead := int64(body["intake_id"].(float64))
	c.waitStatus(float64(dead), "pending")
	c.postJSON("/api/v1/intake/"+itoa(dead)+"/approve", "")
	fix()
	jobID := testkit.Count(t, a.db, `SELECT id FROM jobs WHERE intake_id = $1`, dead)
	runID := ""
	must(t, a.db.Pool.QueryRow(ctx, `SELECT coalesce(max(id::text), '') FROM runs`).Scan(&runID))
	code, body = c.do("POST", "/api/v1/documents", "application/json", []byte(strings.Replace(string(jsonInvoice("P-1")), `"quantity":"10"`, `"quantity":"11"`, 1)))
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	pending := int64(body["intake_id"].(float64))
	c.waitStatus(float64(pending), "pending")
	// A document of the typewriter, submitted: the version chain.
	d, err := ownjson.Parse(jsonInvoice("TW-1"))
	must(t, err)
	tw, err := a.app.Typewriter.Compose(ctx, o.ID, d, admin.Actor())
	must(t, err)
	chainDoc, err := a.app.Typewriter.Submit(ctx, o.ID, tw.Versions[0].ID, admin.Actor())
	must(t, err)

	// A supplier rule (the supplier-rules page lists it).
	if _, err := a.db.Pool.Exec(ctx, `INSERT INTO supplier_accounts (org_id, supplier_key, account_id, created_by)
		SELECT $1, 'SE556677889901', id, 'test' FROM accounts WHERE org_id = $1 AND code = '6200'`, o.ID); err != nil {
		t.Fatal(err)
	}
	// A remembered exchange rate (the org settings page lists it).
	if _, err := a.db.Pool.Exec(ctx, `INSERT INTO exchange_rates (org_id, currency, rate_date, rate, created_by)
		VALUES ($1, 'GBP', '2026-01-02', 13.1, 'test') ON CONFLICT DO NOTHING`, o.ID); err != nil {
		t.Fatal(err)
	}
	// A supplier's changed bank account and a due date passed at arrival
	// (the IBAN alert and the AP checks): two posted invoices paid to one
	// account, a third asking for another.
	s := apSite{site: a, api: c, orgID: o.ID}
	apBill := func(number, due, iban string) []byte {
		return bytes.Replace(apInvoice(number, "SE556677889901", day(-3), due, "Acme AB", "", iban),
			[]byte(`"currency": "EUR"`), []byte(`"currency": "SEK"`), 1)
	}
	for _, number := range []string{"IBAN-1", "IBAN-2"} {
		id := s.file(t, apBill(number, day(27), "SE45 5000 0000 0583 9825 7466"))
		if code, body := c.postJSON("/api/v1/intake/"+itoa(id)+"/approve", ""); code != 200 {
			t.Fatalf("approve %d: %d %v", id, code, body)
		}
		c.waitStatus(float64(id), "posted")
	}
	ibanChanged := s.file(t, apBill("IBAN-3", day(-1), "SE35 5000 0000 0549 1000 0003"))
	// A bookkeeper's question on the desk: a bill in EUR asks for the rate.
	asks := s.file(t, apInvoice("RATE-1", "DE999999999", day(-3), day(27), "Acme AB", "", ""))
	if code, body := c.postJSON("/api/v1/intake/"+itoa(asks)+"/approve", ""); code != 200 {
		t.Fatalf("approve %d: %d %v", asks, code, body)
	}
	openQuestion(t, a, o, asks)
	// A foreign-currency entry: USD lines with their SEK base amounts.
	dec := decimal.RequireFromString
	base := dec("1050.00")
	usd, err := ledger.Post(ctx, a.db.Pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: o.ID, SourceType: "payroll", SourceID: "usd", EntrySet: "bill"},
		Date:      "2026-12-01", Currency: "USD", Description: "Acme Inc. INV-9", Actor: "test",
		Lines: []ledger.Line{{Account: "6000", Debit: dec("100.00"), BaseDebit: &base}, {Account: "2000", Credit: dec("100.00"), BaseCredit: &base}},
	})
	must(t, err)

	p := browser.NewPage(t, a.URL)
	_, err = p.Goto("/signin")
	must(t, err)
	assertAccessible(t, p)
	signInWith(t, p, admin.Email, testkit.TestPassword)
	must(t, expect.Locator(p.GetByTestId("current-user")).ToBeVisible())

	// Every HTML page route of web/server.go is visited below. Deliberately
	// not visited on their own: the htmx fragments (/intake/:id/decision,
	// /compare, /watch, /upload/documents/:id, /typewriter/:id/diff): they
	// re-render regions the full pages show, where axe checks them; /intake/:id/original and
	// /typewriter/versions/:id/pdf (the PDF or XML itself); /metrics and
	// /healthz (not HTML); "/" (a redirect to /desk).
	pages := []string{"/desk"}
	for _, tab := range []string{"review", "flagged", "approved", "posted", "reversed", "rejected", "all"} {
		pages = append(pages, "/desk?tab="+tab)
	}
	for _, id := range []int64{pending, duplicate, posted, invalid, dead, chainDoc.ID} {
		pages = append(pages, "/intake/"+itoa(id))
	}
	for _, id := range []int64{ibanChanged, asks} {
		pages = append(pages, "/intake/"+itoa(id))
	}
	pages = append(pages, "/intake/"+itoa(pending)+"/type-in", "/typewriter/"+itoa(tw.ID)+"/revise",
		"/ledger/entries/"+itoa(usd.Entry.ID), "/admin/supplier-rules", "/admin/org")
	pages = append(pages, "/upload", "/typewriter", "/typewriter/new", "/typewriter/"+itoa(tw.ID),
		"/ledger", "/ledger/trial-balance", "/ledger/source-keys", "/ledger/entries/"+itoa(int64(entryID)),
		"/admin/dead-letters", "/admin/jobs/"+itoa(int64(jobID)), "/admin/runs", "/no-such-page", "/intake/999999")
	if runID != "" {
		pages = append(pages, "/admin/runs/"+runID)
	}
	// States a page shows only with particular data (a question, an IBAN
	// alert, a rate, totals), checked present so that axe judges them too.
	shows := map[string][]string{
		"/desk":                                 {"desk-question"},
		"/intake/" + itoa(ibanChanged):          {"iban-alert", "ap-checks"},
		"/ledger/entries/" + itoa(usd.Entry.ID): {"entry-rate"},
		"/ledger/trial-balance":                 {"tb-totals"},
		"/admin/runs":                           {"run-counts"},
		"/admin/supplier-rules":                 {"supplier-rule"},
		"/admin/org":                            {"org-settings-form", "default-account-form", "base-currency-form", "exchange-rate", "supplier-rules-link"},
	}
	for _, path := range pages {
		_, err := p.Goto(path)
		must(t, err)
		for _, testid := range shows[path] {
			must(t, expect.Locator(p.GetByTestId(testid).First()).ToBeVisible())
		}
		assertAccessible(t, p)
	}

	// The org settings re-rendered with an error (422).
	_, err = p.Goto("/admin/org")
	must(t, err)
	must(t, p.Locator("#org-max-age").Fill("500"))
	_, err = p.Evaluate(`() => { const f = document.querySelector("[data-testid=org-settings-form]"); f.noValidate = true; f.requestSubmit(); }`)
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("org-settings-error")).ToBeVisible())
	assertAccessible(t, p)
	// A refused change of a setting (409: a rate is remembered).
	_, err = p.Goto("/admin/org")
	must(t, err)
	must(t, p.GetByTestId("base-currency").Fill("CHF"))
	must(t, p.GetByTestId("base-currency-save").Click())
	must(t, expect.Locator(p.GetByTestId("org-settings-refusal")).ToBeVisible())
	assertAccessible(t, p)

	// The reversal's two steps on a ledger entry: the form asking for a
	// reason, the confirmation after one, and the form again when the
	// reason is too short.
	_, err = p.Goto("/ledger/entries/" + itoa(int64(entryID)))
	must(t, err)
	must(t, p.GetByTestId("reverse-reason").Fill("booked twice"))
	must(t, p.GetByTestId("reverse").Click())
	must(t, expect.Locator(p.GetByTestId("reverse-confirm-button")).ToBeVisible())
	assertAccessible(t, p)
	_, err = p.Goto("/ledger/entries/" + itoa(int64(entryID)))
	must(t, err)
	must(t, p.GetByTestId("reverse-reason").Fill("x"))
	_, err = p.Evaluate(`() => { const f = document.querySelector("[data-testid=reverse-form]"); f.noValidate = true; f.requestSubmit(); }`)
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("reverse-problem")).ToBeVisible())
	assertAccessible(t, p)

	// The upload page with a file's result shown.
	_, err = p.Goto("/upload")
	must(t, err)
	must(t, p.GetByTestId("upload-input").SetInputFiles([]playwright.InputFile{{Name: "again.json", MimeType: "application/json", Buffer: jsonInvoice("UP-1")}}))
	must(t, p.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(p.GetByTestId("upload-result")).ToHaveCount(1))
	assertAccessible(t, p)

	// A document opened from a sorted desk: the queue's previous and next links.
	_, err = p.Goto("/desk?tab=all&sort=amount")
	must(t, err)
	href, err := p.GetByTestId("queue-row").Nth(1).GetAttribute("data-href")
	must(t, err)
	_, err = p.Goto(href)
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("queue-previous")).ToHaveCount(1))
	assertAccessible(t, p)

	// A phone's width (390 px): the sign-in page and every page above again,
	// where tables scroll sideways inside their wrappers.
	phone := browser.NewPage(t, a.URL, browser.Options{Width: 390, Height: 844})
	_, err = phone.Goto("/signin")
	must(t, err)
	assertAccessible(t, phone)
	signInWith(t, phone, admin.Email, testkit.TestPassword)
	must(t, expect.Locator(phone.GetByTestId("current-user")).ToBeVisible())
	for _, path := range pages {
		_, err := phone.Goto(path)
		must(t, err)
		for _, testid := range shows[path] {
			must(t, expect.Locator(phone.GetByTestId(testid).First()).ToBeAttached())
		}
		assertAccessible(t, phone)
	}

	// A reviewer's view: the panel of a dead letter, and the 403 of an admin page.
	reviewer := testkit.User(t, a.db, o, auth.RoleReviewer)
	rp := a.signedIn(t, reviewer)
	for _, path := range []string{"/desk", "/intake/" + itoa(dead), "/admin/dead-letters"} {
		_, err := rp.Goto(path)
		must(t, err)
		assertAccessible(t, rp)
	}
}
