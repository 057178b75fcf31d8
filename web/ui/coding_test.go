package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// codingDimension gives org orgID the dimension cost_center with the
// values OPS and RND, and the inactive value OLD.
func codingDimension(t *testing.T, a *webtest.Site, orgID int64) {
	t.Helper()
	if _, err := a.DB.Pool.Exec(context.Background(), `WITH d AS (INSERT INTO dimensions (org_id, name) VALUES ($1, 'cost_center') RETURNING id)
		INSERT INTO dimension_values (dimension_id, code, name, active)
		SELECT d.id, v.code, v.name, v.active FROM d, (VALUES ('OPS', 'Operations', true), ('RND', 'Research', true), ('OLD', 'Closed', false)) AS v (code, name, active)`, orgID); err != nil {
		t.Fatal(err)
	}
}

func getPage(t *testing.T, c *http.Client, u string) *goquery.Document {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	return webtest.Doc(t, resp)
}

func codingForm(csrf string, rows ...[4]string) url.Values {
	f := url.Values{"_csrf": {csrf}}
	for _, r := range rows {
		f["line"] = append(f["line"], r[0])
		f["account"] = append(f["account"], r[1])
		f["dim_cost_center"] = append(f["dim_cost_center"], r[2])
		f["amount"] = append(f["amount"], r[3])
	}
	return f
}

func TestTheCodingGridShowsTheLinesAndSavesAsTyped(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, u, c, csrf := a.SignedInClient(t, auth.RoleReviewer)
	codingDimension(t, a, o.ID)
	api := a.APIFor(t, u)
	id := webtest.Filed(t, api, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	page := a.URL + "/intake/" + webtest.Itoa(id)

	// Nothing coded or suggested yet: one row per line, at its net, its
	// source none; the choices are the active accounts and values.
	d := getPage(t, c, page)
	rows := d.Find(`[data-testid=coding-grid] [data-testid=coding-row]`)
	if rows.Length() != 5 {
		t.Fatalf("grid rows: %d", rows.Length())
	}
	first := rows.First()
	if line, _ := first.Attr("data-line"); line != "1" || first.Find(`[data-testid=coding-source]`).Text() != "none" {
		t.Fatalf("first row: line %q, source %q", line, first.Find(`[data-testid=coding-source]`).Text())
	}
	if v, _ := first.Find(`[data-testid=coding-amount]`).Attr("value"); v != "12000.00" {
		t.Fatalf("first row's amount: %q", v)
	}
	if d.Find(`#coding-accounts option[value="6300"]`).Length() != 1 || d.Find(`#coding-values-cost_center option`).Length() != 2 ||
		d.Find(`#coding-values-cost_center option[value=OLD]`).Length() != 0 {
		t.Fatal("the choices are not the active accounts and values")
	}
	if n := d.Find(`[data-testid=coding-line-check][data-off=false]`).Length(); n != 5 {
		t.Fatalf("lines checked as summing to their nets: %d of 5", n)
	}

	// Faults are shown beside the named row's field, the typed rows kept
	// and percentages converted to the cent, the last row taking the rest.
	bad := codingForm(csrf, [4]string{"1", "6400", "OPS", "12000.00"}, [4]string{"2", "6100", "OPS", "33.33%"},
		[4]string{"2", "6100", "RND", "66.67%"}, [4]string{"3", "6300", "", "2900.00"}, [4]string{"4", "6100", "OLD", "747.00"},
		[4]string{"5", "9999", "", "5000.00"})
	resp, err := c.PostForm(page+"/coding", bad)
	if err != nil {
		t.Fatal(err)
	}
	d = webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || d.Find(`[data-testid=coding-error]`).Length() != 1 {
		t.Fatalf("an unknown account: %d", resp.StatusCode)
	}
	rows = d.Find(`[data-testid=coding-row]`)
	if msg := rows.Eq(5).Find(`[data-testid=coding-account-error]`).Text(); !strings.Contains(msg, "9999") {
		t.Fatalf("the unknown account's fault: %q", msg)
	}
	if inv, _ := rows.Eq(5).Find(`[data-testid=coding-account]`).Attr("aria-invalid"); inv != "true" {
		t.Fatal("the unknown account is not marked invalid")
	}
	if msg := rows.Eq(4).Find(`[data-testid=coding-dimension-error]`).Text(); !strings.Contains(msg, "inactive") {
		t.Fatalf("the inactive value's fault: %q", msg)
	}
	for i, want := range map[int]string{1: "74.99", 2: "150.01"} {
		if v, _ := rows.Eq(i).Find(`[data-testid=coding-amount]`).Attr("value"); v != want {
			t.Fatalf("row %d's percentage: %q, want %s", i, v, want)
		}
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM intake_coding WHERE intake_id = $1`, id); n != 0 {
		t.Fatalf("a refused coding wrote %d rows", n)
	}

	// An approval given (the policy asks two) is discarded by a change of
	// the coding, and the page says so.
	if _, err := org.SetApprovalPolicy(context.Background(), a.DB.Pool, o.ID, org.ApprovalPolicy{Rules: []org.ApprovalRule{{MinAmount: "0.00", Approvals: 2}}},
		audit.System("test")); err != nil {
		t.Fatal(err)
	}
	if code, body := api.PostJSON("/api/v1/intake/"+webtest.Itoa(id)+"/approve", `{}`); code >= 300 {
		t.Fatalf("approve: %d %v", code, body)
	}
	good := codingForm(csrf, [4]string{"1", "6400", "OPS", "12000.00"}, [4]string{"2", "6100", "OPS", "40%"},
		[4]string{"2", "6100", "RND", "60%"}, [4]string{"3", "6300", "", "2900.00"}, [4]string{"4", "6100", "", "747.00"},
		[4]string{"5", "6400", "", "5000.00"})
	resp, err = c.PostForm(page+"/coding", good)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	d = getPage(t, c, page)
	if flash := d.Find(`#flash`).Text(); !strings.Contains(flash, "the approvals given were discarded") {
		t.Fatalf("flash: %q", flash)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM intake_coding WHERE intake_id = $1 AND source = 'reviewer'
		AND (line, amount) IN ((1, 12000), (2, 90), (2, 135), (3, 2900), (4, 747), (5, 5000))`, id); n != 6 {
		t.Fatalf("saved rows as typed: %d of 6", n)
	}
	rows = d.Find(`[data-testid=coding-row]`)
	if rows.Length() != 6 || rows.Eq(2).Find(`[data-testid=coding-source]`).Text() != "reviewer" {
		t.Fatalf("the saved grid: %d rows", rows.Length())
	}
	if v, _ := rows.Eq(2).Find(`[data-dimension=cost_center]`).Attr("value"); v != "RND" {
		t.Fatalf("the split row's cost centre: %q", v)
	}

	// Settled, the coding is read only and a save is refused (409).
	if code, body := api.PostJSON("/api/v1/intake/"+webtest.Itoa(id)+"/reject", `{"reason":"not ours"}`); code >= 300 {
		t.Fatalf("reject: %d %v", code, body)
	}
	d = getPage(t, c, page)
	if d.Find(`[data-testid=coding-form]`).Length() != 0 || d.Find(`[data-testid=coding-grid][data-readonly=true] [data-testid=coding-row]`).Length() != 6 {
		t.Fatal("a rejected document's coding is not read only")
	}
	resp, err = c.PostForm(page+"/coding", good)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("coding a rejected document: %d", resp.StatusCode)
	}
}
