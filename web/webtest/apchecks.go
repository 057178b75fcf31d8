package webtest

import (
	"context"
	"fmt"
	"net/http"
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

// APInvoice is an invoice in the project's own JSON format, from seller,
// dated issue (and due, when not empty), to buyer, paid to iban.
func APInvoice(number, seller, issue, due, buyerName, buyerVAT, iban string) []byte {
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

// APSite is an app with a reviewer's API client and browser client in an
// org whose identity is Acme Handels GmbH, DE123456789.
type APSite struct {
	*Site
	Reviewer *APIClient
	Browser  *http.Client
	OrgID    int64
}

// NewAPSite serves the app for the AP checks, with the org's identity set
// when identity is true.
func NewAPSite(t *testing.T, identity bool) APSite {
	a := NewSite(t)
	o := testkit.Org(t, a.DB)
	if identity {
		if _, err := org.SetIdentity(context.Background(), a.DB.Pool, o.ID,
			org.Identity{LegalName: "Acme Handels GmbH", VATID: "DE123456789"}, audit.System("test")); err != nil {
			t.Fatal(err)
		}
	}
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.Client(t)
	a.SignIn(t, c, u)
	return APSite{Site: a, Reviewer: a.APIFor(t, u), Browser: c, OrgID: o.ID}
}

// File ingests content through the API and waits until it is pending.
func (s APSite) File(t *testing.T, content []byte) int64 {
	t.Helper()
	return s.FileAs(t, "application/json", content)
}

// FileAs ingests content of a media type through the API and waits until
// it is pending.
func (s APSite) FileAs(t *testing.T, mediaType string, content []byte) int64 {
	t.Helper()
	code, body := s.Reviewer.Do("POST", "/api/v1/documents", mediaType, content)
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	id := body["intake_id"].(float64)
	s.Reviewer.WaitStatus(id, "pending")
	return int64(id)
}

// APFindings are the API's findings of document id with a code of the AP checks.
func (s APSite) APFindings(t *testing.T, id int64) map[string]map[string]any {
	t.Helper()
	_, doc := s.Reviewer.Get("/api/v1/intake/" + Itoa(id))
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

// Page is document id's page as the reviewer sees it.
func (s APSite) Page(t *testing.T, id int64) *goquery.Document {
	t.Helper()
	resp, err := s.Browser.Get(s.URL + "/intake/" + Itoa(id))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("page of %d: %d", id, resp.StatusCode)
	}
	return Doc(t, resp)
}

// PageCodes are the AP checks the page shows, with their messages.
func PageCodes(d *goquery.Document) map[string]string {
	out := map[string]string{}
	d.Find(`[data-testid=ap-checks] [data-testid=ap-finding]`).Each(func(_ int, s *goquery.Selection) {
		code, _ := s.Attr("data-code")
		out[code] = strings.TrimSpace(s.Find(`[data-testid=ap-finding-message]`).Text())
	})
	return out
}

// Day is the date offsetDays from today (UTC).
func Day(offsetDays int) string {
	return time.Now().UTC().AddDate(0, 0, offsetDays).Format(time.DateOnly)
}

// Form is the page at path and the CSRF token of its form formTestID.
func (s APSite) Form(t *testing.T, path, formTestID string) (*goquery.Document, string) {
	t.Helper()
	resp, err := s.Browser.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	d := Doc(t, resp)
	csrf, _ := d.Find(`[data-testid=` + formTestID + `] input[name=_csrf]`).Attr("value")
	return d, csrf
}
