package api_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func TestTypewriterAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	id := func(v any) string { return webtest.Itoa(int64(v.(float64))) }

	compose := func(number string) (docID string, v1 map[string]any) {
		status, body := c.PostJSON("/api/v1/typewriter/documents", strings.Replace(webtest.Composed, "SB-100", number, 1))
		if status != 201 {
			t.Fatalf("compose: %d %v", status, body)
		}
		v := body["version"].(map[string]any)
		if v["number"] != float64(1) || len(v["pdf_sha256"].(string)) != 64 {
			t.Fatalf("version 1: %v", v)
		}
		return id(body["id"]), v
	}
	revise := func(docID, number, change string) map[string]any {
		body := strings.Replace(strings.Replace(webtest.Composed, "SB-100", number, 1), `"10"`, change, 1)
		status, resp := c.PostJSON("/api/v1/typewriter/documents/"+docID+"/versions", body)
		if status != 201 {
			t.Fatalf("revise: %d %v", status, resp)
		}
		return resp
	}
	submit := func(v map[string]any) map[string]any {
		status, body := c.PostJSON("/api/v1/typewriter/versions/"+id(v["id"])+"/submit", "")
		if status != 202 {
			t.Fatalf("submit: %d %v", status, body)
		}
		return body
	}

	// v1 approved, v2 submitted: v2 is flagged against v1, and approving it is a 409.
	doc, v1 := compose("SB-100")
	v2 := revise(doc, "SB-100", `"12"`)
	if v2["number"] != float64(2) || v2["supersedes_id"] != v1["id"] || v2["pdf_sha256"] == v1["pdf_sha256"] {
		t.Fatalf("version 2: %v", v2)
	}
	s1 := submit(v1)
	if s1["status"] != "pending" || s1["duplicate_of"] != nil {
		t.Fatalf("v1: %v", s1)
	}
	if status, _ := c.PostJSON("/api/v1/intake/"+id(s1["intake_id"])+"/approve", ""); status != 200 {
		t.Fatal("approving v1")
	}
	s2 := submit(v2)
	if s2["status"] != "flagged" || s2["duplicate_of"] != s1["intake_id"] {
		t.Fatalf("v2 after an approved v1: %v", s2)
	}
	_, got := c.Get("/api/v1/intake/" + id(s2["intake_id"]))
	if got["duplicate_reason"] != "newer_version" || len(got["group"].([]any)) != 2 {
		t.Fatalf("v2 row: %v", got)
	}
	if status, body := c.PostJSON("/api/v1/intake/"+id(s2["intake_id"])+"/approve", ""); status != 409 ||
		webtest.ErrorOf(body)["blocking"].(map[string]any)["id"] != s1["intake_id"] {
		t.Fatalf("approving v2: %d %v", status, body)
	}

	// v1 rejected, v2 submitted: filed normally.
	doc, v1 = compose("SB-200")
	v2 = revise(doc, "SB-200", `"12"`)
	s1 = submit(v1)
	if status, _ := c.PostJSON("/api/v1/intake/"+id(s1["intake_id"])+"/reject", `{"reason": "wrong quantity"}`); status != 200 {
		t.Fatal("reject")
	}
	if s2 := submit(v2); s2["status"] != "pending" || s2["duplicate_of"] != nil {
		t.Fatalf("v2 after a rejected v1: %v", s2)
	}

	// v1 pending, v2 submitted: flagged; v3 after them: against the live incumbent, v1.
	doc, v1 = compose("SB-300")
	v2 = revise(doc, "SB-300", `"12"`)
	v3 := revise(doc, "SB-300", `"14"`)
	s1 = submit(v1)
	if s2 := submit(v2); s2["status"] != "flagged" || s2["duplicate_of"] != s1["intake_id"] {
		t.Fatalf("v2 after a pending v1: %v", s2)
	}
	if s3 := submit(v3); s3["duplicate_of"] != s1["intake_id"] {
		t.Fatalf("v3: %v", s3)
	}

	// The PDF, fetched twice, is the same bytes; posted to intake it yields the same fields.
	status, pdf := c.Raw("GET", "/api/v1/typewriter/versions/"+id(v1["id"])+"/pdf")
	_, again := c.Raw("GET", "/api/v1/typewriter/versions/"+id(v1["id"])+"/pdf")
	if status != 200 || !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.Equal(pdf, again) {
		t.Fatalf("pdf: %d", status)
	}
	other, _ := a.API(t, auth.RoleReviewer)
	status, body := other.Do("POST", "/api/v1/documents", "application/pdf", pdf)
	if status != 202 {
		t.Fatalf("ingesting the PDF elsewhere: %d %v", status, body)
	}
	read := other.WaitStatus(body["intake_id"].(float64), "pending")
	var want map[string]any
	_ = json.Unmarshal([]byte(strings.Replace(webtest.Composed, "SB-100", "SB-300", 1)), &want)
	fields := read["fields"].(map[string]any)
	if fields["number"] != "SB-300" || fields["currency"] != "SEK" || fields["seller"].(map[string]any)["vat_id"] != "SE556677889901" ||
		fields["totals"].(map[string]any)["payable"] != "750" || len(fields["lines"].([]any)) != 2 || read["format"] != "facturx" {
		t.Fatalf("round trip: %v", fields)
	}

	// Strict JSON, and another org's versions are not found.
	if status, body := c.PostJSON("/api/v1/typewriter/documents", strings.Replace(webtest.Composed, `"currency"`, `"curency": "SEK", "currency"`, 1)); status != 422 {
		t.Fatalf("an unknown field: %d %v", status, body)
	}
	if status, _ := other.Raw("GET", "/api/v1/typewriter/versions/"+id(v1["id"])+"/pdf"); status != 404 {
		t.Fatalf("another org's PDF: %d", status)
	}
}
