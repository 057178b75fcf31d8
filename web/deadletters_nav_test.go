package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
)

// seedDeadLetter files an approved document whose bookkeeping job was
// abandoned, and returns the job's id.
func seedDeadLetter(t *testing.T, a *site, o org.Org, number string) int64 {
	t.Helper()
	doc := seedDoc(t, a, o, "active", "Acme Oy", number, "10.00")
	var id int64
	if err := a.db.Pool.QueryRow(context.Background(), `INSERT INTO jobs (org_id, intake_id, status, attempts, max_attempts,
		last_error, error_class, created_by) VALUES ($1, $2, 'abandoned', 5, 5, 'posting service unavailable', 'transient', 'test') RETURNING id`,
		o.ID, doc).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// navDeadLetters is the nav badge's count on the desk, "" when there is none.
func navDeadLetters(t *testing.T, a *site, c *http.Client) string {
	t.Helper()
	d := doc(t, get(t, c, a.URL+"/desk"))
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(d.Find("[data-testid=nav-dead-letter-count]").Text()), "waiting for an operator"))
}

// The nav shows admins how many dead letters wait, and the count follows
// retries and abandons; reviewers see no such entry.
func TestTheNavCountsDeadLettersForAdmins(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o, _, c, csrf := a.signedInClient(t, auth.RoleAdmin)
	if got := navDeadLetters(t, a, c); got != "" {
		t.Errorf("no dead letters, yet the nav counts %q", got)
	}
	first := seedDeadLetter(t, a, o, "A-1")
	seedDeadLetter(t, a, o, "A-2")
	other := testkit.Org(t, a.db)
	seedDeadLetter(t, a, other, "B-1") // another org's: not counted
	if got := navDeadLetters(t, a, c); got != "2" {
		t.Errorf("nav count %q, want 2", got)
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
	if _, err := a.db.Pool.Exec(context.Background(), `UPDATE jobs SET status = 'abandoned', updated_at = now() WHERE id = $1`, first); err != nil {
		t.Fatal(err)
	}
	if got := navDeadLetters(t, a, c); got != "2" {
		t.Errorf("after an abandon the nav counts %q, want 2", got)
	}

	reviewer := testkit.User(t, a.db, o, auth.RoleReviewer)
	rc := a.client(t)
	a.signIn(t, rc, reviewer)
	d := doc(t, get(t, rc, a.URL+"/desk"))
	if n := d.Find("[data-testid=nav-dead-letters], [data-testid=nav-dead-letter-count]").Length(); n != 0 {
		t.Errorf("a reviewer's nav shows the dead letters (%d elements)", n)
	}
}
