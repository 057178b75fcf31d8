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
)

func TestBrowserTheDeskSearchesAndShowsGroups(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, u)}
	first, copyOf := twoCopies(t, c)
	other := filed(t, c, sample(t, "cii-invoice.xml"), "pending")
	if code, _ := c.postJSON("/api/v1/intake/"+itoa(first)+"/approve", ""); code != 200 {
		t.Fatal("approve")
	}

	p := a.signedIn(t, u)
	rows := p.GetByTestId("queue-row")
	must(t, expect.Locator(rows).ToHaveCount(2)) // needs review: the copy and the other invoice
	dup := p.Locator(`[data-testid=queue-row][data-document-id="` + itoa(copyOf) + `"]`)
	must(t, expect.Locator(dup.GetByTestId("group-badge")).ToHaveText("2 in group"))
	must(t, expect.Locator(dup.GetByTestId("group-accepted")).ToBeVisible())
	must(t, expect.Locator(dup).ToContainText("duplicate"))
	screenshot(t, p, "queue.png")

	// Tabs.
	must(t, p.GetByTestId("tab-flagged").Click())
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`tab=flagged`)))
	must(t, expect.Locator(rows).ToHaveCount(1))
	must(t, expect.Locator(rows).ToHaveAttribute("data-document-id", itoa(copyOf)))
	must(t, p.GetByTestId("tab-all").Click())
	must(t, expect.Locator(rows).ToHaveCount(3))

	// Search by supplier, then by amount.
	for q, want := range map[string]int64{"müller": other, "216.15": other, "NK-2026": copyOf} {
		must(t, p.GetByTestId("search").Fill(q))
		must(t, p.GetByTestId("search").Press("Enter"))
		must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`q=`)))
		if want == copyOf { // the number matches the invoice and its copy
			must(t, expect.Locator(rows).ToHaveCount(2))
			continue
		}
		must(t, expect.Locator(rows).ToHaveCount(1))
		must(t, expect.Locator(rows).ToHaveAttribute("data-document-id", itoa(want)))
	}
}

func TestBrowserCompareRejectAndNotADuplicate(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.db, o, auth.RoleReviewer)
	admin := testkit.User(t, a.db, o, auth.RoleAdmin)
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, reviewer)}
	first, same := twoCopies(t, c)
	invoice := sample(t, "ubl-invoice-multirate.xml")
	later := filed(t, c, bytes.Replace(invoice, []byte("<cbc:DueDate>2026-12-20"), []byte("<cbc:DueDate>2027-01-15"), 1), "flagged")

	p := a.signedIn(t, reviewer)
	_, err := p.Goto("/intake/" + itoa(later))
	must(t, err)
	// The graph: three members, each edge saying why.
	must(t, expect.Locator(p.GetByTestId("graph-node")).ToHaveCount(3))
	must(t, expect.Locator(p.GetByTestId("graph-edge")).ToHaveCount(2))
	must(t, expect.Locator(p.GetByTestId("graph-edge").First()).ToContainText("same reference"))
	// Compared with the incumbent: only the due date differs.
	must(t, expect.Locator(p.Locator(`[data-testid=compare-row][data-same=false]`)).ToHaveCount(1))
	must(t, expect.Locator(p.Locator(`[data-testid=compare-row][data-same=false]`)).ToContainText("2027-01-15"))
	// Compared with the exact copy (htmx swaps the comparison): the same but for the due date too.
	_, err = p.GetByTestId("compare-with").SelectOption(playwright.SelectOptionValues{Values: &[]string{itoa(same)}})
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("compare")).ToContainText("Document "+itoa(same)))
	// The history says how it got here.
	must(t, expect.Locator(p.GetByTestId("timeline-item").First()).ToContainText("received by api"))
	must(t, expect.Locator(p.GetByTestId("timeline")).ToContainText("queue"))

	// A reviewer has no "not a duplicate"; rejecting asks for a reason in place.
	must(t, expect.Locator(p.GetByTestId("distinct-form")).ToHaveCount(0))
	_, err = p.Goto("/intake/" + itoa(same))
	must(t, err)
	must(t, p.Locator("#reject-reason").Fill("sent twice"))
	must(t, p.GetByTestId("reject").Click())
	must(t, expect.Locator(p.GetByTestId("rejected")).ToContainText("sent twice"))

	// An admin says the later one is a different invoice; it can then be approved with the first.
	ap := a.signedIn(t, admin)
	_, err = ap.Goto("/intake/" + itoa(later))
	must(t, err)
	must(t, ap.Locator("#distinct-reason").Fill("a second delivery, confirmed by phone"))
	must(t, ap.GetByTestId("not-a-duplicate").Click())
	must(t, expect.Locator(ap.GetByTestId("decision")).ToHaveAttribute("data-status", "pending"))
	must(t, ap.GetByTestId("approve").Click())
	must(t, expect.Locator(ap.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
	_, err = p.Goto("/intake/" + itoa(first))
	must(t, err)
	must(t, p.GetByTestId("approve").Click())
	must(t, expect.Locator(p.GetByTestId("outcome")).ToHaveAttribute("data-outcome", "launched"))
}

func TestBrowserOperatorsPages(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.db, o, auth.RoleReviewer)
	admin := testkit.User(t, a.db, o, auth.RoleAdmin)
	fix := breakLaunches(a, "posting refused (injected)")
	c := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, reviewer)}
	nordisk := filed(t, c, sample(t, "ubl-invoice-multirate.xml"), "pending")
	muller := filed(t, c, sample(t, "cii-invoice.xml"), "pending")
	for _, id := range []int64{nordisk, muller} {
		if code, body := c.postJSON("/api/v1/intake/"+itoa(id)+"/approve", ""); code != 200 {
			t.Fatalf("approve %d: %d %v", id, code, body)
		}
	}
	fix()

	p := a.signedIn(t, admin)
	_, err := p.Goto("/admin/dead-letters")
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("dead-letter")).ToHaveCount(2))
	// Filter by supplier, count, then retry what was counted, with a reason.
	must(t, p.Locator("#dl-supplier").Fill("nordisk"))
	must(t, p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Filter"}).Click())
	must(t, expect.Locator(p.GetByTestId("dead-letter")).ToHaveCount(1))
	must(t, p.GetByTestId("bulk-count").Click())
	must(t, expect.Locator(p.GetByTestId("bulk-preview")).ToContainText("1 dead letter matches"))
	must(t, p.GetByTestId("bulk-reason").Fill("posting is back"))
	must(t, p.GetByTestId("bulk-retry").Click())
	must(t, expect.Locator(p.GetByTestId("bulk-result")).ToContainText("Retried 1: 1 launched"))
	// The other is still a dead letter, with its history.
	_, err = p.Goto("/admin/dead-letters")
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("dead-letter")).ToHaveCount(1))
	must(t, p.GetByTestId("dead-letter").GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "job"}).Click())
	must(t, expect.Locator(p.GetByTestId("job-page")).ToContainText("posting refused (injected)"))

	// Runs, node by node, and the stranded-work check.
	_, err = p.Goto("/admin/runs")
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("nothing-stranded")).ToBeVisible())
	must(t, expect.Locator(p.GetByTestId("sweep-last")).ToBeVisible())
	if n, _ := p.GetByTestId("run-row").Count(); n < 3 {
		t.Fatalf("%d runs listed, want the pipeline runs and the bookkeeper's", n)
	}
	must(t, p.GetByTestId("run-row").First().GetByRole("link").First().Click())
	must(t, expect.Locator(p.GetByTestId("checkpoint").First()).ToBeVisible())
	// Approved behind the outbox's back: stranded, and the check says so.
	if _, err := a.db.Pool.Exec(context.Background(), `UPDATE jobs SET status = 'failed', attempts = max_attempts WHERE intake_id = $1`, muller); err != nil {
		t.Fatal(err)
	}
	_, err = p.Goto("/admin/runs")
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("stranded-item")).ToHaveCount(1))
	must(t, expect.Locator(p.GetByTestId("stranded-item")).ToContainText("out of attempts"))

	// The ledger: the posted entry's source key, explored.
	must(t, expect.Locator(p.GetByTestId("error-page")).ToHaveCount(0))
	c.waitStatus(float64(nordisk), "posted")
	_, err = p.Goto("/ledger/source-keys")
	must(t, err)
	must(t, p.Locator("#sk-type").Fill("intake"))
	must(t, p.Locator("#sk-id").Fill(itoa(nordisk)))
	must(t, p.Locator("#sk-set").Fill("bill"))
	must(t, p.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Look up"}).Click())
	must(t, expect.Locator(p.GetByTestId("sk-fingerprint")).ToHaveText(regexp.MustCompile(`^[0-9a-f]{64}$`)))
	_, err = p.Goto("/ledger/trial-balance")
	must(t, err)
	if body, _ := p.Locator("main").TextContent(); !strings.Contains(body, "2000") {
		t.Fatalf("the trial balance lacks accounts payable: %s", body)
	}
}
