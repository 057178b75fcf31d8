package ui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// A document whose journal entry was reversed says so: its page links the
// reversing entry and its badge says reversed; the desk counts and lists it
// under Reversed, not Posted. The JSON API keeps its status posted.
func TestAReversedDocumentShowsItsReversal(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	api := a.APIFor(t, u)
	reversed, kept := twoPostedBills(t, a, api)
	entry := testkit.Count(t, a.DB, `SELECT result_entry_id FROM intake_documents WHERE id = $1`, reversed)
	rev, err := ledger.Reverse(context.Background(), a.DB.Pool, o.ID, int64(entry), ledger.Reversal{Reason: "booked twice", Actor: audit.Actor{Label: u.Email}})
	webtest.Must(t, err)

	c := a.Client(t)
	a.SignIn(t, c, u)
	page := webtest.Doc(t, webtest.Get(t, c, a.URL+"/intake/"+webtest.Itoa(reversed)))
	note := page.Find("[data-testid=reversed]")
	if href, _ := note.Find("[data-testid=reversal-link]").Attr("href"); href != "/ledger/entries/"+webtest.Itoa(rev.Entry.ID) {
		t.Errorf("the reversal's link: %q (note %q)", href, strings.Join(strings.Fields(note.Text()), " "))
	}
	if !strings.Contains(note.Text(), "booked twice") {
		t.Errorf("the reversal's reason is not said: %q", note.Text())
	}
	if got := page.Find("#doc-badges [data-testid=status]").Text(); got != "reversed" {
		t.Errorf("the badge says %q", got)
	}
	if got := webtest.Doc(t, webtest.Get(t, c, a.URL+"/intake/"+webtest.Itoa(kept))).Find("[data-testid=reversed]").Length(); got != 0 {
		t.Errorf("a document whose entry stands says it was reversed")
	}

	desk := webtest.Doc(t, webtest.Get(t, c, a.URL+"/desk?tab=posted"))
	for tab, want := range map[string]string{"posted": "1", "reversed": "1", "all": "2"} {
		if got := desk.Find("[data-testid=tab-" + tab + "] .count").Text(); got != want {
			t.Errorf("tab %s counts %q, want %s", tab, got, want)
		}
	}
	for tab, want := range map[string][]int64{"posted": {kept}, "reversed": {reversed}} {
		var got []string
		webtest.Doc(t, webtest.Get(t, c, a.URL+"/desk?tab="+tab)).Find("[data-testid=queue-row]").Each(func(_ int, s *goquery.Selection) {
			id, _ := s.Attr("data-document-id")
			got = append(got, id+":"+s.Find("[data-testid=status]").Text())
		})
		if len(got) != len(want) || !strings.HasPrefix(got[0], webtest.Itoa(want[0])+":") {
			t.Errorf("tab %s lists %v, want %v", tab, got, want)
		}
		if tab == "reversed" && len(got) == 1 && got[0] != webtest.Itoa(reversed)+":reversed" {
			t.Errorf("the reversed row says %q", got[0])
		}
	}

	if code, body := api.Get("/api/v1/intake/" + webtest.Itoa(reversed)); code != 200 || body["status"] != "posted" {
		t.Errorf("the API's status: %d %v", code, body["status"])
	}
}

// twoPostedBills files two different bills through the API, approves them
// and waits until both are posted.
func twoPostedBills(t *testing.T, a *webtest.Site, api *webtest.APIClient) (first, second int64) {
	t.Helper()
	var ids []int64
	for _, content := range [][]byte{webtest.JSONInvoice("RV-1"), []byte(strings.Replace(string(webtest.JSONInvoice("RV-2")), `"quantity":"10"`, `"quantity":"11"`, 1))} {
		code, body := api.Do("POST", "/api/v1/documents", "application/json", content)
		if code != 202 {
			t.Fatalf("upload: %d %v", code, body)
		}
		id := int64(body["intake_id"].(float64))
		api.WaitStatus(float64(id), "pending")
		if code, body := api.PostJSON("/api/v1/intake/"+webtest.Itoa(id)+"/approve", ""); code != 200 {
			t.Fatalf("approve: %d %v", code, body)
		}
		api.WaitStatus(float64(id), "posted")
		ids = append(ids, id)
	}
	return ids[0], ids[1]
}
