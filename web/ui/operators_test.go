package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func TestTheDeskSearchesFiltersAndPages(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, _, c, _ := a.SignedInClient(t, auth.RoleReviewer)
	for i := range 60 {
		webtest.SeedDoc(t, a, o, "pending", fmt.Sprintf("Nordic Paper %02d", i), fmt.Sprintf("NP-%03d", i), fmt.Sprintf("%d.00", 1000+i))
	}
	flagged := webtest.SeedDoc(t, a, o, "flagged", "Unreadable Oy", "U-1", "5.00")
	posted := webtest.SeedDoc(t, a, o, "posted", "Posted Ltd", "P-1", "7.00")
	other := testkit.Org(t, a.DB)
	stranger := webtest.SeedDoc(t, a, other, "pending", "Nordic Paper Other Org", "NP-999", "1.00")

	rowsOf := func(path string) ([]string, string) {
		t.Helper()
		resp := webtest.Get(t, c, a.URL+path)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		d := webtest.Doc(t, resp)
		var ids []string
		d.Find("[data-testid=queue-row]").Each(func(_ int, s *goquery.Selection) {
			id, _ := s.Attr("data-document-id")
			ids = append(ids, id)
		})
		older, _ := d.Find("[data-testid=older]").Attr("href")
		return ids, older
	}

	// Needs review: pending and flagged, 50 to a page, newest first; the
	// next page carries on where the first stopped.
	first, older := rowsOf("/desk")
	if len(first) != 50 || first[0] != webtest.Itoa(flagged) || older == "" {
		t.Fatalf("first page: %d rows starting %v, older %q", len(first), first[:1], older)
	}
	second, older2 := rowsOf(older)
	if len(second) != 11 || older2 != "" {
		t.Fatalf("second page: %d rows, older %q; want the last 11 and no further page", len(second), older2)
	}
	seen := map[string]bool{}
	for _, id := range append(first, second...) {
		if seen[id] || id == webtest.Itoa(posted) || id == webtest.Itoa(stranger) {
			t.Fatalf("row %s listed twice or out of place", id)
		}
		seen[id] = true
	}

	for _, tc := range []struct {
		path string
		want int
	}{
		{"/desk?tab=flagged", 1},
		{"/desk?tab=posted", 1},
		{"/desk?tab=all&q=" + url.QueryEscape("nordic paper 0"), 10}, // supplier substring, any case
		{"/desk?tab=all&q=NP-05", 10},                                // number prefix
		{"/desk?tab=all&q=1042.00", 1},                               // amount
		{"/desk?tab=all&q=" + url.QueryEscape("Other Org"), 0},       // another org's rows are not there
		{"/desk?tab=review&flag=needs_manual_extraction", 1},
	} {
		if ids, _ := rowsOf(tc.path); len(ids) != tc.want {
			t.Errorf("GET %s: %d rows, want %d", tc.path, len(ids), tc.want)
		}
	}
	if resp := webtest.Get(t, c, a.URL+fmt.Sprintf("/intake/%d", stranger)); resp.StatusCode != 404 {
		t.Errorf("another org's document: %d, want 404", resp.StatusCode)
	}
}

func TestBulkRetryAsksForACountThenAReason(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, _, c, csrf := a.SignedInClient(t, auth.RoleAdmin)
	for i := range 3 {
		id := webtest.SeedDoc(t, a, o, "active", "Acme Oy", fmt.Sprintf("A-%d", i), "10.00")
		if _, err := a.DB.Pool.Exec(context.Background(), `INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts,
			last_error, error_class, created_by) VALUES ($1, $2, 'abandoned', 5, 5, 'posting service unavailable', 'transient', 'test')`,
			o.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	post := func(form url.Values) (int, *goquery.Document) {
		t.Helper()
		form.Set("_csrf", csrf)
		resp, err := c.PostForm(a.URL+"/admin/dead-letters/retry", form)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, webtest.Doc(t, resp)
	}
	code, d := post(url.Values{"supplier": {"acme"}, "step": {"count"}})
	if code != 200 || !strings.Contains(d.Find("[data-testid=bulk-preview]").Text(), "3 dead letters match") {
		t.Fatalf("dry run: %d %q", code, d.Find("[data-testid=bulk-preview]").Text())
	}
	if v, _ := d.Find("[data-testid=bulk-form] input[name=expected]").Attr("value"); v != "3" {
		t.Fatalf("the confirmation carries the count: %q", v)
	}
	set, _ := d.Find("[data-testid=bulk-form] input[name=set]").Attr("value")
	if set == "" {
		t.Fatal("the confirmation carries no digest of the set counted")
	}
	// A count that no longer holds is refused, and nothing is retried.
	code, d = post(url.Values{"supplier": {"acme"}, "step": {"retry"}, "expected": {"4"}, "set": {set}, "reason": {"service back"}})
	if code != 409 || !strings.Contains(d.Find("[data-testid=dl-error]").Text(), "count again") {
		t.Fatalf("a stale count: %d %q", code, d.Find("[data-testid=dl-error]").Text())
	}
	code, _ = post(url.Values{"supplier": {"acme"}, "step": {"retry"}, "expected": {"3"}, "set": {set}})
	if code != 422 && code != 400 {
		t.Fatalf("no reason: %d", code)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM jobs WHERE org_id = $1 AND status = 'abandoned'`, o.ID); n != 3 {
		t.Fatalf("refused bulk retries touched %d jobs", 3-n)
	}
	// As many, but not the set counted (a digest that does not match): refused.
	code, d = post(url.Values{"supplier": {"acme"}, "step": {"retry"}, "expected": {"3"}, "set": {"x" + set[1:]}, "reason": {"service back"}})
	if code != 409 || !strings.Contains(d.Find("[data-testid=dl-error]").Text(), "not the ones you counted") {
		t.Fatalf("another set: %d %q", code, d.Find("[data-testid=dl-error]").Text())
	}
	code, d = post(url.Values{"supplier": {"acme"}, "step": {"retry"}, "expected": {"3"}, "set": {set}, "reason": {"service back"}})
	if code != 200 || !strings.Contains(d.Find("[data-testid=bulk-result]").Text(), "Retried 3: 3 launched") {
		t.Fatalf("bulk retry: %d %q", code, d.Find("[data-testid=bulk-result]").Text())
	}

	// A reviewer cannot.
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	rc := a.Client(t)
	rcsrf := a.SignIn(t, rc, reviewer)
	resp, err := rc.PostForm(a.URL+"/admin/dead-letters/retry", url.Values{"_csrf": {rcsrf}, "step": {"count"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("a reviewer's bulk retry: %d", resp.StatusCode)
	}
}

func TestTheSourceKeyExplorerShowsReplaysAndConflicts(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	api, u := a.API(t, auth.RoleReviewer)
	if code, body := api.PostJSON("/api/v1/journal-entries", webtest.Payroll); code != 201 {
		t.Fatalf("post: %d %v", code, body)
	}
	if code, body := api.PostJSON("/api/v1/journal-entries", webtest.Payroll); code != 200 {
		t.Fatalf("replay: %d %v", code, body)
	}
	conflicting := strings.ReplaceAll(webtest.Payroll, "100.00", "120.00")
	if code, body := api.PostJSON("/api/v1/journal-entries", conflicting); code != 409 {
		t.Fatalf("conflict: %d %v", code, body)
	}
	c := a.Client(t)
	a.SignIn(t, c, u)
	d := webtest.Doc(t, webtest.Get(t, c, a.URL+"/ledger/source-keys?source_type=payroll&source_id=run-2026-11&entry_set=main"))
	if fp := d.Find("[data-testid=sk-fingerprint]").Text(); len(fp) != 64 {
		t.Errorf("fingerprint: %q", fp)
	}
	var outcomes []string
	d.Find("[data-testid=observation]").Each(func(_ int, s *goquery.Selection) {
		o, _ := s.Attr("data-outcome")
		outcomes = append(outcomes, o)
	})
	if strings.Join(outcomes, ",") != "replayed,conflict" {
		t.Errorf("observations: %v, want the replay then the conflict", outcomes)
	}
	if !strings.Contains(d.Find("[data-outcome=conflict]").Text(), "debit") {
		t.Errorf("the conflict does not say what differed: %q", d.Find("[data-outcome=conflict]").Text())
	}
}

// Marking a document "not a duplicate" is an admin's decision in the
// browser as in the API: a reviewer's form post, with a valid token, is
// refused and the duplicate stays filed as one.
func TestNotADuplicateInTheBrowserIsForAdmins(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	first := webtest.SeedDoc(t, a, o, "pending", "Acme Oy", "A-1", "10.00")
	second := webtest.SeedDoc(t, a, o, "pending", "Acme Oy", "A-1b", "10.00")
	if _, err := a.DB.Pool.Exec(context.Background(), `UPDATE intake_documents SET status = 'flagged', flag_reason = 'duplicate',
		duplicate_of = $2, duplicate_reason = 'same_reference' WHERE id = $1`, second, first); err != nil {
		t.Fatal(err)
	}
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.Client(t)
	csrf := a.SignIn(t, c, reviewer)
	resp, err := c.PostForm(fmt.Sprintf("%s/intake/%d/not-a-duplicate", a.URL, second), url.Values{"_csrf": {csrf}, "reason": {"different year"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a reviewer's not-a-duplicate: %d, want 403", resp.StatusCode)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM intake_documents WHERE id = $1 AND duplicate_of = $2`, second, first); n != 1 {
		t.Fatal("the refused request removed the duplicate edge")
	}
}
