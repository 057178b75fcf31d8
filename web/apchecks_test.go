package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"greatbook/internal/apchecks"
	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// Each AP check says what it found in the API's findings (a warning with a
// code and a message) and on the document's page in plain words; a proper
// invoice shows none, and none of them flags the document or blocks its
// approval.
func TestAPChecksInTheAPIAndOnThePage(t *testing.T) {
	t.Parallel()
	s := webtest.NewAPSite(t, true)
	tests := []struct {
		name, code, says string
		content          []byte
	}{
		{name: "proper", content: webtest.APInvoice("OK-1", "DE999999999", webtest.Day(-3), webtest.Day(27), "ACME Handels GmbH", "DE 123 456 789", "")},
		{name: "proper by name alone", content: webtest.APInvoice("OK-2", "DE999999999", webtest.Day(-3), webtest.Day(27), "acme handels gmbh.", "", "")},
		{name: "buyer VAT id", code: apchecks.CodeBuyerNotThisOrg, says: "DE987654321",
			content: webtest.APInvoice("BUY-1", "DE999999999", webtest.Day(-3), webtest.Day(27), "Acme Handels GmbH", "DE987654321", "")},
		{name: "buyer name", code: apchecks.CodeBuyerNotThisOrg, says: "Other Trading Ltd",
			content: webtest.APInvoice("BUY-2", "DE999999999", webtest.Day(-3), webtest.Day(27), "Other Trading Ltd", "", "")},
		{name: "far in the past", code: apchecks.CodeIssueDateOld, says: "more than 18 months",
			content: webtest.APInvoice("OLD-1", "DE999999999", webtest.Day(-600), "", "Acme Handels GmbH", "DE123456789", "")},
		{name: "in the future", code: apchecks.CodeIssueDateFuture, says: "in the future",
			content: webtest.APInvoice("FUT-1", "DE999999999", webtest.Day(5), webtest.Day(35), "Acme Handels GmbH", "DE123456789", "")},
		{name: "due before arrival", code: apchecks.CodeDueAtArrival, says: "overdue",
			content: webtest.APInvoice("DUE-1", "DE999999999", webtest.Day(-40), webtest.Day(-10), "Acme Handels GmbH", "DE123456789", "")},
		{name: "proper IBAN", content: webtest.APInvoice("IBAN-0", "DE999999999", webtest.Day(-3), webtest.Day(27), "Acme Handels GmbH", "DE123456789", "gb29 nwbk 6016 1331 9268 19")},
		{name: "a Cyrillic letter in the IBAN", code: apchecks.CodeIBANCharacters, says: "U+0412 CYRILLIC CAPITAL LETTER VE",
			content: webtest.APInvoice("IBAN-1", "DE999999999", webtest.Day(-3), webtest.Day(27), "Acme Handels GmbH", "DE123456789", "GB33 \u0412UKB 2020 1555 5555 55")},
		{name: "an IBAN whose check digits fail", code: apchecks.CodeIBANChecksum, says: "check digits",
			content: webtest.APInvoice("IBAN-2", "DE999999999", webtest.Day(-3), webtest.Day(27), "Acme Handels GmbH", "DE123456789", "DE89 3704 0044 0532 0130 01")},
		{name: "an IBAN too short for its country", code: apchecks.CodeIBANLength, says: "an IBAN of DE has 22",
			content: webtest.APInvoice("IBAN-3", "DE999999999", webtest.Day(-3), webtest.Day(27), "Acme Handels GmbH", "DE123456789", "DE89 3704 0044 0532 0130 0")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := s.File(t, tt.content)
			api, page := s.APFindings(t, id), webtest.PageCodes(s.Page(t, id))
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
	id := s.File(t, webtest.APInvoice("DUE-2", "DE999999999", webtest.Day(-40), webtest.Day(-10), "Other Trading Ltd", "", ""))
	if code, body := s.Reviewer.Do("POST", "/api/v1/intake/"+webtest.Itoa(id)+"/approve", "", nil); code != 200 {
		t.Fatalf("approve of a warned document: %d %v", code, body)
	}
}

// Without an identity set, the org has said nothing to compare the buyer
// with, so the buyer check says nothing.
func TestAPBuyerCheckIsSilentWithoutAnIdentity(t *testing.T) {
	t.Parallel()
	s := webtest.NewAPSite(t, false)
	id := s.File(t, webtest.APInvoice("ANY-1", "DE999999999", webtest.Day(-3), webtest.Day(27), "Somebody Else AB", "SE556677889901", ""))
	if api, page := s.APFindings(t, id), webtest.PageCodes(s.Page(t, id)); len(api) != 0 || len(page) != 0 {
		t.Fatalf("API %v, page %v", api, page)
	}
}

// The payment-fraud signal: two posted invoices of a supplier paid to IBAN
// A, a third asking for IBAN B warns — at the top of its page, in an alert
// of its own naming A masked and the invoices it came from; a fourth with
// A (spaced, lower case) says nothing, and neither does another supplier.
func TestAPBankAccountChangeIsAnAlert(t *testing.T) {
	t.Parallel()
	s := webtest.NewAPSite(t, true)
	const ibanA, ibanB = "DE89370400440532013000", "GB33BUKB20201555555555"
	post := func(id int64) {
		// The bookkeeper's posting is not under test here: what matters is that the row is posted.
		if _, err := s.DB.Pool.Exec(context.Background(), `UPDATE intake_documents SET status = 'posted', decided_at = now() WHERE id = $1`, id); err != nil {
			t.Fatal(err)
		}
	}
	invoice := func(number, seller, iban string) []byte {
		return webtest.APInvoice(number, seller, webtest.Day(-3), webtest.Day(27), "Acme Handels GmbH", "DE123456789", iban)
	}
	first := s.File(t, invoice("P-1", "DE111111111", ibanA))
	second := s.File(t, invoice("P-2", "DE111111111", ibanA))
	post(first)
	post(second)
	changed := s.File(t, invoice("P-3", "DE111111111", ibanB))
	same := s.File(t, invoice("P-4", "DE 111.111.111", "de89 3704 0044 0532 0130 00"))
	other := s.File(t, invoice("Q-1", "DE222222222", ibanB))

	api := s.APFindings(t, changed)
	f, ok := api[apchecks.CodeSupplierIBANDiff]
	wantPrev := fmt.Sprintf("•••• 3000 (on #%d, #%d)", second, first)
	if !ok || f["severity"] != "warning" || !strings.Contains(f["message"].(string), wantPrev) ||
		!strings.Contains(f["message"].(string), "•••• 5555") || strings.Contains(f["message"].(string), "37040044") {
		t.Fatalf("API findings %v, want %s naming %s", api, apchecks.CodeSupplierIBANDiff, wantPrev)
	}
	d := s.Page(t, changed)
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
		prev.Find(`a[href="/intake/`+webtest.Itoa(first)+`"]`).Length() != 1 || prev.Find(`a[href="/intake/`+webtest.Itoa(second)+`"]`).Length() != 1 {
		h, _ := alert.Html()
		t.Errorf("the alert does not name the previous account and its invoices: %s", h)
	}
	if strings.Contains(alert.Text(), "37040044") || !strings.Contains(alert.Find(`[data-testid=iban-new]`).Text(), "5555") {
		t.Errorf("the alert shows an unmasked account or not the new one: %s", alert.Text())
	}
	if _, ok := webtest.PageCodes(d)[apchecks.CodeSupplierIBANDiff]; !ok {
		t.Errorf("the page's AP checks do not list the change")
	}

	for name, id := range map[string]int64{"same IBAN": same, "another supplier": other, "the first posted": first} {
		if api := s.APFindings(t, id); len(api) != 0 {
			t.Errorf("%s: API findings %v", name, api)
		}
		if d := s.Page(t, id); d.Find(`[data-testid=iban-alert]`).Length() != 0 || len(webtest.PageCodes(d)) != 0 {
			t.Errorf("%s: the page warns", name)
		}
	}
}

// Two accounts that end in the same four characters are still told apart
// by the alert and its explanation: the masks differ.
func TestAPBankAccountAlertTellsAccountsThatEndAlikeApart(t *testing.T) {
	t.Parallel()
	s := webtest.NewAPSite(t, true)
	const before, after = "DE89370400440532013000", "DE48500105170532013000" // both end in 3000
	posted := s.File(t, webtest.APInvoice("E-1", "DE333333333", webtest.Day(-3), webtest.Day(27), "Acme Handels GmbH", "DE123456789", before))
	if _, err := s.DB.Pool.Exec(context.Background(), `UPDATE intake_documents SET status = 'posted', decided_at = now() WHERE id = $1`, posted); err != nil {
		t.Fatal(err)
	}
	changed := s.File(t, webtest.APInvoice("E-2", "DE333333333", webtest.Day(-3), webtest.Day(27), "Acme Handels GmbH", "DE123456789", after))
	alert := s.Page(t, changed).Find(`[data-testid=iban-alert]`)
	current := strings.TrimSpace(alert.Find(`[data-testid=iban-new]`).Text())
	previous := strings.TrimSpace(alert.Find(`[data-testid=iban-previous] strong`).Text())
	if current == "" || current == previous {
		t.Fatalf("the alert names both accounts %q and %q", current, previous)
	}
	if strings.Contains(alert.Text(), "37040044") || strings.Contains(alert.Text(), "50010517") {
		t.Errorf("the alert shows an account unmasked: %s", alert.Text())
	}
	f := s.APFindings(t, changed)[apchecks.CodeSupplierIBANDiff]
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
	s := webtest.NewAPSite(t, false)
	o, err := org.ByID(context.Background(), s.DB.Pool, s.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	id := s.File(t, webtest.APInvoice("SET-1", "DE999999999", webtest.Day(-3), webtest.Day(27), "Other Trading Ltd", "GB111222333", ""))
	if len(webtest.PageCodes(s.Page(t, id))) != 0 {
		t.Fatal("a warning before the identity is set")
	}

	if resp := webtest.Get(t, s.Browser, s.URL+"/admin/org"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a reviewer opens the org settings: %d", resp.StatusCode)
	}
	admin := testkit.User(t, s.DB, o, auth.RoleAdmin)
	c := s.Client(t)
	csrf := s.SignIn(t, c, admin)
	form := webtest.Doc(t, webtest.Get(t, c, s.URL+"/admin/org"))
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
	if d := webtest.Doc(t, resp); resp.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(d.Find(`[data-testid=org-settings-error]`).Text(), "between 1 and 120") ||
		d.Find(`input[name=legal_name]`).AttrOr("value", "") != "Acme Handels GmbH" {
		t.Fatalf("an age of 500 months: %d", resp.StatusCode)
	}
	resp = post(url.Values{"legal_name": {"Acme Handels GmbH"}, "vat_id": {"DE123456789"}, "max_issue_age_months": {"12"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	form = webtest.Doc(t, webtest.Get(t, c, s.URL+"/admin/org"))
	if form.Find(`input[name=vat_id]`).AttrOr("value", "") != "DE123456789" || form.Find(`input[name=max_issue_age_months]`).AttrOr("value", "") != "12" {
		t.Fatal("the form does not show what was saved")
	}
	if n := testkit.Count(t, s.DB, `SELECT count(*) FROM audit_events WHERE action = 'org.identity_set' AND org_id = $1 AND actor = $2
		AND detail ->> 'vat_id' = 'DE123456789'`, s.OrgID, admin.Email); n != 1 {
		t.Fatalf("%d audit events", n)
	}
	if msg, ok := webtest.PageCodes(s.Page(t, id))[apchecks.CodeBuyerNotThisOrg]; !ok || !strings.Contains(msg, "GB111222333") {
		t.Fatalf("after the identity is set, the page shows %v", webtest.PageCodes(s.Page(t, id)))
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
			s := webtest.NewAPSite(t, true)
			id := s.FileAs(t, tt.mediaType, webtest.Sample(t, tt.file))
			api, page := s.APFindings(t, id), webtest.PageCodes(s.Page(t, id))
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
		s := webtest.NewAPSite(t, true)
		posted := s.FileAs(t, "application/xml", webtest.Sample(t, "samples/en16931-ubl-example2.xml"))
		if _, err := s.DB.Pool.Exec(context.Background(), `UPDATE intake_documents SET status = 'posted', decided_at = now() WHERE id = $1`, posted); err != nil {
			t.Fatal(err)
		}
		changed := s.File(t, webtest.APInvoice("TOSL109", "NO123456789MVA", webtest.Day(-3), webtest.Day(27), "Acme Handels GmbH", "DE123456789", "NO02 1234 5678 903"))
		same := s.File(t, webtest.APInvoice("TOSL110", "NO123456789MVA", webtest.Day(-3), webtest.Day(27), "Acme Handels GmbH", "DE123456789", "no93 8601 1117 947"))
		f, ok := s.APFindings(t, changed)[apchecks.CodeSupplierIBANDiff]
		if !ok || !strings.Contains(f["message"].(string), fmt.Sprintf("•••• 7947 (on #%d)", posted)) {
			t.Fatalf("the JSON invoice: %v", f)
		}
		if s.Page(t, changed).Find(`[data-testid=iban-alert]`).Length() != 1 {
			t.Error("no alert on the page")
		}
		if api := s.APFindings(t, same); len(api) != 0 {
			t.Errorf("the same account warns: %v", api)
		}
	})
}

// A document typed in by hand keeps the buyer's VAT id: it is filed with
// the fields, shown on the page and in the form again, returned by the API,
// and the check that it is addressed to this org reads it (the name alone
// matches the org, so only the VAT id tells another company apart).
func TestTypedInBuyerVATIDIsKeptAndChecked(t *testing.T) {
	t.Parallel()
	s := webtest.NewAPSite(t, true)
	code, body := s.Reviewer.Do("POST", "/api/v1/documents", "image/png", webtest.Sample(t, "scanned-invoice.png"))
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	id := int64(body["intake_id"].(float64))
	s.Reviewer.WaitStatus(float64(id), "flagged")

	path := "/intake/" + webtest.Itoa(id) + "/type-in"
	_, csrf := s.Form(t, path, "typein-form")
	form := url.Values{"_csrf": {csrf}, "type": {"invoice"}, "number": {"PAPER-9"}, "issue_date": {time.Now().Format("2006-01-02")},
		"currency": {"EUR"}, "seller_name": {"Paper Supplier AB"}, "seller_vat_id": {"SE556677889901"},
		"buyer_name": {"Acme Handels GmbH"}, "buyer_vat_id": {"DE999999999"},
		"line_description": {"Paper"}, "line_quantity": {"3"}, "line_unit_price": {"50.00"}, "line_tax_rate": {"25"}}
	resp, err := s.Browser.PostForm(s.URL+path, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("type in: %d", resp.StatusCode)
	}
	typed := s.Reviewer.WaitStatus(float64(id), "pending")
	if buyer, _ := typed["fields"].(map[string]any)["buyer"].(map[string]any); buyer["vat_id"] != "DE999999999" {
		t.Errorf("the API's buyer: %v", buyer)
	}
	if f, ok := s.APFindings(t, id)[apchecks.CodeBuyerNotThisOrg]; !ok || f["field"] != "buyer.vat_id" {
		t.Errorf("the API's buyer check: %v (ok %v)", f, ok)
	}
	page := s.Page(t, id)
	if got := page.Find(`#bt-44`).Text(); !strings.Contains(got, "DE999999999") {
		t.Errorf("the page's buyer: %q", got)
	}
	if msg := webtest.PageCodes(page)[apchecks.CodeBuyerNotThisOrg]; !strings.Contains(msg, "DE999999999") {
		t.Errorf("the page's buyer check: %q", msg)
	}
	again, _ := s.Form(t, path, "typein-form")
	if v, _ := again.Find(`input[name=buyer_vat_id]`).Attr("value"); v != "DE999999999" {
		t.Errorf("the form again: buyer VAT id %q", v)
	}

	// The typewriter's form sends the same fields: composed, revised and
	// submitted, the document keeps the buyer's VAT id too.
	_, csrf = s.Form(t, "/typewriter/new", "compose-form")
	form.Set("_csrf", csrf)
	form.Set("number", "PAPER-10")
	form.Set("line_unit_price", "60.00") // not a renumbered copy of the one typed in
	resp, err = s.Browser.PostForm(s.URL+"/typewriter", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	twPath := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(twPath, "/typewriter/") {
		t.Fatalf("compose: %d %q", resp.StatusCode, twPath)
	}
	revise, _ := s.Form(t, twPath+"/revise", "compose-form")
	if v, _ := revise.Find(`input[name=buyer_vat_id]`).Attr("value"); v != "DE999999999" {
		t.Errorf("the typewriter's revise form: buyer VAT id %q", v)
	}
	twPage, _ := s.Form(t, twPath, "typewriter-document")
	submit, _ := twPage.Find(`[data-testid=submit-version]`).Closest("form").Attr("action")
	csrf, _ = twPage.Find(`[data-testid=submit-version]`).Closest("form").Find(`input[name=_csrf]`).Attr("value")
	resp, err = s.Browser.PostForm(s.URL+submit, url.Values{"_csrf": {csrf}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	twPage, _ = s.Form(t, twPath, "typewriter-document")
	href, _ := twPage.Find(`[data-testid=version-intake]`).Attr("href")
	composed := webtest.MustAtoi(t, strings.TrimPrefix(href, "/intake/"))
	s.Reviewer.WaitStatus(float64(composed), "pending")
	if f, ok := s.APFindings(t, composed)[apchecks.CodeBuyerNotThisOrg]; !ok || f["field"] != "buyer.vat_id" {
		t.Errorf("the composed document's buyer check: %v (ok %v)", f, ok)
	}
}
