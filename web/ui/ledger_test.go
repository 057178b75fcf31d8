package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func TestLedgerPages(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, u, c, csrf := a.SignedInClient(t, auth.RoleReviewer)
	res, err := ledger.Post(context.Background(), a.DB.Pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: o.ID, SourceType: "intake", SourceID: "42", EntrySet: "bill"},
		Date:      "2026-11-20", Currency: "EUR", Description: "Supplier AB INV-1",
		Lines: []ledger.Line{{Account: "6000", Debit: decimal.RequireFromString("80")}, {Account: "2000", Credit: decimal.RequireFromString("80")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := webtest.Itoa(res.Entry.ID)

	resp, err := c.Get(a.URL + "/ledger/entries/" + id)
	if err != nil {
		t.Fatal(err)
	}
	d := webtest.Doc(t, resp)
	if got := d.Find("[data-testid=source-key]").Text(); !strings.Contains(got, "intake / 42 / bill") {
		t.Errorf("source key shown: %q", got)
	}
	if href, _ := d.Find("[data-testid=intake-link]").Attr("href"); href != "/intake/42" {
		t.Errorf("link to the intake document: %q", href)
	}
	if fp := strings.TrimSpace(d.Find("[data-testid=fingerprint]").Text()); len(fp) != 64 {
		t.Errorf("fingerprint shown: %q", fp)
	}
	if rows := d.Find("[data-testid=lines] tbody tr").Length(); rows != 2 {
		t.Errorf("%d lines shown", rows)
	}

	// Reverse from the page: a reason, then a confirmation; the reversal
	// links back and shows the reason.
	if d.Find("[data-testid=reverse-form] input[name=reason][required]").Length() != 1 {
		t.Fatal("the reversal form asks for no reason")
	}
	reverse := func(form url.Values) *http.Response {
		t.Helper()
		form.Set("_csrf", csrf)
		resp, err := c.PostForm(a.URL+"/ledger/entries/"+id+"/reverse", form)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	reversals := func() int {
		return testkit.Count(t, a.DB, `SELECT count(*) FROM journal_entries WHERE org_id = $1 AND reverses_id IS NOT NULL`, o.ID)
	}
	resp = reverse(url.Values{})
	if d := webtest.Doc(t, resp); resp.StatusCode != 422 || d.Find("[data-testid=reverse-problem]").Length() != 1 {
		t.Fatalf("reversing without a reason: %d", resp.StatusCode)
	}
	resp = reverse(url.Values{"reason": {"wrong supplier"}})
	d = webtest.Doc(t, resp)
	button := d.Find("[data-testid=reverse-confirm-button]")
	if resp.StatusCode != 200 || !strings.Contains(button.Text(), "Reverse entry #"+id+" — this cannot be undone") {
		t.Fatalf("the confirmation step: %d %q", resp.StatusCode, button.Text())
	}
	if v, _ := button.Closest("form").Find("input[name=reason]").Attr("value"); v != "wrong supplier" {
		t.Fatalf("the confirmation carries the reason: %q", v)
	}
	if n := reversals(); n != 0 {
		t.Fatalf("asking for confirmation posted %d reversals", n)
	}
	if resp = reverse(url.Values{"confirm": {"yes"}}); resp.StatusCode != 422 {
		t.Fatalf("a confirmation without a reason: %d", resp.StatusCode)
	}
	resp.Body.Close()
	resp = reverse(url.Values{"reason": {"wrong supplier"}, "confirm": {"yes"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("reverse: %d", resp.StatusCode)
	}
	resp, err = c.Get(a.URL + resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	d = webtest.Doc(t, resp)
	if href, _ := d.Find("[data-testid=reverses-link]").Attr("href"); href != "/ledger/entries/"+id {
		t.Errorf("reversal's link to the original: %q", href)
	}
	if got := strings.TrimSpace(d.Find("[data-testid=reversal-reason]").Text()); got != "wrong supplier" {
		t.Errorf("reversal's reason shown: %q", got)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'reverse_entry'
		AND detail->>'reason' = 'wrong supplier' AND actor = $2`, o.ID, u.Email); n != 1 {
		t.Errorf("%d audit events of the reversal with its reason", n)
	}

	for path, testid := range map[string]string{
		"/ledger?source_type=intake&source_id=42": "entries",
		"/ledger?account=6000&from=2026-11-01":    "entries",
		"/ledger/trial-balance":                   "trial-balance",
	} {
		resp, err := c.Get(a.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		if webtest.Doc(t, resp).Find("[data-testid="+testid+"]").Length() != 1 {
			t.Errorf("%s does not show %s", path, testid)
		}
	}
	other := testkit.User(t, a.DB, testkit.Org(t, a.DB), auth.RoleReviewer)
	oc := a.Client(t)
	a.SignIn(t, oc, other)
	resp, err = oc.Get(a.URL + "/ledger/entries/" + id)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("another org's entry page: %d", resp.StatusCode)
	}
}
