package api_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// codingBody codes every line of a document as GET shows it to account,
// the first line split in two, and the document-level remainder when there
// is one.
func codingBody(t *testing.T, doc map[string]any, account string) string {
	t.Helper()
	fields := doc["fields"].(map[string]any)
	lines, _ := fields["lines"].([]any)
	if len(lines) == 0 {
		t.Fatalf("the sample has no lines: %v", fields)
	}
	var rows []string
	sum := decimal.Zero
	for i, l := range lines {
		net := decimal.RequireFromString(l.(map[string]any)["net"].(string))
		sum = sum.Add(net)
		if i == 0 {
			half := net.Div(decimal.NewFromInt(2)).Round(2)
			rows = append(rows, fmt.Sprintf(`{"line": 1, "account": %q, "dimensions": {}, "amount": %q}`, account, half.String()),
				fmt.Sprintf(`{"line": 1, "account": %q, "amount": %q}`, account, net.Sub(half).String()))
			continue
		}
		rows = append(rows, fmt.Sprintf(`{"line": %d, "account": %q, "amount": %q, "source": "history"}`, i+1, account, net.String()))
	}
	total := decimal.RequireFromString(fields["totals"].(map[string]any)["net"].(string))
	if rest := total.Sub(sum); !rest.IsZero() {
		rows = append(rows, fmt.Sprintf(`{"line": null, "account": %q, "amount": %q}`, account, rest.String()))
	}
	body := `{"coding": [`
	for i, r := range rows {
		if i > 0 {
			body += ", "
		}
		body += r
	}
	return body + `]}`
}

// PUT /api/v1/intake/{id}/coding replaces a document's coding, which GET
// and the listing then show with source reviewer; a coding naming what the
// chart lacks, or with a malformed amount, is refused with 422 naming the
// row; another org's document is 404; once the document is approved
// (active) its coding is settled: 409 invalid_state.
func TestADocumentsCodingIsReadAndReplacedThroughTheAPI(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, _ := a.API(t, auth.RoleReviewer)
	id := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	path := fmt.Sprintf("/api/v1/intake/%d", id)
	status, doc := c.Get(path)
	if status != 200 {
		t.Fatalf("GET: %d %v", status, doc)
	}
	if _, ok := doc["coding"].([]any); !ok {
		t.Fatalf("a document's coding is a list: %v", doc["coding"])
	}
	body := codingBody(t, doc, "6000")

	status, got := c.Do("PUT", path+"/coding", "application/json", []byte(body))
	if status != 200 {
		t.Fatalf("PUT coding: %d %v", status, got)
	}
	rows := got["coding"].([]any)
	first := rows[0].(map[string]any)
	if first["source"] != "reviewer" || first["account"] != "6000" || first["line"] != float64(1) || rows[len(rows)-1].(map[string]any)["source"] != "reviewer" {
		t.Fatalf("stored coding: %v", rows)
	}
	if _, err := decimal.NewFromString(first["amount"].(string)); err != nil {
		t.Fatalf("amount %v is not a decimal string", first["amount"])
	}
	_, doc = c.Get(path)
	if fmt.Sprint(doc["coding"]) != fmt.Sprint(rows) {
		t.Fatalf("GET shows %v, PUT answered %v", doc["coding"], rows)
	}
	listed := c.Page("/api/v1/intake?limit=1")
	var inList map[string]any
	if len(listed.Documents) != 1 || json.Unmarshal(listed.Documents[0], &inList) != nil || fmt.Sprint(inList["coding"]) != fmt.Sprint(rows) {
		t.Fatalf("the listing shows %v, PUT answered %v", inList["coding"], rows)
	}

	for name, tc := range map[string]struct{ body, field string }{
		"an unknown account": {codingBody(t, doc, "9999x"), "coding[0].account"},
		"a malformed amount": {`{"coding": [{"line": 1, "account": "6000", "amount": "1e3"}]}`, "coding[0].amount"},
		"a line it lacks":    {`{"coding": [{"line": 99, "account": "6000", "amount": "1.00"}]}`, "coding[0].line"},
	} {
		status, got := c.Do("PUT", path+"/coding", "application/json", []byte(tc.body))
		e := webtest.ErrorOf(got)
		reasons, _ := e["reasons"].([]any)
		if status != 422 || e["code"] != "invalid" || len(reasons) == 0 || reasons[0].(map[string]any)["field"] != tc.field {
			t.Errorf("%s: %d %v, want 422 naming %s", name, status, got, tc.field)
		}
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM intake_coding WHERE intake_id = $1`, id); n != len(rows) {
		t.Errorf("%d rows after the refusals, want %d", n, len(rows))
	}

	other, _ := a.API(t, auth.RoleAdmin)
	if status, got := other.Do("PUT", path+"/coding", "application/json", []byte(body)); status != 404 {
		t.Errorf("another org's coding: %d %v", status, got)
	}

	if status, got := c.PostJSON(path+"/approve", ""); status != 200 {
		t.Fatalf("approve: %d %v", status, got)
	}
	status, got = c.Do("PUT", path+"/coding", "application/json", []byte(body))
	if status != 409 || webtest.ErrorOf(got)["code"] != "invalid_state" {
		t.Fatalf("coding an approved document: %d %v, want 409 invalid_state", status, got)
	}
}
