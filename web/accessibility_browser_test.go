package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/einvoice"
	"greatbook/internal/testkit"
	"greatbook/internal/testkit/browser"
)

// axeViolation is one rule axe-core found broken, with where.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// assertAccessible runs axe-core on the page as it is and fails the test for
// every serious or critical violation (minor and moderate ones are not
// counted).
func assertAccessible(t *testing.T, p playwright.Page) {
	t.Helper()
	if ok, _ := p.Evaluate(`() => typeof window.axe !== "undefined"`); ok != true {
		// Evaluated through the driver, not added as a <script>: the app's
		// Content-Security-Policy refuses inline scripts, rightly.
		src, err := os.ReadFile(browser.AxeScript(t))
		must(t, err)
		_, err = p.Evaluate(string(src) + "\n;undefined")
		must(t, err)
	}
	raw, err := p.Evaluate(`async () => {
		const r = await axe.run(document, { resultTypes: ["violations"] });
		return JSON.stringify(r.violations.filter(v => v.impact === "serious" || v.impact === "critical"));
	}`)
	must(t, err)
	var vs []axeViolation
	must(t, json.Unmarshal([]byte(raw.(string)), &vs))
	for _, v := range vs {
		var where []string
		for _, n := range v.Nodes {
			where = append(where, fmt.Sprint(n.Target)+": "+strings.ReplaceAll(n.Summary, "\n", " "))
		}
		t.Errorf("%s: axe %s (%s): %s\n\t%s", p.URL(), v.ID, v.Impact, v.Help, strings.Join(where, "\n\t"))
	}
}

// Every page of the app, in the states a reviewer and an operator meet,
// has no serious or critical accessibility violation.
func TestBrowserEveryPageIsAccessible(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	admin := testkit.User(t, a.db, o, auth.RoleAdmin)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, admin)}
	ctx := context.Background()

	// A posted document and a flagged copy of it (the group diagram).
	posted, duplicate := twoCopies(t, c)
	if code, body := c.postJSON("/api/v1/intake/"+itoa(posted)+"/approve", ""); code != 200 {
		t.Fatalf("approve: %d %v", code, body)
	}
	c.waitStatus(float64(posted), "posted")
	entryID := testkit.Count(t, a.db, `SELECT result_entry_id FROM intake_documents WHERE id = $1`, posted)
	invalid := filed(t, c, brokenCopy(t, "NK-BROKEN-1"), "flagged")
	// A dead letter.
	fix := breakLaunches(a, "bookkeeper pool refused the run (injected)")
	code, body := c.do("POST", "/api/v1/documents", "application/json", jsonInvoice("DL-1"))
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	dead := int64(body["intake_id"].(float64))
	c.waitStatus(float64(dead), "pending")
	c.postJSON("/api/v1/intake/"+itoa(dead)+"/approve", "")
	fix()
	jobID := testkit.Count(t, a.db, `SELECT id FROM jobs WHERE intake_id = $1`, dead)
	runID := ""
	must(t, a.db.Pool.QueryRow(ctx, `SELECT coalesce(max(id::text), '') FROM runs`).Scan(&runID))
	code, body = c.do("POST", "/api/v1/documents", "application/json", []byte(strings.Replace(string(jsonInvoice("P-1")), `"quantity":"10"`, `"quantity":"11"`, 1)))
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	pending := int64(body["intake_id"].(float64))
	c.waitStatus(float64(pending), "pending")
	// A document of the typewriter, submitted: the version chain.
	d, err := einvoice.ParseJSON(jsonInvoice("TW-1"))
	must(t, err)
	tw, err := a.app.Typewriter.Compose(ctx, o.ID, d, admin.Actor())
	must(t, err)
	chainDoc, err := a.app.Typewriter.Submit(ctx, o.ID, tw.Versions[0].ID, admin.Actor())
	must(t, err)

	p := browser.NewPage(t, a.URL)
	_, err = p.Goto("/signin")
	must(t, err)
	assertAccessible(t, p)
	signInWith(t, p, admin.Email, testkit.TestPassword)
	must(t, expect.Locator(p.GetByTestId("current-user")).ToBeVisible())

	pages := []string{"/desk"}
	for _, tab := range []string{"review", "flagged", "approved", "posted", "rejected", "all"} {
		pages = append(pages, "/desk?tab="+tab)
	}
	for _, id := range []int64{pending, duplicate, posted, invalid, dead, chainDoc.ID} {
		pages = append(pages, "/intake/"+itoa(id))
	}
	pages = append(pages, "/upload", "/typewriter", "/typewriter/new", "/typewriter/"+itoa(tw.ID),
		"/ledger", "/ledger/trial-balance", "/ledger/source-keys", "/ledger/entries/"+itoa(int64(entryID)),
		"/admin/dead-letters", "/admin/jobs/"+itoa(int64(jobID)), "/admin/runs", "/no-such-page", "/intake/999999")
	if runID != "" {
		pages = append(pages, "/admin/runs/"+runID)
	}
	for _, path := range pages {
		_, err := p.Goto(path)
		must(t, err)
		assertAccessible(t, p)
	}

	// A reviewer's view: the panel of a dead letter, and the 403 of an admin page.
	reviewer := testkit.User(t, a.db, o, auth.RoleReviewer)
	rp := a.signedIn(t, reviewer)
	for _, path := range []string{"/desk", "/intake/" + itoa(dead), "/admin/dead-letters"} {
		_, err := rp.Goto(path)
		must(t, err)
		assertAccessible(t, rp)
	}
}
