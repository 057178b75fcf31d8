package ui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/auth"
	"greatbook/internal/jobs"
	"greatbook/web/webtest"
)

// The dead-letter page lists a page of the newest dead letters its filter
// matches, says how many match, and links to the older ones (keeping the
// filter, and the operator's org) and back to the most recent.
func TestTheDeadLetterPageIsReadAPageAtATime(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, _, c, _ := a.SignedInClient(t, auth.RoleAdmin)
	const n = jobs.DeadLetterPage + 2
	for i := range n {
		webtest.SeedDeadLetter(t, a, o, fmt.Sprintf("P-%d", i))
	}
	seen := map[string]bool{}
	page := func(path string) (letters int, count, older, newest string) {
		t.Helper()
		d := webtest.Doc(t, webtest.Get(t, c, a.URL+path))
		for _, id := range d.Find("[data-testid=dead-letter]").Map(func(_ int, s *goquery.Selection) string { v, _ := s.Attr("data-job-id"); return v }) {
			if seen[id] {
				t.Errorf("job %s listed on two pages", id)
			}
			seen[id] = true
		}
		older, _ = d.Find("[data-testid=dl-older]").Attr("href")
		newest, _ = d.Find("[data-testid=dl-newest]").Attr("href")
		return d.Find("[data-testid=dead-letter]").Length(), strings.Join(strings.Fields(d.Find("[data-testid=dl-count]").Text()), " "), older, newest
	}
	letters, count, older, newest := page("/admin/dead-letters?supplier=acme")
	if letters != jobs.DeadLetterPage || older == "" || newest != "" {
		t.Fatalf("first page: %d dead letters, older %q, most recent %q", letters, older, newest)
	}
	if want := fmt.Sprintf("%d dead letters match", n); !strings.Contains(count, want) {
		t.Errorf("first page says %q, want %q", count, want)
	}
	if !strings.Contains(older, "supplier=acme") || !strings.Contains(older, "after=") {
		t.Errorf("the older link %q does not keep the filter", older)
	}
	letters, count, older2, newest := page(older)
	if letters != 2 || older2 != "" || newest != "/admin/dead-letters?supplier=acme" {
		t.Errorf("second page: %d dead letters, older %q, most recent %q", letters, older2, newest)
	}
	if want := fmt.Sprintf("%d dead letters match", n); !strings.Contains(count, want) {
		t.Errorf("second page says %q, want %q", count, want)
	}
	if len(seen) != n {
		t.Errorf("the pages listed %d dead letters, want %d", len(seen), n)
	}
	// Without a filter the page walks the index and counts apart.
	seen = map[string]bool{}
	letters, count, older, _ = page("/admin/dead-letters")
	if want := fmt.Sprintf("%d dead letters match", n); letters != jobs.DeadLetterPage || !strings.Contains(count, want) {
		t.Errorf("unfiltered first page: %d dead letters, says %q, want %q", letters, count, want)
	}
	if letters, count, _, newest = page(older); letters != 2 || !strings.Contains(count, fmt.Sprintf("%d dead letters match", n)) || newest != "/admin/dead-letters" {
		t.Errorf("unfiltered second page: %d dead letters, says %q, most recent %q", letters, count, newest)
	}
	// A filter one page holds: no count, no links.
	if letters, count, older, _ := page("/admin/dead-letters?supplier=acme&to=2000-01-01"); letters != 0 || count != "" || older != "" {
		t.Errorf("an empty filter's page: %d dead letters, count %q, older %q", letters, count, older)
	}
	// The operator's org filter goes with the link too.
	op := a.Operator(t)
	d := webtest.Doc(t, webtest.Get(t, op, a.URL+"/admin/dead-letters?org="+o.Slug))
	if href, _ := d.Find("[data-testid=dl-older]").Attr("href"); !strings.Contains(href, "org="+o.Slug) {
		t.Errorf("the operator's older link %q does not keep the org", href)
	}
}
