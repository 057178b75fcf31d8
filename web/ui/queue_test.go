package ui_test

import (
	"net/url"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// A document page carries the desk's queue along in its links; a queue the
// desk would refuse (unstorable or too long) falls back to the default one
// instead of failing the page.
func TestTheDocumentPageCarriesTheQueueAndSurvivesABadOne(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	api := a.APIFor(t, u)
	older := webtest.Filed(t, api, webtest.Numbered(t, 1), "pending")
	id := webtest.Filed(t, api, webtest.Numbered(t, 2), "pending")
	c := a.Client(t)
	a.SignIn(t, c, u)

	cases := []struct {
		name, query, wantContext, wantBack string
	}{
		{"the desk's queue", "tab=flagged&q=nordisk&before=99", "q=nordisk&tab=flagged", "/desk?q=nordisk&tab=flagged&at=" + webtest.Itoa(id)},
		{"a search the desk refuses", "tab=review&q=" + url.QueryEscape("bad\x00byte"), "", "/desk?at=" + webtest.Itoa(id)},
		{"a queue too long to carry", "q=" + strings.Repeat("n", 5000), "", "/desk?at=" + webtest.Itoa(id)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := c.Get(a.URL + "/intake/" + webtest.Itoa(id) + "?" + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			d := webtest.Doc(t, resp)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if v, _ := d.Find("#queue-context").Attr("value"); v != tc.wantContext {
				t.Errorf("queue context %q, want %q", v, tc.wantContext)
			}
			if v, _ := d.Find("[data-testid=queue-back]").Attr("href"); v != tc.wantBack {
				t.Errorf("way back %q, want %q", v, tc.wantBack)
			}
		})
	}
	// In the default queue the older document is next.
	resp, err := c.Get(a.URL + "/intake/" + webtest.Itoa(id))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := webtest.Doc(t, resp).Find("[data-testid=queue-next]").Attr("href"); v != "/intake/"+webtest.Itoa(older) {
		t.Fatalf("next %q, want document %d", v, older)
	}
}
