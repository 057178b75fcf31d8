package web_test

import (
	"fmt"
	"io"
	"net/http"
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

// Every route that names an object by id answers 404 for another org's
// object, in the JSON API and in the browser alike (README: another org's
// document is 404), and changes nothing.
func TestAnotherOrgsIDsAre404OnEveryRoute(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	owner := bookkeepingOrg(t, a)
	r := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, testkit.User(t, a.db, owner, auth.RoleReviewer))}
	docID := filed(t, r, sample(t, "ubl-invoice-multirate.xml"), "pending")
	if status, resp := r.postJSON("/api/v1/intake/"+itoa(docID)+"/approve", ""); status != 200 {
		t.Fatalf("approve: %d %v", status, resp)
	}
	posted := r.waitStatus(float64(docID), "posted")
	job := posted["job"].(map[string]any)
	jobID, runID := itoa(int64(job["id"].(float64))), job["run_id"].(string)
	entryID := itoa(int64(posted["result_entry_id"].(float64)))
	status, tw := r.postJSON("/api/v1/typewriter/documents", composed)
	if status != 201 {
		t.Fatalf("compose: %d %v", status, tw)
	}
	twID := itoa(int64(tw["id"].(float64)))
	versionID := itoa(int64(tw["version"].(map[string]any)["id"].(float64)))
	doc := itoa(docID)

	// The intruder is an admin of another org, so no route refuses it for its role first.
	intruderOrg := testkit.Org(t, a.db)
	intruder := testkit.User(t, a.db, intruderOrg, auth.RoleAdmin)
	api := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, intruder)}
	reason := `{"reason": "not mine to decide"}`
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/api/v1/intake/" + doc, ""},
		{"POST", "/api/v1/intake/" + doc + "/approve", ""},
		{"POST", "/api/v1/intake/" + doc + "/reject", reason},
		{"POST", "/api/v1/intake/" + doc + "/not-a-duplicate", reason},
		{"POST", "/api/v1/jobs/" + jobID + "/retry", reason},
		{"POST", "/api/v1/typewriter/documents/" + twID + "/versions", composed},
		{"GET", "/api/v1/typewriter/versions/" + versionID + "/pdf", ""},
		{"POST", "/api/v1/typewriter/versions/" + versionID + "/submit", ""},
		{"POST", "/api/v1/runs/" + runID + "/answer", `{"account": "6000"}`},
		{"GET", "/api/v1/journal-entries/" + entryID, ""},
		{"POST", "/api/v1/journal-entries/" + entryID + "/reverse", ""},
	} {
		if status, body := api.do(tc.method, tc.path, "application/json", []byte(tc.body)); status != 404 || errorOf(body)["code"] != "not_found" {
			t.Errorf("API %s %s with another org's id: %d %v", tc.method, tc.path, status, body)
		}
	}

	c := a.client(t)
	csrf := a.signIn(t, c, intruder)
	form := "reason=not+mine&account=6000&run_id=" + runID + "&number=X-1&currency=EUR"
	for _, tc := range []struct{ method, path string }{
		{"GET", "/intake/" + doc},
		{"GET", "/intake/" + doc + "/original"},
		{"GET", "/intake/" + doc + "/type-in"},
		{"POST", "/intake/" + doc + "/type-in"},
		{"GET", "/intake/" + doc + "/decision"},
		{"GET", "/intake/" + doc + "/compare?with=" + doc},
		{"GET", "/intake/" + doc + "/watch?sig=stale"},
		{"POST", "/intake/" + doc + "/approve"},
		{"POST", "/intake/" + doc + "/reject"},
		{"POST", "/intake/" + doc + "/answer"},
		{"POST", "/intake/" + doc + "/not-a-duplicate"},
		{"POST", "/jobs/" + jobID + "/retry"},
		{"GET", "/admin/jobs/" + jobID},
		{"POST", "/admin/jobs/" + jobID + "/retry"},
		{"GET", "/admin/runs/" + runID},
		{"GET", "/typewriter/" + twID},
		{"GET", "/typewriter/" + twID + "/diff"},
		{"GET", "/typewriter/" + twID + "/revise"},
		{"POST", "/typewriter/" + twID + "/revise"},
		{"POST", "/typewriter/versions/" + versionID + "/submit"},
		{"GET", "/typewriter/versions/" + versionID + "/pdf"},
		{"GET", "/ledger/entries/" + entryID},
		{"POST", "/ledger/entries/" + entryID + "/reverse"},
	} {
		for _, htmx := range []bool{false, true} {
			var body io.Reader
			if tc.method == "POST" {
				body = strings.NewReader(form)
			}
			req, _ := http.NewRequest(tc.method, a.URL+tc.path, body)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("X-CSRF-Token", csrf)
			if htmx {
				req.Header.Set("HX-Request", "true")
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("browser %s %s (htmx %v) with another org's id: %d", tc.method, tc.path, htmx, resp.StatusCode)
			}
		}
	}

	// Nothing of the owner's changed.
	if got := r.waitStatus(float64(docID), "posted"); got["job"].(map[string]any)["attempts"] != job["attempts"] {
		t.Fatalf("the owner's document changed: %v", got)
	}
	if n := testkit.Count(t, a.db, `SELECT count(*) FROM journal_entries`); n != 1 {
		t.Fatalf("%d journal entries, want the owner's one", n)
	}
}
