package web_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/web/webtest"
)

// What the ledger cannot store is a 422 with reasons, never a 500: amounts
// beyond numeric(20,4), NUL or invalid UTF-8 in any text of the entry, and
// dates PostgreSQL refuses or a ledger has no use for.
func TestTheJournalEntryAPIRefusesWhatTheLedgerCannotHold(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, _ := a.API(t, auth.RoleReviewer)
	both := func(old, new string) func(string) string {
		return func(s string) string { return strings.ReplaceAll(s, old, new) }
	}
	for _, tc := range []struct {
		name   string
		change func(string) string
		field  string
	}{
		{"17-digit amounts", both(`"100.00"`, `"12345678901234567.00"`), "lines[0].debit"},
		{"40-digit amounts", both(`"100.00"`, `"1234567890123456789012345678901234567890"`), "lines[0].debit"},
		{"a 17-digit base amount", func(s string) string {
			return strings.Replace(s, `"credit": "0",`, `"credit": "0", "base_debit": "99999999999999999",`, 1)
		}, "lines[0].base_debit"},
		{"NUL in an account code", both(`"6000"`, `"60\u000000"`), "lines[0].account"},
		{"NUL in a dimension value", both(`"OPS"`, `"O\u0000PS"`), "lines[0].dimensions.cost_center"},
		{"NUL in a dimension name", both(`"cost_center"`, `"cost\u0000center"`), "lines[0].dimensions"},
		{"NUL in the description", both(`"November payroll"`, `"Nov\u0000"`), "description"},
		{"NUL in the source id", both(`"door-NUL-in-the-source-id"`, `"run\u0000"`), "source_id"},
		{"NUL in the entry set", both(`"main"`, `"ma\u0000in"`), "entry_set"},
		{"a long dimension value", both(`"OPS"`, `"`+strings.Repeat("x", 201)+`"`), "lines[0].dimensions.cost_center"},
		{"the year 0000", both(`"2026-11-30"`, `"0000-01-01"`), "date"},
		{"the year 1899", both(`"2026-11-30"`, `"1899-12-31"`), "date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := tc.change(strings.Replace(webtest.Payroll, "run-2026-11", "door-"+strings.ReplaceAll(tc.name, " ", "-"), 1))
			status, resp := c.PostJSON("/api/v1/journal-entries", body)
			e := webtest.ErrorOf(resp)
			if status != 422 || e["code"] != "invalid" {
				t.Fatalf("got %d %v", status, resp)
			}
			reasons, _ := e["reasons"].([]any)
			found := false
			for _, r := range reasons {
				found = found || r.(map[string]any)["field"] == tc.field
			}
			if !found {
				t.Fatalf("reasons %v do not name %s", reasons, tc.field)
			}
		})
	}
	// The edges the ledger does hold are accepted.
	ok := strings.ReplaceAll(strings.Replace(webtest.Payroll, "run-2026-11", "door-edges", 1), `"100.00"`, `"9999999999999999.99"`)
	ok = strings.Replace(ok, `"2026-11-30"`, `"1900-01-01"`, 1)
	if status, resp := c.PostJSON("/api/v1/journal-entries", ok); status != 201 {
		t.Fatalf("the largest amount on the earliest date: %d %v", status, resp)
	}
	// A reversal dated where the ledger refuses is a 422 too.
	_, entry := c.PostJSON("/api/v1/journal-entries", strings.Replace(webtest.Payroll, "run-2026-11", "door-reverse", 1))
	id := webtest.Itoa(int64(entry["id"].(float64)))
	if status, resp := c.PostJSON("/api/v1/journal-entries/"+id+"/reverse", `{"date": "0000-01-01"}`); status != 422 {
		t.Fatalf("a reversal dated 0000-01-01: %d %v", status, resp)
	}
}

// A desk search the database cannot compare (a NUL, invalid UTF-8) is a
// 422 naming the parameter, not a 500.
func TestDeskSearchesTheDatabaseCannotHoldAre422(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	_, u := a.API(t, auth.RoleReviewer)
	c := a.Client(t)
	a.SignIn(t, c, u)
	expect422(t, a, c, "/desk?q=a%00b", "/desk?flag=%00", "/desk?type=%00", "/desk?flag=%ff")
}

// A decision's reason is stored (the row, the audit trail): one with a NUL
// is a 422, not a 500.
func TestAReasonTheDatabaseCannotHoldIs422(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	c, _ := a.API(t, auth.RoleAdmin)
	ubl, err := os.ReadFile("../internal/einvoice/testdata/ubl-invoice-multirate.xml")
	if err != nil {
		t.Fatal(err)
	}
	_, body := c.Do("POST", "/api/v1/documents", "application/xml", ubl)
	id := webtest.Itoa(int64(body["intake_id"].(float64)))
	c.WaitStatus(body["intake_id"].(float64), "pending")
	for _, path := range []string{"/reject", "/not-a-duplicate"} {
		status, resp := c.PostJSON("/api/v1/intake/"+id+path, `{"reason": "a typo \u0000 here"}`)
		if status != 422 || webtest.ErrorOf(resp)["code"] != "invalid" {
			t.Errorf("%s with a NUL reason: %d %v", path, status, resp)
		}
	}
}

// Ledger queries with what the database cannot compare are 422s naming the
// parameter: the API's list, the ledger page and the source-key explorer.
func TestLedgerQueriesTheDatabaseCannotHoldAre422(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	api, u := a.API(t, auth.RoleReviewer)
	for _, q := range []string{"source_id=a%00b", "source_type=%ff", "account=%00", "from=0000-01-01", "to=10000-01-01"} {
		if status, resp := api.Get("/api/v1/journal-entries?" + q); status != 422 || webtest.ErrorOf(resp)["code"] != "invalid" {
			t.Errorf("GET /api/v1/journal-entries?%s: %d %v", q, status, resp)
		}
	}
	c := a.Client(t)
	a.SignIn(t, c, u)
	expect422(t, a, c, "/ledger/source-keys?source_type=payroll&source_id=a%00b&entry_set=main", "/ledger?source_id=%00")
}

// The operators' filters too: a NUL is a 422, not a 500.
func TestOperatorFiltersTheDatabaseCannotHoldAre422(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	_, u := a.API(t, auth.RoleAdmin)
	c := a.Client(t)
	a.SignIn(t, c, u)
	expect422(t, a, c, "/admin/dead-letters?class=%00", "/admin/dead-letters?supplier=a%00", "/admin/dead-letters?after=x", "/admin/dead-letters?after=9223372036854775807-1", "/admin/runs?kind=%00", "/admin/runs?state=%ff")
}

// expect422 GETs each path as c's signed-in user and expects a 422.
func expect422(t *testing.T, a *webtest.Site, c *http.Client, paths ...string) {
	t.Helper()
	for _, path := range paths {
		resp, err := c.Get(a.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 422 {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
}
