package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/jobs"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// navDeadLetters is the nav badge's count on the desk, "" when there is none.
func navDeadLetters(t *testing.T, a *webtest.Site, c *http.Client) string {
	t.Helper()
	d := webtest.Doc(t, webtest.Get(t, c, a.URL+"/desk"))
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(d.Find("[data-testid=nav-dead-letter-count]").Text()), "waiting for an operator"))
}

// The nav shows admins how many dead letters wait, and the count follows
// retries and abandons; reviewers see no such entry.
func TestTheNavCountsDeadLettersForAdmins(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, _, c, csrf := a.SignedInClient(t, auth.RoleAdmin)
	if got := navDeadLetters(t, a, c); got != "" {
		t.Errorf("no dead letters, yet the nav counts %q", got)
	}
	first := webtest.SeedDeadLetter(t, a, o, "A-1")
	webtest.SeedDeadLetter(t, a, o, "A-2")
	other := testkit.Org(t, a.DB)
	webtest.SeedDeadLetter(t, a, other, "B-1") // another org's: not counted
	if got := navDeadLetters(t, a, c); got != "2" {
		t.Errorf("nav count %q, want 2", got)
	}
	// The badge's count stops at its limit.
	if n, err := jobs.CountDeadLettersUpTo(context.Background(), a.DB.Pool, org.Only(o.ID), 1); err != nil || n != 1 {
		t.Errorf("counted up to 1: %d %v", n, err)
	}

	// The retried job's bookkeeper run pauses at the account question (a
	// test org has no default expense account, the supplier no mapping), so
	// the job stays launched while the nav is read.
	resp, err := c.PostForm(a.URL+fmt.Sprintf("/admin/jobs/%d/retry", first), url.Values{"_csrf": {csrf}, "reason": {"service back"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := navDeadLetters(t, a, c); got != "1" {
		t.Errorf("after a retry the nav counts %q, want 1", got)
	}
	// Its run fails for good: abandoned again, counted again.
	if _, err := a.DB.Pool.Exec(context.Background(), `UPDATE jobs SET status = 'abandoned', updated_at = now() WHERE id = $1`, first); err != nil {
		t.Fatal(err)
	}
	if got := navDeadLetters(t, a, c); got != "2" {
		t.Errorf("after an abandon the nav counts %q, want 2", got)
	}

	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	rc := a.Client(t)
	a.SignIn(t, rc, reviewer)
	d := webtest.Doc(t, webtest.Get(t, rc, a.URL+"/desk"))
	if n := d.Find("[data-testid=nav-dead-letters], [data-testid=nav-dead-letter-count]").Length(); n != 0 {
		t.Errorf("a reviewer's nav shows the dead letters (%d elements)", n)
	}
}
