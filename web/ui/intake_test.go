package ui_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func TestUploadFormWithoutScriptAndTypeIn(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	_, u, c, csrf := a.SignedInClient(t, auth.RoleReviewer)

	// The form as a browser without the script sends it: the token first, then every file.
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("_csrf", csrf)
	for _, name := range []string{"scanned-invoice.png", "json-invoice-with-totals.json"} {
		part, _ := w.CreateFormFile("file", name)
		_, _ = part.Write(webtest.Sample(t, name))
	}
	_ = w.Close()
	resp, err := c.Post(a.URL+"/upload", w.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	d := webtest.Doc(t, resp)
	if resp.StatusCode != 200 || d.Find(`[data-testid=upload-result][data-outcome=new]`).Length() != 2 {
		t.Fatalf("upload without the script: %d, %d new", resp.StatusCode, d.Find(`[data-testid=upload-result][data-outcome=new]`).Length())
	}
	href, _ := d.Find(`[data-testid=upload-result] a`).First().Attr("href")

	// The scan is flagged for a person to type in.
	api := a.APIFor(t, u)
	id := strings.TrimPrefix(href, "/intake/")
	scan := api.WaitStatus(float64(webtest.MustAtoi(t, id)), "flagged")
	if scan["flag_reason"] != "needs_manual_extraction" {
		t.Fatalf("scan: %v", scan)
	}
	resp, err = c.Get(a.URL + href)
	if err != nil {
		t.Fatal(err)
	}
	if link, _ := webtest.Doc(t, resp).Find(`[data-testid=type-in]`).Attr("href"); link != href+"/type-in" {
		t.Fatalf("type-in link: %q", link)
	}
	form := url.Values{"_csrf": {csrf}, "type": {"invoice"}, "number": {"PAPER-7"}, "issue_date": {"2026-11-20"}, "currency": {"EUR"},
		"seller_name": {"Paper Supplier AB"}, "seller_vat_id": {"SE556677889901"}, "buyer_name": {"Acme"},
		"line_description": {"Paper", ""}, "line_quantity": {"3", ""}, "line_unit_price": {"50.00", ""}, "line_tax_rate": {"25", ""}}
	// A typo that does not add up is shown, and nothing is filed.
	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad["line_unit_price"] = []string{"fifty", ""}
	resp, err = c.PostForm(a.URL+href+"/type-in", bad)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a bad amount: %d", resp.StatusCode)
	}
	resp, err = c.PostForm(a.URL+href+"/type-in", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("type in: %d", resp.StatusCode)
	}
	typed := api.WaitStatus(float64(webtest.MustAtoi(t, id)), "pending")
	if typed["fields"].(map[string]any)["number"] != "PAPER-7" || typed["source_ref"] != "vat:SE556677889901/PAPER-7" {
		t.Fatalf("typed in: %v", typed)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE action = 'typed_in' AND subject_id = $1`, webtest.MustAtoi(t, id)); n != 1 {
		t.Fatalf("typing in was not audited (%d)", n)
	}
}
