package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/apchecks"
	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

// apPrice makes every apInvoice's amount its own, so that none is filed as
// a renumbered copy of another.
var apPrice atomic.Int64

// apInvoice is an invoice in the project's own JSON format, from seller,
// dated issue (and due, when not empty), to buyer, paid to iban.
func apInvoice(number, seller, issue, due, buyerName, buyerVAT, iban string) []byte {
	dueField := ""
	if due != "" {
		dueField = fmt.Sprintf(`"due_date": %q,`, due)
	}
	return fmt.Appendf(nil, `{"type": "invoice", "number": %q, "issue_date": %q, %s "currency": "EUR",
		"seller": {"name": "Payee GmbH", "vat_id": %q},
		"buyer": {"name": %q, "vat_id": %q}, "payee_iban": %q,
		"lines": [{"description": "Paper", "quantity": "1", "unit_price": "%d.00", "tax_rate": "19"}]}`,
		number, issue, dueField, seller, buyerName, buyerVAT, iban, 100+apPrice.Add(1))
}

// apSite is an app with a reviewer's API client and browser client in an
// org whose identity is Acme Handels GmbH, DE123456789.
type apSite struct {
	*site
	api   *apiClient
	web   *http.Client
	orgID int64
}

func newAPSite(t *testing.T, identity bool) apSite {
	a := newApp(t)
	o := testkit.Org(t, a.db)
	if identity {
		if _, err := org.SetIdentity(context.Background(), a.db.Pool, o.ID,
			org.Identity{LegalName: "Acme Handels GmbH", VATID: "DE123456789"}, audit.System("test")); err != nil {
			t.Fatal(err)
		}
	}
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := a.client(t)
	a.signIn(t, c, u)
	return apSite{site: a, api: &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}, web: c, orgID: o.ID}
}

// file ingests content through the API and waits until it is pending.
func (s apSite) file(t *testing.T, content []byte) int64 {
	t.Helper()
	return s.fileAs(t, "application/json", content)
}

func (s apSite) fileAs(t *testing.T, mediaType string, content []byte) int64 {
	t.Helper()
	code, body := s.api.do("POST", "/api/v1/documents", mediaType, content)
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	id := body["intake_id"].(float64)
	s.api.waitStatus(id, "pending")
	return int64(id)
}

// apFindings are the API's findings of document id with a code of the AP checks.
func (s apSite) apFindings(t *testing.T, id int64) map[string]map[string]any {
	t.Helper()
	_, doc := s.api.get("/api/v1/intake/" + itoa(id))
	out := map[string]map[string]any{}
	list, _ := doc["findings"].([]any)
	for _, f := range list {
		m := f.(map[string]any)
		switch m["code"] {
		case apchecks.CodeBuyerNotThisOrg, apchecks.CodeIssueDateOld, apchecks.CodeIssueDateFuture,
			apchecks.CodeDueAtArrival, apchecks.CodeSupplierIBANDiff, apchecks.CodeIBANCharacters, apchecks.CodeIBANLength,
			apchecks.CodeIBANChecksum:
			out[m["code"].(string)] = m
		}
	}
	if doc["status"] != "pending" && doc["status"] != "posted" || doc["flag_reason"] != nil {
		t.Errorf("a warning changed the document: status %v, flag %v", doc["status"], doc["flag_reason"])
	}
	return out
}

func (s apSite) page(t *testing.T, id int64) *goquery.Document {
	t.Helper()
	resp, err := s.web.Get(s.URL + "/intake/" + itoa(id))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("page of %d: %d", id, resp.StatusCode)
	}
	return doc(t, resp)
}

// pageCodes are the AP checks the page shows, with their messages.
func pageCodes(d *goquery.Document) map[string]string {
	out := map[string]string{}
	d.Find(`[data-testid=ap-checks] [data-testid=ap-finding]`).Each(func(_ int, s *goquery.Selection) {
		code, _ := s.Attr("data-code")
		out[code] = strings.TrimSpace(s.Find(`[data-testid=ap-finding-message]`).Text())
	})
	return out
}

func day(offsetDays int) string {
	return time.Now().UTC().AddDate(0, 0, offsetDays).Format(time.DateOnly)
}

// Each AP check says what it found in the API's findings (a warning with a
// code and a message) and on the document's page in plain words; a proper
// invoice shows none, and none of them flags the document or blocks its
// approval.
func TestAPChecksInTheAPIAndOnThePage(t *testing.T) {
	t.Parallel()
	s := newAPSite(t, true)
	tests := []struct {
		name, code, says string
		content          []byte
	}{
		{name: "proper", content: apInvoice("OK-1", "DE999999999", day(-3), day(27), "ACME Handels GmbH", "DE 123 456 789", "")},
		{name: "proper by name alone", content: apInvoice("OK-2", "DE999999999", day(-3), day(27), "acme handels gmbh.", "", "")},
		{name: "buyer VAT id", code: apchecks.CodeBuyerNotThisOrg, says: "DE987654321",
			content: apInvoice("BUY-1", "DE999999999", day(-3), day(27), "Acme Handels GmbH", "DE987654321", "")},
		{name: "buyer name", code: apchecks.CodeBuyerNotThisOrg, says: "Other Trading Ltd",
			content: apInvoice("BUY-2", "DE999999999", day(-3), day(27), "Other Trading Ltd", "", "")},
		{name: "far in the past", code: apchecks.CodeIssueDateOld, says: "more than 18 months",
			content: apInvoice("OLD-1", "DE999999999", day(-600), "", "Acme Handels GmbH", "DE123456789", "")},
		{name: "in the future", code: apchecks.CodeIssueDateFuture, says: "in the future",
			content: apInvoice("FUT-1", "DE999999999", day(5), day(35), "Acme Handels GmbH", "DE123456789", "")},
		{name: "due before arrival", code: apchecks.CodeDueAtArrival, says: "overdue",
			content: apInvoice("DUE-1", "DE999999999", day(-40), day(-10), "Acme Handels GmbH", "DE123456789", "")},
		{name: "proper IBAN", content: apInvoice("IBAN-0", "DE999999999", day(-3), day(27), "Acme Handels GmbH", "DE123456789", "gb29 nwbk 6016 1331 9268 19")},
		{name: "a Cyrillic letter in the IBAN", code: apchecks.CodeIBANCharacters, says: "U+0412 CYRILLIC CAPITAL LETTER VE",
			content: apInvoice("IBAN-1", "DE999999999", day(-3), day(27), "Acme Handels GmbH", "DE123456789", "GB33 \u0412UKB 2020 1555 5555 55")},
		{name: "an IBAN whose check digits fail", code: apchecks.CodeIBANChecksum, says: "check digits",
			content: apInvoice("IBAN-2", "DE999999999", day(-3), day(27), "Acme Handels GmbH", "DE123456789", "DE89 3704 0044 0532 0130 01")},
		{name: "an IBAN too short for its country", code: apchecks.CodeIBANLength, says: "an IBAN of DE has 22",
			content: apInvoice("IBAN-3", "DE999999999", day(-3), day(27), "Acme Handels GmbH", "DE123456789", "DE89 3704 0044 0532 0130 0")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := s.file(t, tt.content)
			api, page := s.apFindings(t, id), pageCodes(s.page(t, id))
			if tt.code == "" {
				if len(api) != 0 || len(page) != 0 {
					t.Fatalf("a proper invoice warns: API %v, page %v", api, page)
				}
				return
			}
			f, ok := api[tt.code]
			if !ok || len(api) != 1 || f["severity"] != "warning" || !strings.Contains(f["message"].(string), tt.says) {
				t.Fatalf("API findings %v, want one warning %s saying %q", api, tt.code, tt.says)
			}
			if msg, ok := page[tt.code]; !ok || len(page) != 1 || msg != f["message"] {
				t.Fatalf("page shows %v, want %s: %s", page, tt.code, f["message"])
			}
		})
	}
	// A warned document can still be approved.
	id := s.file(t, apInvoice("DUE-2", "DE999999999", day(-40), day(-10), "Other Trading Ltd", "", ""))
	if code, body := s.api.do("POST", "/api/v1/intake/"+itoa(id)+"/approve", "", nil); code != 200 {
		t.Fatalf("approve of a warned document: %d %v", code, body)
	}
}

// Without an identity set, the org has said nothing to compare the buyer
// with, so the buyer check says nothing.
func TestAPBuyerCheckIsSilentWithoutAnIdentity(t *testing.T) {
	t.Parallel()
	s := newAPSite(t, false)
	id := s.file(t, apInvoice("ANY-1", "DE999999999", day(-3), day(27), "Somebody Else AB", "SE556677889901", ""))
	if api, page := s.apFindings(t, id), pageCodes(s.page(t, id)); len(api) != 0 || len(page) != 0 {
		t.Fatalf("API %v, page %v", api, page)
	}
}

// The payment-fraud signal: two posted invoices of a supplier paid to IBAN
// A, a third asking for IBAN B warns — at the top of its page, in an alert
// of its own naming A masked and the invoices it came from; a fourth with
// A (spaced, lower case) says nothing, and neither does another supplier.
func TestAPBankAccountChangeIsAnAlert(t *testing.T) {
	t.Parallel()
	s := newAPSite(t, true)
	const ibanA, ibanB = "DE89370400440532013000", "GB33BUKB20201555555555"
	post := func(id int64) {
		// The bookkeeper's posting is not under test here: what matters is that the row is posted.
		if _, err := s.db.Pool.Exec(context.Background(), `UPDATE intake_documents SET status = 'posted', decided_at = now() WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
	}
	invoice := func(number, seller, iban string) []byte {
		return apInvoice(number, seller, day(-3), day(27), "Acme Handels GmbH", "DE123456789", iban)
	}
	first := s.file(t, invoice("P-1", "DE111111111", ibanA))
	second := s.file(t, invoice("P-2", "DE111111111", ibanA))
	post(first)
	post(second)
	changed := s.file(t, invoice("P-3", "DE111111111", ibanB))
	same := s.file(t, invoice("P-4", "DE 111.111.111", "de89 3704 0044 0532 0130 00"))
	other := s.file(t, invoice("Q-1", "DE222222222", ibanB))

	api := s.apFindings(t, changed)
	f, ok := api[apchecks.CodeSupplierIBANDiff]
	wantPrev := fmt.Sprintf("•••• 3000 (on #%d, #%d)", second, first)
	if !ok || f["severity"] != "warning" || !strings.Contains(f["message"].(string), wantPrev) ||
		!strings.Contains(f["message"].(string), "•••• 5555") || strings.Contains(f["message"].(string), "37040044") {
		t.Fatalf("API findings %v, want %s naming %s", api, apchecks.CodeSupplierIBANDiff, wantPrev)
	}
	d := s.page(t, changed)
	alert := d.Find(`[data-testid=document] [data-testid=iban-alert]`)
	if alert.Length() != 1 {
		t.Fatal("no bank-account alert on the page")
	}
	// Prominent: above the decision and the fields, not only in a list.
	html, _ := d.Find(`[data-testid=document]`).Html()
	if a, dec := strings.Index(html, `data-testid="iban-alert"`), strings.Index(html, `data-testid="decision`); a < 0 || dec >= 0 && a > dec {
		t.Errorf("the alert is not above the decision panel")
	}
	prev := alert.Find(`[data-testid=iban-previous]`)
	if last4, _ := prev.Attr("data-iban-last4"); prev.Length() != 1 || last4 != "3000" ||
		prev.Find(`a[href="/intake/`+itoa(first)+`"]`).Length() != 1 || prev.Find(`a[href="/intake/`+itoa(second)+`"]`).Length() != 1 {
		h, _ := alert.Html()
		t.Errorf("the alert does not name the previous account and its invoices: %s", h)
	}
	if strings.Contains(alert.Text(), "37040044") || !strings.Contains(alert.Find(`[data-testid=iban-new]`).Text(), "5555") {
		t.Errorf("the alert shows an unmasked account or not the new one: %s", alert.Text())
	}
	if _, ok := pageCodes(d)[apchecks.CodeSupplierIBANDiff]; !ok {
		t.Errorf("the page's AP checks do not list the change")
	}

	for name, id := range map[string]int64{"same IBAN": same, "another supplier": other, "the first posted": first} {
		if api := s.apFindings(t, id); len(api) != 0 {
			t.Errorf("%s: API findings %v", name, api)
		}
		if d := s.page(t, id); d.Find(`[data-testid=iban-alert]`).Length() != 0 || len(pageCodes(d)) != 0 {
			t.Errorf("%s: the page warns", name)
		}
	}
}

// Two accounts that end in the same four characters are still told apart
// by the alert and its explanation: the masks differ.
func TestAPBankAccountAlertTellsAccountsThatEndAlikeApart(t *testing.T) {
	t.Parallel()
	s := newAPSite(t, true)
	const before, after = "DE89370400440532013000", "DE48500105170532013000" // both end in 3000
	posted := s.file(t, apInvoice("E-1", "DE333333333", day(-3), day(27), "Acme Handels GmbH", "DE123456789", before))
	if _, err := s.db.Pool.Exec(context.Background(), `UPDATE intake_documents SET status = 'posted', decided_at = now() WHERE id = $1`, posted); err != nil {
		t.Fatal(err)
	}
	changed := s.file(t, apInvoice("E-2", "DE333333333", day(-3), day(27), "Acme Handels GmbH", "DE123456789", after))
	alert := s.page(t, changed).Find(`[data-testid=iban-alert]`)
	current := strings.TrimSpace(alert.Find(`[data-testid=iban-new]`).Text())
	previous := strings.TrimSpace(alert.Find(`[data-testid=iban-previous] strong`).Text())
	if current == "" || current == previous {
		t.Fatalf("the alert names both accounts %q and %q", current, previous)
	}
	if strings.Contains(alert.Text(), "37040044") || strings.Contains(alert.Text(), "50010517") {
		t.Errorf("the alert shows an account unmasked: %s", alert.Text())
	}
	f := s.apFindings(t, changed)[apchecks.CodeSupplierIBANDiff]
	if msg, _ := f["message"].(string); !strings.Contains(msg, current) || !strings.Contains(msg, previous+" (on #") {
		t.Errorf("the explanation %q does not name %q and %q", msg, current, previous)
	}
}

// An admin sets the org's identity on the settings page (audited); from
// then on a document addressed to another buyer warns, read again, with no
// re-filing. A reviewer may not open the page; a value out of bounds is
// shown again with what was wrong.
func TestOrgSettingsFormSetsTheBuyerIdentity(t *testing.T) {
	t.Parallel()
	s := newAPSite(t, false)
	o, err := org.ByID(context.Background(), s.db.Pool, s.orgID)
	if err != nil {
		t.Fatal(err)
	}
	id := s.file(t, apInvoice("SET-1", "DE999999999", day(-3), day(27), "Other Trading Ltd", "GB111222333", ""))
	if len(pageCodes(s.page(t, id))) != 0 {
		t.Fatal("a warning before the identity is set")
	}

	if resp := get(t, s.web, s.URL+"/admin/org"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a reviewer opens the org settings: %d", resp.StatusCode)
	}
	admin := testkit.User(t, s.db, o, auth.RoleAdmin)
	c := s.client(t)
	csrf := s.signIn(t, c, admin)
	form := doc(t, get(t, c, s.URL+"/admin/org"))
	if form.Find(`[data-testid=org-settings-form] input[name=max_issue_age_months]`).AttrOr("value", "") != "18" {
		t.Fatal("the form does not show the default age of 18 months")
	}
	post := func(values url.Values) *http.Response {
		values.Set("_csrf", csrf)
		resp, err := c.PostForm(s.URL+"/admin/org", values)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post(url.Values{"legal_name": {"Acme Handels GmbH"}, "vat_id": {"DE123456789"}, "max_issue_age_months": {"500"}})
	if d := doc(t, resp); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(d.Find(`[data-testid=org-settings-error]`).Text(), "between 1 and 120") ||
		d.Find(`input[name=legal_name]`).AttrOr("value", "") != "Acme Handels GmbH" {
		t.Fatalf("an age of 500 months: %d", resp.StatusCode)
	}
	resp = post(url.Values{"legal_name": {"Acme Handels GmbH"}, "vat_id": {"DE123456789"}, "max_issue_age_months": {"12"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	form = doc(t, get(t, c, s.URL+"/admin/org"))
	if form.Find(`input[name=vat_id]`).AttrOr("value", "") != "DE123456789" || form.Find(`input[name=max_issue_age_months]`).AttrOr("value", "") != "12" {
		t.Fatal("the form does not show what was saved")
	}
	if n := testkit.Count(t, s.db, `SELECT count(*) FROM audit_events WHERE action = 'org.identity_set' AND org_id = $1 AND actor = $2
		AND detail ->> 'vat_id' = 'DE123456789'`, s.orgID, admin.Email); n != 1 {
		t.Fatalf("%d audit events", n)
	}
	if msg, ok := pageCodes(s.page(t, id))[apchecks.CodeBuyerNotThisOrg]; !ok || !strings.Contains(msg, "GB111222333") {
		t.Fatalf("after the identity is set, the page shows %v", pageCodes(s.page(t, id)))
	}
}

// The checks read every format alike: the published samples, as they are
// (UBL, CII, a Factur-X PDF), are addressed to other buyers, issued years
// ago, and (TOSL108) were due long before today; and a JSON invoice of the
// UBL sample's supplier asking for another account than the posted UBL
// one's raises the bank-account alert.
func TestAPChecksReadEveryFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, mediaType string
		want            []string
	}{
		{"samples/en16931-ubl-example2.xml", "application/xml",
			[]string{apchecks.CodeBuyerNotThisOrg, apchecks.CodeIssueDateOld, apchecks.CodeDueAtArrival}},
		{"samples/en16931-cii-example2.xml", "application/xml",
			[]string{apchecks.CodeBuyerNotThisOrg, apchecks.CodeIssueDateOld, apchecks.CodeDueAtArrival}},
		{"samples/peppol-bis3-base-example.xml", "application/xml",
			[]string{apchecks.CodeBuyerNotThisOrg, apchecks.CodeIssueDateOld, apchecks.CodeDueAtArrival}},
		{"samples/mustang-EN16931_Einfach.pdf", "application/pdf",
			[]string{apchecks.CodeBuyerNotThisOrg, apchecks.CodeIssueDateOld}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			s := newAPSite(t, true)
			id := s.fileAs(t, tt.mediaType, sample(t, tt.file))
			api, page := s.apFindings(t, id), pageCodes(s.page(t, id))
			for _, code := range tt.want {
				if _, ok := api[code]; !ok {
					t.Errorf("API lacks %s: %v", code, api)
				}
				if _, ok := page[code]; !ok {
					t.Errorf("page lacks %s: %v", code, page)
				}
			}
			if len(api) != len(tt.want) || len(page) != len(tt.want) {
				t.Errorf("API %v, page %v, want %v", api, page, tt.want)
			}
		})
	}
	t.Run("bank account across formats", func(t *testing.T) {
		t.Parallel()
		s := newAPSite(t, true)
		posted := s.fileAs(t, "application/xml", sample(t, "samples/en16931-ubl-example2.xml"))
		if _, err := s.db.Pool.Exec(context.Background(), `UPDATE intake_documents SET status = 'posted', decided_at = now() WHERE id = $1`, posted); err != nil {
			t.Fatal(err)
		}
		changed := s.file(t, apInvoice("TOSL109", "NO123456789MVA", day(-3), day(27), "Acme Handels GmbH", "DE123456789", "NO02 1234 5678 903"))
		same := s.file(t, apInvoice("TOSL110", "NO123456789MVA", day(-3), day(27), "Acme Handels GmbH", "DE123456789", "no93 8601 1117 947"))
		f, ok := s.apFindings(t, changed)[apchecks.CodeSupplierIBANDiff]
		if !ok || !strings.Contains(f["message"].(string), fmt.Sprintf("•••• 7947 (on #%d)", posted)) {
			t.Fatalf("the JSON invoice: %v", f)
		}
		if s.page(t, changed).Find(`[data-testid=iban-alert]`).Length() != 1 {
			t.Error("no alert on the page")
		}
		if api := s.apFindings(t, same); len(api) != 0 {
			t.Errorf("the same account warns: %v", api)
		}
	})
}

// form is the page at path and the CSRF token of its form formTestID.
func (s apSite) form(t *testing.T, path, formTestID string) (*goquery.Document, string) {
	t.Helper()
	resp, err := s.web.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	d := doc(t, resp)
	csrf, _ := d.Find(`[data-testid=` + formTestID + `] input[name=_csrf]`).Attr("value")
	return d, csrf
}

// A document typed in by hand keeps the buyer's VAT id: it is filed with
// the fields, shown on the page and in the form again, returned by the API,
// and the check that it is addressed to this org reads it (the name alone
// matches the org, so only the VAT id tells another company apart).
func TestTypedInBuyerVATIDIsKeptAndChecked(t *testing.T) {
	t.Parallel()
	s := newAPSite(t, true)
	code, body := s.api.do("POST", "/api/v1/documents", "image/png", sample(t, "scanned-invoice.png"))
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	id := int64(body["intake_id"].(float64))
	s.api.waitStatus(float64(id), "flagged")

	path := "/intake/" + itoa(id) + "/type-in"
	_, csrf := s.form(t, path, "typein-form")
	form := url.Values{"_csrf": {csrf}, "type": {"invoice"}, "number": {"PAPER-9"}, "issue_date": {time.Now().Format("2006-01-02")},
		"currency": {"EUR"}, "seller_name": {"Paper Supplier AB"}, "seller_vat_id": {"SE556677889901"},
		"buyer_name": {"Acme Handels GmbH"}, "buyer_vat_id": {"DE999999999"},
		"line_description": {"Paper"}, "line_quantity": {"3"}, "line_unit_price": {"50.00"}, "line_tax_rate": {"25"}}
	resp, err := s.web.PostForm(s.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("type in: %d", resp.StatusCode)
	}
	typed := s.api.waitStatus(float64(id), "pending")
	if buyer, _ := typed["fields"].(map[string]any)["buyer"].(map[string]any); buyer["vat_id"] != "DE999999999" {
		t.Errorf("the API's buyer: %v", buyer)
	}
	if f, ok := s.apFindings(t, id)[apchecks.CodeBuyerNotThisOrg]; !ok || f["field"] != "buyer.vat_id" {
		t.Errorf("the API's buyer check: %v (ok %v)", f, ok)
	}
	page := s.page(t, id)
	if got := page.Find(`#bt-44`).Text(); !strings.Contains(got, "DE999999999") {
		t.Errorf("the page's buyer: %q", got)
	}
	if msg := pageCodes(page)[apchecks.CodeBuyerNotThisOrg]; !strings.Contains(msg, "DE999999999") {
		t.Errorf("the page's buyer check: %q", msg)
	}
	again, _ := s.form(t, path, "typein-form")
	if v, _ := again.Find(`input[name=buyer_vat_id]`).Attr("value"); v != "DE999999999" {
		t.Errorf("the form again: buyer VAT id %q", v)
	}

	// The typewriter's form sends the same fields: composed, revised and
	// submitted, the document keeps the buyer's VAT id too.
	_, csrf = s.form(t, "/typewriter/new", "compose-form")
	form.Set("_csrf", csrf)
	form.Set("number", "PAPER-10")
	form.Set("line_unit_price", "60.00") // not a renumbered copy of the one typed in
	resp, err = s.web.PostForm(s.URL+"/typewriter", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	twPath := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(twPath, "/typewriter/") {
		t.Fatalf("compose: %d %q", resp.StatusCode, twPath)
	}
	revise, _ := s.form(t, twPath+"/revise", "compose-form")
	if v, _ := revise.Find(`input[name=buyer_vat_id]`).Attr("value"); v != "DE999999999" {
		t.Errorf("the typewriter's revise form: buyer VAT id %q", v)
	}
	twPage, _ := s.form(t, twPath, "typewriter-document")
	submit, _ := twPage.Find(`[data-testid=submit-version]`).Closest("form").Attr("action")
	csrf, _ = twPage.Find(`[data-testid=submit-version]`).Closest("form").Find(`input[name=_csrf]`).Attr("value")
	resp, err = s.web.PostForm(s.URL+submit, url.Values{"_csrf": {csrf}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	twPage, _ = s.form(t, twPath, "typewriter-document")
	href, _ := twPage.Find(`[data-testid=version-intake]`).Attr("href")
	composed := mustAtoi(t, strings.TrimPrefix(href, "/intake/"))
	s.api.waitStatus(float64(composed), "pending")
	if f, ok := s.apFindings(t, composed)[apchecks.CodeBuyerNotThisOrg]; !ok || f["field"] != "buyer.vat_id" {
		t.Errorf("the composed document's buyer check: %v (ok %v)", f, ok)
	}
}
