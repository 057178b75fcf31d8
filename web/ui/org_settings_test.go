package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"greatbook/internal/apchecks"
	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// An admin sets the address, the default expense account, the base
// currency and the remembered rates on the settings page; a refused change
// is said on the page with its status and changes nothing; a reviewer may
// post none of them.
func TestOrgSettingsPageSetsEverySetting(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	ctx := context.Background()
	o := testkit.Org(t, a.DB)
	admin, reviewer := testkit.User(t, a.DB, o, auth.RoleAdmin), testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.Client(t)
	csrf := a.SignIn(t, c, admin)
	post := func(path string, values url.Values) *http.Response {
		t.Helper()
		values.Set("_csrf", csrf)
		resp, err := c.PostForm(a.URL+path, values)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	saved := func(resp *http.Response) {
		t.Helper()
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d, want 303", resp.Request.URL.Path, resp.StatusCode)
		}
	}
	refused := func(resp *http.Response, status int, want string) {
		t.Helper()
		d := webtest.Doc(t, resp)
		if got := d.Find(`[data-testid=org-settings-refusal]`).Text(); resp.StatusCode != status || !strings.Contains(got, want) {
			t.Fatalf("%s: %d %q, want %d %q", resp.Request.URL.Path, resp.StatusCode, got, status, want)
		}
	}

	saved(post("/admin/org", url.Values{"legal_name": {"Acme GmbH"}, "max_issue_age_months": {"18"},
		"address_line": {"Hauptstraße 1", "", ""}, "postcode": {"10115"}, "city": {"Berlin"}, "country": {"de"}}))
	refused(post("/admin/org/default-account", url.Values{"account": {"4000"}}), http.StatusUnprocessableEntity, "expense account")
	saved(post("/admin/org/default-account", url.Values{"account": {"6100"}}))
	saved(post("/admin/org/base-currency", url.Values{"base_currency": {"chf"}}))
	if _, err := a.DB.Pool.Exec(ctx, `INSERT INTO exchange_rates (org_id, currency, rate_date, rate, created_by) VALUES ($1, 'USD', '2026-01-02', 0.9, 'ann@x.test')`, o.ID); err != nil {
		t.Fatal(err)
	}
	refused(post("/admin/org/base-currency", url.Values{"base_currency": {"EUR"}}), http.StatusConflict, "forget them first")

	page := webtest.Doc(t, webtest.Get(t, c, a.URL+"/admin/org"))
	if got := page.Find(`[data-testid=default-account] option[selected]`).AttrOr("value", ""); got != "6100" {
		t.Fatalf("the default account shown is %q", got)
	}
	if page.Find(`[data-testid=base-currency]`).AttrOr("value", "") != "CHF" || page.Find(`input[name=city]`).AttrOr("value", "") != "Berlin" ||
		page.Find(`input[name=country]`).AttrOr("value", "") != "DE" || page.Find(`input[name=address_line]`).First().AttrOr("value", "") != "Hauptstraße 1" {
		t.Fatal("the page does not show what was saved")
	}
	if page.Find(`[data-testid=supplier-rules-link]`).AttrOr("href", "") != "/admin/supplier-rules" {
		t.Fatal("no link to the supplier rules")
	}
	rate := page.Find(`[data-testid=exchange-rate][data-currency=USD]`)
	if rate.Find(`[data-testid=rate-set-by]`).Text() != "ann@x.test" || !strings.Contains(rate.Find(`[data-testid=rate-value]`).Text(), "0.9") {
		t.Fatalf("the rate row reads %q", rate.Text())
	}
	refused(post("/admin/org/rates/change", url.Values{"currency": {"USD"}, "date": {"2026-01-02"}, "rate": {"-1"}}), http.StatusUnprocessableEntity, "positive")
	for _, date := range []string{"0000-01-01", "0001-01-01", "1899-12-31"} {
		refused(post("/admin/org/rates/change", url.Values{"currency": {"USD"}, "date": {date}, "rate": {"0.95"}}), http.StatusUnprocessableEntity, "outside the years")
		refused(post("/admin/org/rates/forget", url.Values{"currency": {"USD"}, "date": {date}}), http.StatusUnprocessableEntity, "outside the years")
	}
	saved(post("/admin/org/rates/change", url.Values{"currency": {"USD"}, "date": {"2026-01-02"}, "rate": {"0.95"}}))
	rate = webtest.Doc(t, webtest.Get(t, c, a.URL+"/admin/org")).Find(`[data-testid=exchange-rate][data-currency=USD]`)
	if rate.Find(`[data-testid=rate-set-by]`).Text() != admin.Email || !strings.Contains(rate.Find(`[data-testid=rate-value]`).Text(), "0.95") {
		t.Fatalf("after the change the rate row reads %q", rate.Text())
	}
	saved(post("/admin/org/rates/forget", url.Values{"currency": {"USD"}, "date": {"2026-01-02"}}))
	refused(post("/admin/org/rates/forget", url.Values{"currency": {"USD"}, "date": {"2026-01-02"}}), http.StatusNotFound, "no remembered rate")

	refused(post("/admin/org/bank-account", url.Values{"bank_iban": {"DE89370400440532013001"}}), http.StatusUnprocessableEntity, "check digits")
	saved(post("/admin/org/bank-account", url.Values{"bank_iban": {"de89 3704 0044 0532 0130 00"}, "bank_bic": {"cobadeffxxx"}}))
	page = webtest.Doc(t, webtest.Get(t, c, a.URL+"/admin/org"))
	if page.Find(`[data-testid=bank-iban]`).AttrOr("value", "") != "DE89370400440532013000" || page.Find(`[data-testid=bank-bic]`).AttrOr("value", "") != "COBADEFFXXX" {
		t.Fatal("the page does not show the bank account saved")
	}

	for _, action := range []string{"org.identity_set", "org.default_expense_account_set", "org.base_currency_set", "exchange_rate_changed", "exchange_rate_forgotten",
		"org.bank_account_set"} {
		if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = $2 AND actor = $3`, o.ID, action, admin.Email); n != 1 {
			t.Fatalf("%d %s audit events by the admin, want 1", n, action)
		}
	}

	rc := a.Client(t)
	rcsrf := a.SignIn(t, rc, reviewer)
	for _, path := range []string{"/admin/org/default-account", "/admin/org/base-currency", "/admin/org/rates/change", "/admin/org/rates/forget", "/admin/org/bank-account"} {
		resp, err := rc.PostForm(a.URL+path, url.Values{"_csrf": {rcsrf}, "account": {"6000"}, "base_currency": {"EUR"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a reviewer posts %s: %d", path, resp.StatusCode)
		}
	}
}

// With only an address set (no legal name, no VAT id: nothing else
// decides), the "addressed to another company" check compares the buyer
// address of a real EN 16931 sample with the org's: the sample's own
// address is ours, another postcode is not, read again without re-filing.
func TestOrgAddressDecidesTheBuyerCheck(t *testing.T) {
	t.Parallel()
	s := webtest.NewAPSite(t, false)
	ctx := context.Background()
	setAddress := func(postcode string) {
		t.Helper()
		if _, err := org.SetIdentity(ctx, s.DB.Pool, s.OrgID, org.Identity{
			Address: org.Address{Lines: []string{"Anystreet 8"}, City: "Anytown", Postcode: postcode, Country: "NO"}}, audit.System("test")); err != nil {
			t.Fatal(err)
		}
	}
	setAddress("101")
	id := s.FileAs(t, "application/xml", webtest.Sample(t, "samples/en16931-ubl-example2.xml"))
	if _, ok := s.APFindings(t, id)[apchecks.CodeBuyerNotThisOrg]; ok {
		t.Fatal("the sample's own buyer address warns")
	}
	setAddress("0150")
	f, ok := s.APFindings(t, id)[apchecks.CodeBuyerNotThisOrg]
	if !ok || f["field"] != "buyer.address" || !strings.Contains(f["message"].(string), "postcode 101") {
		t.Fatalf("another postcode: %v", s.APFindings(t, id))
	}
	if _, ok := webtest.PageCodes(s.Page(t, id))[apchecks.CodeBuyerNotThisOrg]; !ok {
		t.Fatal("the page does not show the warning")
	}
}
