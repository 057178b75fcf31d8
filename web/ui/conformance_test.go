package ui_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// The desk filters invalid e-invoices (flag invalid_einvoice, offered in
// its flag filter; a document in the project's JSON that breaks a rule is
// flagged so too); a valid published example's page says it is valid
// EN 16931 under its profile; a JSON document's page has no conformance
// panel, only its findings.
func TestTheDeskFiltersInvalidEInvoicesAndThePageSaysValid(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	r := a.APIFor(t, reviewer)
	upload := func(mediaType string, content []byte, status string) string {
		t.Helper()
		_, body := r.Do("POST", "/api/v1/documents", mediaType, content)
		id := body["intake_id"].(float64)
		r.WaitStatus(id, status)
		return webtest.Itoa(int64(id))
	}
	valid := upload("application/xml", webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	invalid := upload("application/xml", webtest.BrokenCopy(t, "NK-BROKEN-3"), "flagged")
	jsonDoc := upload("application/json", webtest.Sample(t, "json-invoice-bad-total.json"), "flagged")

	c := a.Client(t)
	a.SignIn(t, c, reviewer)
	page := func(path string) *goquery.Document {
		t.Helper()
		resp := webtest.Get(t, c, a.URL+path)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		return webtest.Doc(t, resp)
	}

	desk := page("/desk?tab=review&flag=invalid_einvoice")
	if desk.Find(`#f-flag option[value=invalid_einvoice][selected]`).Length() != 1 {
		t.Fatal("the desk's flag filter does not offer invalid_einvoice")
	}
	var rows []string
	desk.Find(`[data-testid=queue-row]`).Each(func(_ int, s *goquery.Selection) { rows = append(rows, s.AttrOr("data-document-id", "")) })
	// Newest first; the JSON document breaks BR-CO-16 too, and is flagged so.
	if strings.Join(rows, ",") != jsonDoc+","+invalid {
		t.Fatalf("invalid e-invoices on the desk: %v, want %s and %s, not the valid %s", rows, jsonDoc, invalid, valid)
	}

	d := page("/intake/" + valid)
	if got := strings.Join(strings.Fields(d.Find(`[data-testid=conformance] [data-testid=conformance-verdict]`).Text()), " "); got != "Valid EN 16931 (Peppol BIS Billing 3.0 profile)" {
		t.Fatalf("the valid example's panel says %q", got)
	}
	if d.Find(`[data-testid=acknowledge-form]`).Length() != 0 || d.Find(`textarea#reject-reason`).Length() != 0 {
		t.Fatal("a valid document is offered the acknowledgement or a pre-filled rejection")
	}

	d = page("/intake/" + jsonDoc)
	if d.Find(`[data-testid=conformance]`).Length() != 0 || d.Find(`[data-testid=findings] [data-testid=finding]`).Length() == 0 {
		html, _ := d.Find(`[data-testid=document]`).Html()
		t.Fatalf("a JSON document's page: %s", html)
	}
}
