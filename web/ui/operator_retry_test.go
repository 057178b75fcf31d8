package ui_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/jobs"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// An operator retries any org's dead letters, selected ones together, each
// in its own org; an org's admin cannot reach another org's.
func TestOperatorRetriesAcrossOrgs(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	acme, _, admin, adminCSRF := a.SignedInClient(t, auth.RoleAdmin)
	globex := testkit.Org(t, a.DB)
	a.Failpoints.Set(jobs.FailpointLaunch, func(context.Context) error { return errors.New("posting service unavailable") })
	mine, theirs := webtest.SeedDeadLetter(t, a, acme, "A-1"), webtest.SeedDeadLetter(t, a, globex, "G-1")
	op := a.Operator(t)
	csrf, _ := webtest.Doc(t, webtest.Get(t, op, a.URL+"/admin/dead-letters")).Find(`form.signout input[name=_csrf]`).Attr("value")

	resp, err := admin.PostForm(a.URL+fmt.Sprintf("/admin/jobs/%d/retry", theirs), url.Values{"_csrf": {adminCSRF}, "reason": {"service back"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("an admin retrying another org's job: %d, want 404", resp.StatusCode)
	}
	resp, err = op.PostForm(a.URL+"/admin/dead-letters/retry-selected", url.Values{"_csrf": {csrf}, "reason": {"service back"},
		"job": {strconv.FormatInt(mine, 10), strconv.FormatInt(theirs, 10)}})
	if err != nil {
		t.Fatal(err)
	}
	d := webtest.Doc(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(d.Find("[data-testid=bulk-result]").Text(), "Retried 2") {
		t.Fatalf("operator retry selected: %d %q %q", resp.StatusCode, d.Find("[data-testid=bulk-result]").Text(), d.Find("[data-testid=dl-error]").Text())
	}
	for _, job := range []int64{mine, theirs} {
		if n := testkit.Count(t, a.DB, `SELECT count(*) FROM job_attempts WHERE job_id = $1 AND actor LIKE 'op-%'`, job); n != 1 {
			t.Errorf("job %d: %d attempts by the operator, want 1", job, n)
		}
	}
}
