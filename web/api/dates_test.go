package api_test

import (
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// A date the ledger cannot hold is refused where amounts are: the document
// is filed as an invalid e-invoice naming the date, approve refuses it as
// unpostable (409) and nothing is launched, so no dead letter is made.
func TestDatesTheLedgerCannotHoldAreRefusedAtTheDoor(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	for _, date := range []string{"0000-01-01", "0001-06-30", "1899-12-31"} {
		t.Run(date, func(t *testing.T) {
			body := strings.Replace(string(webtest.JSONInvoice("D-"+date)), `"issue_date":"2026-11-20"`, `"issue_date":"`+date+`"`, 1)
			code, res := c.Do("POST", "/api/v1/documents", "application/json", []byte(body))
			if code != 202 {
				t.Fatalf("upload: %d %v", code, res)
			}
			id := res["intake_id"].(float64)
			doc := c.WaitStatus(id, "flagged")
			if doc["flag_reason"] != "invalid_einvoice" || !strings.Contains(webtest.ToJSON(doc["findings"]), `"date_out_of_range"`) {
				t.Fatalf("filed as %v with findings %s", doc["flag_reason"], webtest.ToJSON(doc["findings"]))
			}
			code, res = c.PostJSON("/api/v1/intake/"+webtest.Itoa(int64(id))+"/approve", `{"acknowledge_invalid": true, "reason": "looks fine"}`)
			if code != 409 || !strings.Contains(webtest.ToJSON(res), "unpostable") {
				t.Fatalf("approve: %d %v, want 409 unpostable", code, res)
			}
			if n := testkit.Count(t, a.DB, `SELECT count(*) FROM jobs WHERE intake_id = $1`, int64(id)); n != 0 {
				t.Fatalf("%d jobs launched for a document the ledger cannot post", n)
			}
		})
	}
	// The ledger's first year is still filed pending (with the issue-date
	// plausibility warning).
	body := strings.Replace(string(webtest.JSONInvoice("D-1900")), `"issue_date":"2026-11-20"`, `"issue_date":"1900-01-01"`, 1)
	code, res := c.Do("POST", "/api/v1/documents", "application/json", []byte(body))
	if code != 202 {
		t.Fatalf("upload: %d %v", code, res)
	}
	c.WaitStatus(res["intake_id"].(float64), "pending")
}
