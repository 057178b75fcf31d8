package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func postHTMX(t *testing.T, c *http.Client, u string, form url.Values) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// The account list preselects nothing, on the desk and on the document:
// its selected first option is empty and the select is required; an answer
// without an account is a 422 from the desk, the document and the API, and
// the question stays open.
func TestTheAccountListPreselectsNothingAndAMissingAccountIsRefused(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.OrgWith(t, a.DB, "preselect", "SEK") // no default expense account
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	id := webtest.ApprovedBill(t, a, o, u, "P-1", 1)
	q := webtest.OpenQuestion(t, a, o, id)
	c := a.Client(t)
	csrf := a.SignIn(t, c, u)

	for _, tc := range []struct{ page, selector string }{
		{"/intake/" + webtest.Itoa(id), `[data-testid=question] select[name=account]`},
		{"/desk", `[data-testid=desk-question] select[name=account]`},
	} {
		sel := webtest.Doc(t, webtest.Get(t, c, a.URL+tc.page)).Find(tc.selector)
		if sel.Length() != 1 {
			t.Fatalf("%s: %d account selects", tc.page, sel.Length())
		}
		if _, ok := sel.Attr("required"); !ok {
			t.Errorf("%s: the account select is not required", tc.page)
		}
		first := sel.Find("option").First()
		if v, _ := first.Attr("value"); v != "" {
			t.Errorf("%s: the first option is %q, want the empty choose-an-account option", tc.page, v)
		}
		selected := sel.Find("option[selected]")
		if v, _ := selected.Attr("value"); selected.Length() != 1 || v != "" {
			t.Errorf("%s: %d options selected (first %q), want only the empty one", tc.page, selected.Length(), v)
		}
	}

	resp := postHTMX(t, c, a.URL+"/desk/questions/"+q.RunID+"/answer", url.Values{"_csrf": {csrf}, "account": {""}, "remember": {"1"}})
	row := webtest.Doc(t, resp)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(row.Find("[data-testid=answer-problem]").Text(), "choose an expense account") {
		t.Fatalf("desk answer without an account: %d %q", resp.StatusCode, row.Text())
	}
	if _, ok := row.Find("select[name=account]").Attr("autofocus"); !ok {
		t.Error("the refused row does not focus its account select")
	}
	resp = postHTMX(t, c, a.URL+"/intake/"+webtest.Itoa(id)+"/answer", url.Values{"_csrf": {csrf}, "run_id": {q.RunID}, "account": {""}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("document answer without an account: %d, want 422", resp.StatusCode)
	}
	api := a.APIFor(t, u)
	if code, body := api.PostJSON("/api/v1/runs/"+q.RunID+"/answer", `{"remember": true}`); code != http.StatusUnprocessableEntity {
		t.Fatalf("API answer without an account: %d %v, want 422", code, body)
	}
	if again, err := a.App.Bookkeeper.QuestionFor(context.Background(), o.ID, id); err != nil || again == nil {
		t.Fatalf("the refused answers closed the question: %v %v", again, err)
	}

	resp = postHTMX(t, c, a.URL+"/desk/questions/"+q.RunID+"/answer", url.Values{"_csrf": {csrf}, "account": {"6200"}, "remember": {"1"}})
	if d := webtest.Doc(t, resp); resp.StatusCode != http.StatusOK || d.Find("[data-testid=desk-question-answered]").Length() != 1 {
		t.Fatalf("desk answer: %d %q", resp.StatusCode, d.Text())
	}
	// Answered already (another tab, another reviewer): the row says so.
	resp = postHTMX(t, c, a.URL+"/desk/questions/"+q.RunID+"/answer", url.Values{"_csrf": {csrf}, "account": {"6300"}})
	if d := webtest.Doc(t, resp); resp.StatusCode != http.StatusConflict || !strings.Contains(d.Find("[data-testid=desk-question-closed]").Text(), "answered already") {
		t.Fatalf("answering twice: %d %q", resp.StatusCode, d.Text())
	}
	// Without htmx the form posts and the desk comes back with the outcome.
	resp, err := c.PostForm(a.URL+"/desk/questions/"+q.RunID+"/answer", url.Values{"_csrf": {csrf}, "account": {"6300"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/desk" {
		t.Fatalf("a plain form post: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if flash := webtest.Doc(t, webtest.Get(t, c, a.URL+"/desk")).Find("body").Text(); !strings.Contains(flash, "answered already") {
		t.Error("the desk does not say the plain post's outcome")
	}
	webtest.WaitPosted(t, a, o, id)
}

// The document and the ledger entry say which rule chose the account; an
// admin changes and forgets the rule on the supplier rules page (audited,
// and for admins only); the account used before is then suggested, never
// preselected, and one click answers with it.
func TestTheRuleThatChoseTheAccountIsShownAndAdminsChangeOrForgetIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := webtest.NewSite(t)
	o := testkit.OrgWith(t, a.DB, "rules", "SEK")
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)

	first := webtest.ApprovedBill(t, a, o, reviewer, "R-1", 1)
	q := webtest.OpenQuestion(t, a, o, first)
	if err := a.App.Bookkeeper.Answer(ctx, o.ID, q.RunID, map[string]string{"account": "6200"}, true, audit.Actor{Label: reviewer.Email}); err != nil {
		t.Fatal(err)
	}
	webtest.WaitPosted(t, a, o, first)
	second := webtest.ApprovedBill(t, a, o, reviewer, "R-2", 2)
	posted := webtest.WaitPosted(t, a, o, second)

	rc := a.Client(t)
	reviewerCSRF := a.SignIn(t, rc, reviewer)
	note := webtest.Doc(t, webtest.Get(t, rc, a.URL+"/intake/"+webtest.Itoa(first))).Find("[data-testid=account-choice]").Text()
	if !strings.Contains(note, "answered by "+reviewer.Email) {
		t.Errorf("the answered bill says %q", note)
	}
	page := webtest.Doc(t, webtest.Get(t, rc, a.URL+"/intake/"+webtest.Itoa(second)))
	note = page.Find("[data-testid=account-choice]").Text()
	if !strings.Contains(note, "Account 6200: remembered for VAT id ") || !strings.Contains(note, "set by "+reviewer.Email+" on ") {
		t.Errorf("the document says %q", note)
	}
	if page.Find("[data-testid=supplier-rules-link]").Length() != 0 {
		t.Error("a reviewer is offered the admins' supplier rules page")
	}
	entry := webtest.Doc(t, webtest.Get(t, rc, a.URL+"/ledger/entries/"+webtest.Itoa(posted.ResultEntryID))).Find("[data-testid=account-choice]").Text()
	if !strings.Contains(entry, "remembered for VAT id ") {
		t.Errorf("the entry says %q", entry)
	}
	if resp := webtest.Get(t, rc, a.URL+"/admin/supplier-rules"); resp.Body.Close() == nil && resp.StatusCode != http.StatusForbidden {
		t.Errorf("a reviewer's supplier rules page: %d, want 403", resp.StatusCode)
	}

	ac := a.Client(t)
	csrf := a.SignIn(t, ac, admin)
	if webtest.Doc(t, webtest.Get(t, ac, a.URL+"/intake/"+webtest.Itoa(second))).Find("[data-testid=supplier-rules-link]").Length() != 1 {
		t.Error("an admin is not offered the supplier rules page from the document")
	}
	rules := webtest.Doc(t, webtest.Get(t, ac, a.URL+"/admin/supplier-rules"))
	row := rules.Find("[data-testid=supplier-rule]")
	key, _ := row.Attr("data-supplier-key")
	if row.Length() != 1 || !strings.HasPrefix(key, "vat:") || !strings.Contains(row.Find("[data-testid=rule-account]").Text(), "6200") ||
		row.Find("[data-testid=rule-set-by]").Text() != reviewer.Email {
		t.Fatalf("rules page: %q", row.Text())
	}
	post := func(path string, form url.Values) (int, *goquery.Document) {
		form.Set("_csrf", csrf)
		resp, err := ac.PostForm(a.URL+path, form)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, webtest.Doc(t, resp)
	}
	if code, d := post("/admin/supplier-rules/change", url.Values{"supplier_key": {key}, "account": {""}}); code != http.StatusUnprocessableEntity ||
		d.Find("[data-testid=rules-error]").Length() != 1 {
		t.Fatalf("a change without an account: %d", code)
	}
	if code, _ := post("/admin/supplier-rules/change", url.Values{"supplier_key": {key}, "account": {"6300"}}); code != http.StatusSeeOther {
		t.Fatalf("change: %d", code)
	}
	row = webtest.Doc(t, webtest.Get(t, ac, a.URL+"/admin/supplier-rules")).Find("[data-testid=supplier-rule]")
	if !strings.Contains(row.Find("[data-testid=rule-account]").Text(), "6300") || row.Find("[data-testid=rule-set-by]").Text() != admin.Email {
		t.Fatalf("after the change: %q", row.Text())
	}
	if code, _ := post("/admin/supplier-rules/forget", url.Values{"supplier_key": {key}}); code != http.StatusSeeOther {
		t.Fatalf("forget: %d", code)
	}
	if code, _ := post("/admin/supplier-rules/forget", url.Values{"supplier_key": {key}}); code != http.StatusNotFound {
		t.Fatalf("forgetting twice: %d, want 404", code)
	}
	if webtest.Doc(t, webtest.Get(t, ac, a.URL+"/admin/supplier-rules")).Find("[data-testid=no-supplier-rules]").Length() != 1 {
		t.Fatal("the forgotten rule is still listed")
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND subject_type = 'supplier_rule' AND actor = $2`, o.ID, admin.Email); n != 2 {
		t.Fatalf("audited rule changes: %d, want 2", n)
	}

	// Asked again: the account used before is offered, not preselected.
	// The second bill's coding would teach the third (a history suggestion,
	// posted without a question): the third is one nothing is suggested for.
	third := webtest.Filed(t, a.APIFor(t, reviewer), webtest.BillContent(t, "R-3", 3), "pending")
	if _, err := a.DB.Pool.Exec(ctx, `DELETE FROM intake_coding WHERE intake_id = $1`, third); err != nil {
		t.Fatal(err)
	}
	if ap, err := a.App.Decisions.Approve(ctx, o.ID, third, audit.Actor{Label: reviewer.Email}); err != nil || ap.Launch.Outcome != "launched" {
		t.Fatalf("approve: %+v %v", ap, err)
	}
	q = webtest.OpenQuestion(t, a, o, third)
	desk := webtest.Doc(t, webtest.Get(t, rc, a.URL+"/desk"))
	use := desk.Find("[data-testid=desk-question] [data-testid=use-suggested]")
	if v, _ := use.Attr("value"); use.Length() != 1 || v != "6200" || !strings.Contains(use.Text(), "used for this supplier before") {
		t.Fatalf("suggestion: %d %q %q", use.Length(), v, use.Text())
	}
	if v, _ := desk.Find("[data-testid=desk-question] option[selected]").Attr("value"); v != "" {
		t.Fatalf("the suggestion is preselected: %q", v)
	}
	resp := postHTMX(t, rc, a.URL+"/desk/questions/"+q.RunID+"/answer", url.Values{"_csrf": {reviewerCSRF}, "account": {""}, "use_account": {"6200"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("one-click suggestion: %d", resp.StatusCode)
	}
	webtest.WaitPosted(t, a, o, third)
}
