package api_test

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

// TestFormatsAndProfilesAreFiledApprovedAndPosted sends a document of each format and profile the
// parsers read (ZUGFeRD 1.0, Factur-X MINIMUM and BASIC WL among them) through the API: each is filed
// pending with its syntax (format) and
// profile, shown on the document page, and once approved posts an entry that balances and credits
// the supplier with the stated amount due. A document that is not an invoice is flagged
// not_an_invoice, saying what it is.
func TestFormatsAndProfilesAreFiledApprovedAndPosted(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.OrgWith(t, a.DB, "formats", "EUR")
	if _, err := a.DB.Pool.Exec(context.Background(), `UPDATE orgs SET default_expense_account_id =
		(SELECT id FROM accounts WHERE org_id = $1 AND code = '6000') WHERE id = $1`, o.ID); err != nil {
		t.Fatal(err)
	}
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, reviewer)
	browser := a.Client(t)
	a.SignIn(t, browser, reviewer)

	for _, tc := range []struct {
		file, mediaType, format, profile, payable string
	}{
		{"zugferd1-invoice.pdf", "application/pdf", "facturx", "zugferd1_comfort", "479.87"},
		{"zugferd1-basic.xml", "application/xml", "zugferd1", "zugferd1_basic", "235.62"},
		{"facturx-basicwl.pdf", "application/pdf", "facturx", "basic_wl", "809.00"},
		{"facturx-minimum.xml", "application/xml", "cii", "minimum", "999.60"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			status, body := c.Do("POST", "/api/v1/documents", tc.mediaType, webtest.Sample(t, tc.file))
			if status != 202 {
				t.Fatalf("upload: %d %v", status, body)
			}
			id := body["intake_id"].(float64)
			filed := c.WaitStatus(id, "pending")
			// MINIMUM and BASIC WL carry one info: the EN 16931 rules do not apply to them.
			if filed["format"] != tc.format || filed["profile"] != tc.profile || !onlyInfos(filed["findings"]) {
				t.Fatalf("filed: format %v profile %v findings %v", filed["format"], filed["profile"], filed["findings"])
			}
			if fields := filed["fields"].(map[string]any); fields["profile"] != tc.profile {
				t.Errorf("fields carry profile %v", fields["profile"])
			}

			resp, err := browser.Get(a.URL + "/intake/" + webtest.Itoa(int64(id)))
			if err != nil {
				t.Fatal(err)
			}
			page := webtest.Doc(t, resp)
			if got, _ := page.Find(`[data-testid=profile]`).Attr("data-profile"); got != tc.profile {
				t.Errorf("the page shows profile %q, want %q", got, tc.profile)
			}
			if got, _ := page.Find(`[data-testid=format]`).Attr("data-format"); got != tc.format {
				t.Errorf("the page shows format %q, want %q", got, tc.format)
			}

			if status, resp := c.PostJSON("/api/v1/intake/"+webtest.Itoa(int64(id))+"/approve", ""); status != 200 || resp["status"] != "active" {
				t.Fatalf("approve: %d %v", status, resp)
			}
			posted := c.WaitStatus(id, "posted")
			status, entry := c.Get("/api/v1/journal-entries/" + webtest.Itoa(int64(posted["result_entry_id"].(float64))))
			if status != 200 {
				t.Fatalf("entry: %d %v", status, entry)
			}
			var debit, credit, payable decimal.Decimal
			for _, l := range entry["lines"].([]any) {
				line := l.(map[string]any)
				d, c := decimal.RequireFromString(line["debit"].(string)), decimal.RequireFromString(line["credit"].(string))
				debit, credit = debit.Add(d), credit.Add(c)
				if line["account"] == ledger.AccountsPayable {
					payable = payable.Add(c).Sub(d)
				}
			}
			if !debit.Equal(credit) || !payable.Equal(decimal.RequireFromString(tc.payable)) {
				t.Fatalf("entry debits %s, credits %s, payable %s; want balanced and payable %s: %v", debit, credit, payable, tc.payable, entry["lines"])
			}
		})
	}

	for _, tc := range []struct{ file, mediaType, says string }{
		{"orderx-order.xml", "application/xml", "an Order-X order"},
		{"orderx-order.pdf", "application/pdf", "an Order-X order"},
		{"cii-despatch-advice.xml", "application/xml", "a despatch advice"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			_, body := c.Do("POST", "/api/v1/documents", tc.mediaType, webtest.Sample(t, tc.file))
			filed := c.WaitStatus(body["intake_id"].(float64), "flagged")
			findings := filed["findings"].([]any)
			if filed["flag_reason"] != "not_an_invoice" || len(findings) != 1 {
				t.Fatalf("filed %v with findings %v, want flagged not_an_invoice", filed["flag_reason"], findings)
			}
			f := findings[0].(map[string]any)
			if f["code"] != "not_an_invoice" || f["severity"] != "fatal" || !strings.Contains(f["message"].(string), tc.says) {
				t.Fatalf("finding %v, want not_an_invoice saying %q", f, tc.says)
			}
			// It is rejected, not approved nor typed in: the page offers neither, the API refuses approval.
			id := webtest.Itoa(int64(filed["id"].(float64)))
			resp, err := browser.Get(a.URL + "/intake/" + id)
			if err != nil {
				t.Fatal(err)
			}
			page := webtest.Doc(t, resp)
			if page.Find(`[data-testid=approve]`).Length() != 0 || page.Find(`[data-testid=type-in]`).Length() != 0 || page.Find(`[data-testid=reject-form]`).Length() != 1 {
				t.Errorf("the page of a document that is not an invoice offers approve or type-in, or no reject")
			}
			if status, resp := c.PostJSON("/api/v1/intake/"+id+"/approve", ""); status != 409 || webtest.ErrorOf(resp)["code"] != "invalid_state" ||
				!strings.Contains(webtest.ErrorOf(resp)["message"].(string), "not an invoice") {
				t.Errorf("approving a document that is not an invoice: %d %v", status, resp)
			}
		})
	}
}

// onlyInfos reports whether findings (a document's, as the API gives them) hold nothing but infos.
func onlyInfos(findings any) bool {
	list, _ := findings.([]any)
	for _, f := range list {
		if f.(map[string]any)["severity"] != "info" {
			return false
		}
	}
	return true
}
