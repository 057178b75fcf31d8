package readui_test

import (
	"bytes"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func get(t *testing.T, c *http.Client, u string) (*http.Response, []byte) {
	t.Helper()
	resp := webtest.Get(t, c, u)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	webtest.Must(t, err)
	return resp, body
}

// A document read from its text has the images of its pages; an e-invoice,
// and a page the document does not have, are 404.
func TestAReadPageIsAPNG(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	_, u, c, _ := a.SignedInClient(t, auth.RoleReviewer)
	api := a.APIFor(t, u)
	read := webtest.FiledPDF(t, api, webtest.GermanInvoice(t, "Beleg:", "BX-1001", "03.02.2025", "100,00", "19,00", "119,00"), "flagged")
	einvoice := webtest.Filed(t, api, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")

	resp, body := get(t, c, a.URL+"/intake/"+webtest.Itoa(read)+"/pages/1")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !strings.Contains(resp.Header.Get("Cache-Control"), "private") {
		t.Fatalf("page 1: %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
	}
	img, err := png.Decode(bytes.NewReader(body))
	webtest.Must(t, err)
	// An A4 page at about 110 dpi: some 900 pixels wide, taller than wide.
	if b := img.Bounds(); b.Dx() < 800 || b.Dx() > 1000 || b.Dy() <= b.Dx() {
		t.Fatalf("page image %v", b)
	}

	for _, path := range []string{
		"/intake/" + webtest.Itoa(einvoice) + "/pages/1",
		"/intake/" + webtest.Itoa(read) + "/pages/2",
		"/intake/" + webtest.Itoa(read) + "/pages/0",
		"/intake/" + webtest.Itoa(read) + "/pages/x",
	} {
		if resp, _ := get(t, c, a.URL+path); resp.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
}

// The type-in form of a document read with an uncertain number shows the
// page with each read field's place, marks the read fields' inputs, says
// what is uncertain, and that confirming teaches the supplier's layout.
func TestTheTypeInFormShowsWhereEachFieldWasRead(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	_, u, c, _ := a.SignedInClient(t, auth.RoleReviewer)
	id := webtest.FiledPDF(t, a.APIFor(t, u), webtest.GermanInvoice(t, "Beleg:", "BX-1001", "03.02.2025", "100,00", "19,00", "119,00"), "flagged")
	doc := webtest.Doc(t, webtest.Get(t, c, a.URL+"/intake/"+webtest.Itoa(id)+"/type-in"))

	if src, _ := doc.Find(`[data-testid=read-page-image]`).Attr("src"); src != "/intake/"+webtest.Itoa(id)+"/pages/1" {
		t.Fatalf("page image %q", src)
	}
	box := doc.Find(`[data-testid=read-box][data-field=issue_date]`)
	style, _ := box.Attr("style")
	label, _ := box.Attr("aria-label")
	if box.Length() != 1 || !strings.Contains(style, "left:") || !strings.Contains(label, "Issue date") {
		t.Fatalf("issue date box: %d %q %q", box.Length(), style, label)
	}
	if v, _ := doc.Find(`#t-issue`).Attr("data-field"); v != "issue_date" {
		t.Fatalf("issue date input data-field %q", v)
	}
	note := doc.Find(`[data-testid=read-note][data-note-for=number]`)
	if note.Length() != 1 || !strings.Contains(note.Text(), "not found on the page") {
		t.Fatalf("number note %q", note.Text())
	}
	if d, _ := doc.Find(`#t-number`).Attr("aria-describedby"); d != "read-note-number" {
		t.Fatalf("number input described by %q", d)
	}
	if iban, _ := doc.Find(`#t-iban`).Attr("value"); iban != "DE02120300000000202051" {
		t.Fatalf("IBAN prefilled %q", iban)
	}
	if s := doc.Find(`[data-testid=typein-submit]`).Text(); s != "Confirm and file" {
		t.Fatalf("submit says %q", s)
	}
	if doc.Find(`[data-testid=typein-teaches]`).Length() != 1 {
		t.Fatal("no word that confirming teaches the layout")
	}

	// The document's page says how it was read and what is uncertain.
	page := webtest.Doc(t, webtest.Get(t, c, a.URL+"/intake/"+webtest.Itoa(id)))
	if s := page.Find(`[data-testid=read-source]`).Text(); s != "Read from its text layer." {
		t.Fatalf("read source %q", s)
	}
	if s := page.Find(`[data-testid=read-uncertain]`).Text(); !strings.Contains(s, "Number") {
		t.Fatalf("uncertain %q", s)
	}
}

// An admin forgets a learned layout, and then all of them; without the
// script each answers with a redirect to the page (post, redirect, get),
// with htmx with the table and the outcome. A reviewer may not.
func TestAnAdminForgetsLearnedLayouts(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, admin, c, csrf := a.SignedInClient(t, auth.RoleAdmin)
	for _, key := range []string{"vat:DE1", "vat:DE2", "vat:DE3"} {
		if _, err := a.DB.Pool.Exec(t.Context(), `INSERT INTO supplier_layouts (org_id, supplier_key, supplier_name, layout, learned_by)
			VALUES ($1, $2, 'Supplier ' || $2, '{"fields": {"number": {"page": 1, "box": {"x0": 0.1, "y0": 0.1, "x1": 0.2, "y1": 0.12}, "label_box": {"x0": 0, "y0": 0, "x1": 0, "y1": 0}}}}', $3)`,
			o.ID, key, admin.Email); err != nil {
			t.Fatal(err)
		}
	}
	page := webtest.Doc(t, webtest.Get(t, c, a.URL+"/admin/layouts"))
	rows := page.Find(`[data-testid=layout]`)
	if rows.Length() != 3 || !strings.Contains(rows.First().Find(`[data-testid=layout-fields]`).Text(), "Number") {
		t.Fatalf("%d layouts listed", rows.Length())
	}
	first, _ := rows.First().Attr("data-layout-id")

	if code := webtest.PostForm(t, c, a.URL+"/admin/layouts/"+first+"/forget", url.Values{"_csrf": {csrf}}, nil); code != http.StatusSeeOther {
		t.Fatalf("forget without htmx: %d, want 303", code)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM supplier_layouts WHERE org_id = $1`, o.ID); n != 2 {
		t.Fatalf("%d layouts after forgetting one", n)
	}
	// Forgetting it again says why not, in the table's region.
	req, _ := http.NewRequest("POST", a.URL+"/admin/layouts/"+first+"/forget", strings.NewReader(""))
	req.Header.Set("X-CSRF-Token", csrf)
	req.Header.Set("HX-Request", "true")
	resp, err := c.Do(req)
	webtest.Must(t, err)
	region := webtest.Doc(t, resp)
	if resp.StatusCode != 404 || !strings.Contains(region.Find(`[data-testid=layouts-outcome]`).Text(), "not found") || region.Find(`[data-testid=layout]`).Length() != 2 {
		t.Fatalf("forgetting again: %d %q", resp.StatusCode, region.Find(`[data-testid=layouts-outcome]`).Text())
	}

	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	rc := a.Client(t)
	rcsrf := a.SignIn(t, rc, reviewer)
	if code := webtest.PostForm(t, rc, a.URL+"/admin/layouts/reset", url.Values{"_csrf": {rcsrf}}, nil); code != http.StatusForbidden {
		t.Fatalf("a reviewer's reset: %d, want 403", code)
	}

	req, _ = http.NewRequest("POST", a.URL+"/admin/layouts/reset", strings.NewReader(""))
	req.Header.Set("X-CSRF-Token", csrf)
	req.Header.Set("HX-Request", "true")
	resp, err = c.Do(req)
	webtest.Must(t, err)
	region = webtest.Doc(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(region.Find(`[data-testid=layouts-outcome]`).Text(), "(2)") || region.Find(`[data-testid=no-layouts]`).Length() != 1 {
		t.Fatalf("reset: %d %q", resp.StatusCode, region.Find(`[data-testid=layouts-outcome]`).Text())
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM supplier_layouts`); n != 0 {
		t.Fatalf("%d layouts after the reset", n)
	}
}
