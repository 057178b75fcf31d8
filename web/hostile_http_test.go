package web_test

import (
	"fmt"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// A client cannot post under a source type the product writes itself: the
// reviewer's entry under the bookkeeper's key of a pending document is
// refused, and the approval then posts the document as usual. Reversing the
// product's entry through the API still works (a reversal keeps the type).
func TestReservedSourceTypesAreRefusedToClients(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.db, o, auth.RoleReviewer)
	r := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, reviewer)}
	id := filed(t, r, sample(t, "ubl-invoice-multirate.xml"), "pending")

	for _, st := range ledger.ReservedSourceTypes {
		body := strings.NewReplacer(`"payroll"`, fmt.Sprintf("%q", st), `"run-2026-11"`, fmt.Sprintf(`"%d"`, id), `"main"`, `"bill"`, `"EUR"`, `"SEK"`).Replace(payroll)
		status, resp := r.postJSON("/api/v1/journal-entries", body)
		e := errorOf(resp)
		reasons, _ := e["reasons"].([]any)
		if status != 422 || e["code"] != "invalid" || len(reasons) != 1 || reasons[0].(map[string]any)["field"] != "source_type" {
			t.Fatalf("posting under %q: %d %v", st, status, resp)
		}
	}
	if n := testkit.Count(t, a.db, `SELECT count(*) FROM ledger_observations`); n != 0 {
		t.Fatalf("a refused client post was recorded under the product's key (%d observations)", n)
	}

	status, resp := r.postJSON("/api/v1/intake/"+itoa(id)+"/approve", "")
	if status != 200 {
		t.Fatalf("approve: %d %v", status, resp)
	}
	posted := r.waitStatus(float64(id), "posted")
	entryID := int64(posted["result_entry_id"].(float64))

	status, rev := r.postJSON("/api/v1/journal-entries/"+itoa(entryID)+"/reverse", "")
	if status != 201 || rev["source_type"] != ledger.SourceTypeIntake || rev["entry_set"] != "bill/reversal" {
		t.Fatalf("reversing the bookkeeper's entry: %d %v", status, rev)
	}
}
