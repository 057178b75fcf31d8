package web_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func TestBrowserTheDeskSearchesAndShowsGroups(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.APIFor(t, u)
	first, copyOf := webtest.TwoCopies(t, c)
	other := webtest.Filed(t, c, webtest.Sample(t, "cii-invoice.xml"), "pending")
	if code, _ := c.PostJSON("/api/v1/intake/"+webtest.Itoa(first)+"/approve", ""); code != 200 {
		t.Fatal("approve")
	}

	p := signedIn(t, a, u)
	rows := p.GetByTestId("queue-row")
	webtest.Must(t, expect.Locator(rows).ToHaveCount(2)) // needs review: the copy and the other invoice
	dup := p.Locator(`[data-testid=queue-row][data-document-id="` + webtest.Itoa(copyOf) + `"]`)
	webtest.Must(t, expect.Locator(dup.GetByTestId("group-badge")).ToHaveText("2 in group"))
	webtest.Must(t, expect.Locator(dup.GetByTestId("group-accepted")).ToBeVisible())
	webtest.Must(t, expect.Locator(dup).ToContainText("duplicate"))
	screenshot(t, p, "queue.png")

	// Tabs.
	webtest.Must(t, p.GetByTestId("tab-flagged").Click())
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`tab=flagged`)))
	webtest.Must(t, expect.Locator(rows).ToHaveCount(1))
	webtest.Must(t, expect.Locator(rows).ToHaveAttribute("data-document-id", webtest.Itoa(copyOf)))
	webtest.Must(t, p.GetByTestId("tab-all").Click())
	webtest.Must(t, expect.Locator(rows).ToHaveCount(3))

	// Search by supplier, then by amount.
	for q, want := range map[string]int64{"müller": other, "216.15": other, "NK-2026": copyOf} {
		webtest.Must(t, p.GetByTestId("search").Fill(q))
		webtest.Must(t, p.GetByTestId("search").Press("Enter"))
		webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`q=`)))
		if want == copyOf { // the number matches the invoice and its copy
			webtest.Must(t, expect.Locator(rows).ToHaveCount(2))
			continue
		}
		webtest.Must(t, expect.Locator(rows).ToHaveCount(1))
		webtest.Must(t, expect.Locator(rows).ToHaveAttribute("data-document-id", webtest.Itoa(want)))
	}
}

func TestBrowserCompareRejectAndNotADuplicate(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)
	c := a.APIFor(t, reviewer)
	first, same := webtest.TwoCopies(t, c)
	invoice := webtest.Sample(t, "ubl-invoice-multirate.xml")
	later := webtest.Filed(t, c, bytes.Replace(invoice, []byte("<cbc:DueDate>2026-12-20"), []byte("<cbc:DueDate>2027-01-15"), 1), "flagged")

	p := signedIn(t, a, reviewer)
	_, err := p.Goto("/intake/" + webtest.Itoa(later))
	webtest.Must(t, err)
	// The graph: three members, each edge saying why.
	webtest.Must(t, expect.Locator(p.GetByTestId("graph-node")).ToHaveCount(3))
	webtest.Must(t, expect.Locator(p.GetByTestId("graph-edge")).ToHaveCount(2))
	webtest.Must(t, expect.Locator(p.GetByTestId("graph-edge").First()).ToContainText("same reference"))
	// Compared with the incumbent: only the due date differs.
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=compare-row][data-same=false]`)).ToHaveCount(1))
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=compare-row][data-same=false]`)).ToContainText("2027-01-15"))
	// Compared with the exact copy (htmx swaps the comparison): the same but for the due date too.
	_, err = p.GetByTestId("compare-with").SelectOption(playwright.SelectOptionValues{Values: &[]string{webtest.Itoa(same)}})
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("compare")).ToContainText("Document "+webtest.Itoa(same)))
	// The history says how it got here.
	webtest.Must(t, expect.Locator(p.GetByTestId("timeline-item").First()).ToContainText("received by api"))
	webtest.Must(t, expect.Locator(p.GetByTestId("timeline")).ToContainText("queue"))

	// A reviewer has no "not a duplicate"; rejecting asks for a reason in place.
	webtest.Must(t, expect.Locator(p.GetByTestId("distinct-form")).ToHaveCount(0))
	_, err = p.Goto("/intake/" + webtest.Itoa(same))
	webtest.Must(t, err)
	webtest.Must(t, p.Locator("#reject-reason").Fill("sent twice"))
	webtest.Must(t, p.GetByTestId("reject").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText("sent twice"))

	// An admin says the later one is a different invoice; it can then be approved with the first.
	ap := signedIn(t, a, admin)
	_, err = ap.Goto("/intake/" + webtest.Itoa(later))
	webtest.Must(t, err)
	webtest.Must(t, ap.Locator("#distinct-reason").Fill("a second delivery, confirmed by phone"))
	webtest.Must(t, ap.GetByTestId("not-a-duplicate").Click())
	webtest.Must(t, expect.Locator(ap.GetByTestId("decision")).ToHaveAttribute("data-status", "pending"))
	webtest.Must(t, ap.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(ap.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
	_, err = p.Goto("/intake/" + webtest.Itoa(first))
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("approve").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
}

func TestBrowserOperatorsPages(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)
	fix := breakLaunches(a, "posting refused (injected)")
	c := a.APIFor(t, reviewer)
	nordisk := webtest.Filed(t, c, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	muller := webtest.Filed(t, c, webtest.Sample(t, "cii-invoice.xml"), "pending")
	for _, id := range []int64{nordisk, muller} {
		if code, body := c.PostJSON("/api/v1/intake/"+webtest.Itoa(id)+"/approve", ""); code != 200 {
			t.Fatalf("approve %d: %d %v", id, code, body)
		}
	}
	fix()

	p := signedIn(t, a, admin)
	_, err := p.Goto("/admin/dead-letters")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("dead-letter")).ToHaveCount(2))
	// Filter by supplier, count, then retry what was counted, with a reason.
	webtest.Must(t, p.Locator("#dl-supplier").Fill("nordisk"))
	webtest.Must(t, p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Filter"}).Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("dead-letter")).ToHaveCount(1))
	webtest.Must(t, p.GetByTestId("bulk-count").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("bulk-preview")).ToContainText("1 dead letter matches"))
	webtest.Must(t, p.GetByTestId("bulk-reason").Fill("posting is back"))
	webtest.Must(t, p.GetByTestId("bulk-retry").Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("bulk-result")).ToContainText("Retried 1: 1 launched"))
	// The other is still a dead letter, with its history.
	_, err = p.Goto("/admin/dead-letters")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("dead-letter")).ToHaveCount(1))
	webtest.Must(t, p.GetByTestId("dead-letter").GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "job"}).Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("job-page")).ToContainText("posting refused (injected)"))

	// Runs, node by node, and the stranded-work check.
	_, err = p.Goto("/admin/runs")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("nothing-stranded")).ToBeVisible())
	webtest.Must(t, expect.Locator(p.GetByTestId("sweep-last")).ToBeVisible())
	if n, _ := p.GetByTestId("run-row").Count(); n < 3 {
		t.Fatalf("%d runs listed, want the pipeline runs and the bookkeeper's", n)
	}
	webtest.Must(t, p.GetByTestId("run-row").First().GetByRole("link").First().Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("checkpoint").First()).ToBeVisible())
	// Approved behind the outbox's back: stranded, and the check says so.
	if _, err := a.DB.Pool.Exec(context.Background(), `UPDATE jobs SET status = 'failed', attempts = max_attempts WHERE intake_id = $1`, muller); err != nil {
		t.Fatal(err)
	}
	_, err = p.Goto("/admin/runs")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("stranded-item")).ToHaveCount(1))
	webtest.Must(t, expect.Locator(p.GetByTestId("stranded-item")).ToContainText("out of attempts"))

	// The ledger: the posted entry's source key, explored.
	webtest.Must(t, expect.Locator(p.GetByTestId("error-page")).ToHaveCount(0))
	c.WaitStatus(float64(nordisk), "posted")
	_, err = p.Goto("/ledger/source-keys")
	webtest.Must(t, err)
	webtest.Must(t, p.Locator("#sk-type").Fill("intake"))
	webtest.Must(t, p.Locator("#sk-id").Fill(webtest.Itoa(nordisk)))
	webtest.Must(t, p.Locator("#sk-set").Fill("bill"))
	webtest.Must(t, p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Look up"}).Click())
	webtest.Must(t, expect.Locator(p.GetByTestId("sk-fingerprint")).ToHaveText(regexp.MustCompile(`^[0-9a-f]{64}$`)))
	_, err = p.Goto("/ledger/trial-balance")
	webtest.Must(t, err)
	if body, _ := p.Locator("main").TextContent(); !strings.Contains(body, "2000") {
		t.Fatalf("the trial balance lacks accounts payable: %s", body)
	}
}
