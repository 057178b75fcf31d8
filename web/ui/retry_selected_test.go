package ui_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// Dead letters ticked on the page are retried together, with a reason and
// an audit event naming them; an id of another org's job refuses the whole
// selection, as a single retry would.
func TestSelectedDeadLettersAreRetriedTogetherWithinTheOrg(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, admin, c, csrf := a.SignedInClient(t, auth.RoleAdmin)
	j1, j2, j3 := webtest.SeedDeadLetter(t, a, o, "S-1"), webtest.SeedDeadLetter(t, a, o, "S-2"), webtest.SeedDeadLetter(t, a, o, "S-3")
	foreign := webtest.SeedDeadLetter(t, a, testkit.Org(t, a.DB), "F-1")

	d := webtest.Doc(t, webtest.Get(t, c, a.URL+"/admin/dead-letters"))
	if n := d.Find(`[data-testid=select-dead-letter][form=dl-selected]`).Length(); n != 3 {
		t.Fatalf("%d selection boxes, want 3", n)
	}
	if d.Find(`form#dl-selected [data-testid=retry-selected]`).Length() != 1 {
		t.Fatal("no retry-selected button")
	}

	post := func(reason string, jobs ...int64) (int, *goquery.Document) {
		t.Helper()
		form := url.Values{"_csrf": {csrf}, "reason": {reason}}
		for _, j := range jobs {
			form.Add("job", webtest.Itoa(j))
		}
		resp, err := c.PostForm(a.URL+"/admin/dead-letters/retry-selected", form)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, webtest.Doc(t, resp)
	}
	abandoned := func() int {
		return testkit.Count(t, a.DB, `SELECT count(*) FROM jobs WHERE org_id = $1 AND status = 'abandoned'`, o.ID)
	}

	code, d := post("service back", j1, foreign)
	if code != 404 || !strings.Contains(d.Find("[data-testid=dl-error]").Text(), "no job "+webtest.Itoa(foreign)) {
		t.Fatalf("a foreign job in the selection: %d %q", code, d.Find("[data-testid=dl-error]").Text())
	}
	if n := abandoned(); n != 3 {
		t.Fatalf("a refused selection retried %d jobs", 3-n)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM jobs WHERE id = $1 AND status = 'abandoned'`, foreign); n != 1 {
		t.Fatal("the foreign org's job was touched")
	}
	if code, _ := post("", j1); code != 422 {
		t.Fatalf("no reason: %d", code)
	}
	if code, _ := post("service back"); code != 422 {
		t.Fatalf("nothing selected: %d", code)
	}

	code, d = post("service back", j1, j2, j1)
	if code != 200 || !strings.Contains(d.Find("[data-testid=bulk-result]").Text(), "Retried 2: 2 launched") {
		t.Fatalf("retry selected: %d %q %q", code, d.Find("[data-testid=bulk-result]").Text(), d.Find("[data-testid=dl-error]").Text())
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM jobs WHERE id = $1 AND status = 'abandoned'`, j3); n != 1 {
		t.Error("an unselected dead letter was retried")
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'bulk_retry' AND actor = $2
		AND detail->>'reason' = 'service back' AND detail->'jobs' = $3::jsonb`, o.ID, admin.Email, "["+webtest.Itoa(j1)+","+webtest.Itoa(j2)+"]"); n != 1 {
		t.Errorf("%d audit events of the selected retry", n)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM job_attempts WHERE job_id IN ($1, $2) AND actor = $3`, j1, j2, admin.Email); n != 2 {
		t.Errorf("%d job attempts by the operator, want one per job", n)
	}

	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	rc := a.Client(t)
	rcsrf := a.SignIn(t, rc, reviewer)
	resp, err := rc.PostForm(a.URL+"/admin/dead-letters/retry-selected", url.Values{"_csrf": {rcsrf}, "reason": {"x y z"}, "job": {webtest.Itoa(j3)}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("a reviewer's retry selected: %d", resp.StatusCode)
	}
}
