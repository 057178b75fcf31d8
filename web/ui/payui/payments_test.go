package payui_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// Valid IBANs, and one whose check digits are wrong.
const (
	acmeOld = "DE89370400440532013000"
	acmeNew = "GB29NWBK60161331926819"
	zetaOK  = "FR1420041010050500013M02606"
	badIBAN = "DE89370400440532013001"
	ourIBAN = "NL91ABNA0417164300"
)

// payClient is an admin's client with its CSRF token.
type payClient struct {
	t    *testing.T
	a    *webtest.Site
	c    *http.Client
	csrf string
}

func (p payClient) post(path string, form url.Values, htmx bool) *http.Response {
	p.t.Helper()
	form.Set("_csrf", p.csrf)
	req, _ := http.NewRequest("POST", p.a.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	return resp
}

func (p payClient) page(path string) *goquery.Document {
	p.t.Helper()
	resp := webtest.Get(p.t, p.c, p.a.URL+path)
	if resp.StatusCode != http.StatusOK {
		p.t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	return webtest.Doc(p.t, resp)
}

func wantStatus(t *testing.T, resp *http.Response, status int) {
	t.Helper()
	if resp.StatusCode != status {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %d, want %d: %.400s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, status, body)
	}
}

// An admin proposes a run on the page (refused, with the way to org
// settings, while the org has no bank account), sees its items and what it
// blocked and why, removes an item, confirms accounts under the four-eyes
// rule, approves and downloads the file; cancelling is refused inline after.
// The document pages say where each invoice stands, and a reviewer sees no
// pay runs.
func TestPayRunPages(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	ann, bob := testkit.User(t, a.DB, o, auth.RoleAdmin), testkit.User(t, a.DB, o, auth.RoleAdmin)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	paid := webtest.PostedBill(t, a, o, ann, webtest.Bill{Supplier: "Acme", Number: "A-1", Payable: "10", IBAN: acmeOld})
	webtest.PaidBefore(t, a, o, paid, acmeOld)
	changed := webtest.PostedBill(t, a, o, ann, webtest.Bill{Supplier: "Acme", Number: "A-2", Payable: "336.90", Due: "2026-12-01", IBAN: acmeNew})
	zeta := webtest.PostedBill(t, a, o, ann, webtest.Bill{Supplier: "Zeta", Number: "Z-1", Payable: "100", IBAN: zetaOK})
	beta := webtest.PostedBill(t, a, o, ann, webtest.Bill{Supplier: "Beta", Number: "B-1", Payable: "5", IBAN: acmeOld})
	invalid := webtest.PostedBill(t, a, o, ann, webtest.Bill{Supplier: "Gamma", Number: "G-1", Payable: "7", IBAN: badIBAN})
	annC := a.Client(t)
	pa := payClient{t: t, a: a, c: annC, csrf: a.SignIn(t, annC, ann)}
	bobC := a.Client(t)
	pb := payClient{t: t, a: a, c: bobC, csrf: a.SignIn(t, bobC, bob)}

	list := pa.page("/payment-runs")
	if list.Find(`nav a[href="/payment-runs"]`).AttrOr("aria-current", "") != "page" || list.Find(`[data-testid=run-row]`).Length() != 1 {
		t.Fatal("the pay runs page is not the nav's current entry, or does not list the earlier run alone")
	}
	if list.Find(`[data-testid=execution-date]`).AttrOr("value", "") != time.Now().UTC().Format(time.DateOnly) {
		t.Fatal("the execution date is not today by default")
	}
	resp := pa.post("/payment-runs", url.Values{"execution_date": {"2026-12-10"}, "due_until": {"2026-12-31"}}, false)
	wantStatus(t, resp, http.StatusUnprocessableEntity)
	refused := webtest.Doc(t, resp)
	if !strings.Contains(refused.Find(`[data-testid=propose-error]`).Text(), "no bank account") ||
		refused.Find(`[data-testid=org-settings-link]`).AttrOr("href", "") != "/admin/org" ||
		refused.Find(`[data-testid=due-until]`).AttrOr("value", "") != "2026-12-31" {
		t.Fatalf("the refusal reads %q", refused.Find(`[data-testid=payment-runs]`).Text())
	}

	webtest.SetBankAccount(t, a, o, ourIBAN, "ABNANL2A")
	resp = pa.post("/payment-runs", url.Values{"execution_date": {"2026-12-10"}, "due_until": {"2026-12-31"}}, false)
	wantStatus(t, resp, http.StatusSeeOther)
	runPath := resp.Header.Get("Location")
	run := pa.page(runPath)
	if !strings.Contains(run.Find(`[data-testid=flash]`).Text(), "2 items, 2 documents not in it") {
		t.Fatalf("the flash reads %q", run.Find(`[data-testid=flash]`).Text())
	}
	items := run.Find(`[data-testid=run-item]`)
	if items.Length() != 2 || items.First().AttrOr("data-intake-id", "") != webtest.Itoa(zeta) ||
		!strings.Contains(items.First().Text(), "FR14 •••• 2606") || strings.Contains(items.First().Text(), zetaOK) ||
		!strings.HasPrefix(items.First().Find(`[data-testid=item-end-to-end-id]`).Text(), "GB-") {
		t.Fatalf("the items read %q", items.Text())
	}
	reasons := map[string]string{}
	run.Find(`[data-testid=blocked-document]`).Each(func(_ int, s *goquery.Selection) {
		reasons[s.AttrOr("data-intake-id", "")] = s.Find(`[data-testid=blocked-reason]`).Text()
	})
	if !strings.Contains(reasons[webtest.Itoa(changed)], "IBAN changed since the supplier was last paid: another admin must confirm it") ||
		!strings.Contains(reasons[webtest.Itoa(invalid)], "not a valid one") || len(reasons) != 2 {
		t.Fatalf("blocked: %v", reasons)
	}
	if run.Find(`[data-intake-id="`+webtest.Itoa(invalid)+`"] [data-testid=corrected-iban]`).Length() != 1 {
		t.Fatal("no input for the corrected IBAN of the invalid one")
	}

	// Ann approved the invoice: the four-eyes rule refuses her confirmation,
	// beside the document, on the page and in the region htmx swaps.
	confirm := url.Values{"intake_id": {webtest.Itoa(changed)}}
	resp = pa.post(runPath+"/confirm", confirm, false)
	wantStatus(t, resp, http.StatusForbidden)
	d := webtest.Doc(t, resp)
	if out := d.Find(`[data-intake-id="` + webtest.Itoa(changed) + `"] [data-testid=run-outcome]`); out.AttrOr("data-outcome", "") != "separation_of_duties" ||
		!strings.Contains(out.Text(), "another admin must") {
		t.Fatalf("the refusal reads %q", d.Find(`[data-testid=payment-run]`).Text())
	}
	resp = pa.post(runPath+"/confirm", url.Values{"intake_id": {webtest.Itoa(invalid)}, "iban": {"DE44 5001 0517 5407 3249 31"}}, true)
	wantStatus(t, resp, http.StatusForbidden)
	d = webtest.Doc(t, resp)
	if d.Find(`header`).Length() != 0 || d.Find(`#payment-run [data-intake-id="`+webtest.Itoa(invalid)+`"] [data-testid=run-outcome]`).Length() != 1 ||
		d.Find(`[data-testid=corrected-iban]`).AttrOr("value", "") != "DE44 5001 0517 5407 3249 31" {
		t.Fatal("htmx's refusal is not the run's region with the outcome beside the document and the IBAN as typed")
	}

	// Bob confirms both; they are no longer blocked.
	wantStatus(t, pb.post(runPath+"/confirm", confirm, false), http.StatusSeeOther)
	resp = pb.post(runPath+"/confirm", url.Values{"intake_id": {webtest.Itoa(invalid)}, "iban": {"DE44 5001 0517 5407 3249 31"}}, true)
	wantStatus(t, resp, http.StatusOK)
	d = webtest.Doc(t, resp)
	if out := d.Find(`[data-testid=run-outcome]`); out.AttrOr("data-outcome", "") != "done" || !strings.Contains(out.Text(), "DE44 •••• 4931") ||
		d.Find(`[data-testid=blocked-document]`).Length() != 0 {
		t.Fatalf("after the confirmations: %q", d.Text())
	}

	// Remove beta's item; approve; cancelling after the download is refused.
	betaItem := run.Find(`[data-testid=run-item][data-intake-id="`+webtest.Itoa(beta)+`"]`).AttrOr("data-item-id", "")
	resp = pa.post(runPath+"/items/"+betaItem+"/remove", url.Values{}, true)
	wantStatus(t, resp, http.StatusOK)
	if d := webtest.Doc(t, resp); d.Find(`[data-testid=run-item]`).Length() != 1 || !strings.Contains(d.Find(`[data-testid=run-total]`).Text(), "100.00") {
		t.Fatalf("after the removal: %q", d.Find(`[data-testid=run-items]`).Text())
	}
	resp = pa.post(runPath+"/approve", url.Values{}, true)
	wantStatus(t, resp, http.StatusOK)
	if d := webtest.Doc(t, resp); d.Find(`#payment-run`).AttrOr("data-status", "") != "approved" ||
		d.Find(`[data-testid=download-file]`).AttrOr("href", "") != runPath+"/pain.001" || d.Find(`[data-testid=approve-run]`).Length() != 0 {
		t.Fatal("the approved run offers no download, or still an approval")
	}
	file := webtest.Get(t, pa.c, a.URL+runPath+"/pain.001")
	body, _ := io.ReadAll(file.Body)
	file.Body.Close()
	if file.StatusCode != 200 || file.Header.Get("Content-Type") != "application/xml" ||
		!strings.HasPrefix(file.Header.Get("Content-Disposition"), "attachment") || !strings.Contains(string(body), "<EndToEndId>GB-") {
		t.Fatalf("the file: %d %v %.200s", file.StatusCode, file.Header, body)
	}
	resp = pa.post(runPath+"/cancel", url.Values{}, true)
	wantStatus(t, resp, http.StatusConflict)
	if out := webtest.Doc(t, resp).Find(`[data-testid=run-outcome]`); out.AttrOr("data-outcome", "") != "refused" || !strings.Contains(out.Text(), "is sent") {
		t.Fatalf("the cancel's refusal reads %q", out.Text())
	}

	// The list, and the documents' pages.
	runID := strings.TrimPrefix(runPath, "/payment-runs/")
	row := pa.page("/payment-runs").Find(`[data-testid=run-row][data-run-id="` + runID + `"]`)
	if row.AttrOr("data-status", "") != "sent" || row.Find(`[data-testid=run-item-count]`).Text() != "1" || !strings.Contains(row.Find(`[data-testid=run-total]`).Text(), "100.00") {
		t.Fatalf("the run's row reads %q", row.Text())
	}
	state := func(id int64) *goquery.Selection {
		return pa.page("/intake/" + webtest.Itoa(id)).Find(`[data-testid=payment-state]`)
	}
	if s := state(zeta); s.AttrOr("data-status", "") != "sent" || s.Find(`[data-testid=payment-run-link]`).AttrOr("href", "") != runPath ||
		!strings.Contains(s.Text(), "Sent in pay run "+runID) {
		t.Fatalf("zeta's payment reads %q", s.Text())
	}
	if s := state(beta); s.AttrOr("data-status", "") != "unpaid" || !strings.Contains(s.Text(), "Unpaid") {
		t.Fatalf("beta's payment reads %q", s.Text())
	}
	var entry int64
	webtest.Must(t, a.DB.Pool.QueryRow(t.Context(), `SELECT result_entry_id FROM intake_documents WHERE id = $1`, zeta).Scan(&entry))
	if _, err := a.DB.Pool.Exec(t.Context(), `UPDATE payment_items SET status = 'paid', entry_id = $2, paid_at = now() WHERE intake_id = $1`, zeta, entry); err != nil {
		t.Fatal(err)
	}
	if s := state(zeta); s.AttrOr("data-status", "") != "paid" || s.Find(`[data-testid=payment-entry]`).AttrOr("href", "") != "/ledger/entries/"+webtest.Itoa(entry) {
		t.Fatalf("zeta's payment reads %q", s.Text())
	}

	// A reviewer sees the state, without a link to runs they may not open.
	rc := a.Client(t)
	a.SignIn(t, rc, reviewer)
	rp := payClient{t: t, a: a, c: rc}
	if s := rp.page("/intake/" + webtest.Itoa(zeta)).Find(`[data-testid=payment-state]`); s.Find(`[data-testid=payment-run-link]`).Length() != 0 ||
		!strings.Contains(s.Text(), "pay run "+runID) {
		t.Fatalf("the reviewer's payment state reads %q", s.Text())
	}
	if rp.page("/desk").Find(`nav a[href="/payment-runs"]`).Length() != 0 {
		t.Fatal("a reviewer's nav offers pay runs")
	}
	for _, path := range []string{"/payment-runs", runPath, runPath + "/pain.001"} {
		if resp := webtest.Get(t, rc, a.URL+path); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a reviewer's GET %s: %d, want 403", path, resp.StatusCode)
		}
	}
}

// The desk's due tab lists the posted invoices still to pay by Sunday,
// overdue ones marked, with their total; not one in a run nor one due
// next week.
func TestDueThisWeekTab(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, _, c, _ := a.SignedInClient(t, auth.RoleReviewer)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)
	overdue := webtest.PostedBill(t, a, o, admin, webtest.Bill{Supplier: "Acme", Number: "A-1", Payable: "10.50", Due: webtest.Day(-3), IBAN: acmeOld})
	noDue := webtest.PostedBill(t, a, o, admin, webtest.Bill{Supplier: "Acme", Number: "A-2", Payable: "2"})
	webtest.PostedBill(t, a, o, admin, webtest.Bill{Supplier: "Acme", Number: "A-3", Payable: "2", Due: webtest.Day(8)})
	inRun := webtest.PostedBill(t, a, o, admin, webtest.Bill{Supplier: "Zeta", Number: "Z-1", Payable: "5", Due: webtest.Day(-1), IBAN: zetaOK})
	webtest.PaidBefore(t, a, o, inRun, zetaOK)
	if _, err := a.DB.Pool.Exec(t.Context(), `UPDATE payment_items SET status = 'sent' WHERE intake_id = $1`, inRun); err != nil {
		t.Fatal(err)
	}

	d := webtest.Doc(t, webtest.Get(t, c, a.URL+"/desk/due"))
	if d.Find(`[data-testid=tab-due]`).AttrOr("aria-current", "") != "page" || d.Find(`[data-testid=tab-review]`).AttrOr("aria-current", "") != "" {
		t.Fatal("the due tab is not the current one")
	}
	rows := d.Find(`[data-testid=due-row]`)
	var ids []string
	rows.Each(func(_ int, s *goquery.Selection) { ids = append(ids, s.AttrOr("data-document-id", "")) })
	if strings.Join(ids, ",") != webtest.Itoa(overdue)+","+webtest.Itoa(noDue) {
		t.Fatalf("due rows %v", ids)
	}
	if first := rows.First(); first.AttrOr("data-overdue", "") != "true" || !strings.Contains(first.Find(`[data-testid=due-date]`).Text(), "overdue") ||
		!strings.Contains(d.Find(`[data-testid=due-total]`).Text(), "12.50") || d.Find(`[data-testid=due-propose]`).Length() != 0 {
		t.Fatalf("the due list reads %q", d.Find(`[data-testid=due]`).Text())
	}
	if webtest.Doc(t, webtest.Get(t, c, a.URL+"/desk")).Find(`[data-testid=tab-due]`).AttrOr("href", "") != "/desk/due" {
		t.Fatal("the desk has no due tab")
	}
}
