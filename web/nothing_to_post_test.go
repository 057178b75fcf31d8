package web_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/auth"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
)

// zeroCopy is the web tests' published UBL example under another number with every amount zero: a
// valid e-invoice that posts nothing.
func zeroCopy(t *testing.T, number string) []byte {
	t.Helper()
	s := string(sample(t, "ubl-invoice-multirate.xml"))
	if !strings.Contains(s, "<cbc:ID>NK-2026-0042</cbc:ID>") {
		t.Fatal("the sample has no number NK-2026-0042")
	}
	s = strings.Replace(s, "<cbc:ID>NK-2026-0042</cbc:ID>", "<cbc:ID>"+number+"</cbc:ID>", 1)
	return regexp.MustCompile(`(<cbc:\w+ currencyID="[A-Z]{3}">)-?[0-9.]+<`).ReplaceAll([]byte(s), []byte("${1}0.00<"))
}

// A valid e-invoice every amount of which is zero, through the API: filed flagged nothing_to_post (not
// invalid_einvoice), found by the listing's flag_reason filter, refused by approve (409 invalid_state,
// reason nothing_to_post) and closed in one step, without a body: rejected with a fixed reason,
// audited and in the event feed as a rejection. A document with something to post is not closed so.
func TestNothingToPostThroughTheAPI(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.db, o, auth.RoleReviewer)
	r := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, reviewer)}
	something := filed(t, r, sample(t, "ubl-invoice-multirate.xml"), "pending")
	nothing := filed(t, r, zeroCopy(t, "NK-ZERO-1"), "flagged")

	got := r.waitStatus(float64(nothing), "flagged")
	findings, _ := got["findings"].([]any)
	if got["flag_reason"] != "nothing_to_post" || len(findings) != 1 || findings[0].(map[string]any)["code"] != "nothing_to_post" ||
		findings[0].(map[string]any)["severity"] != "fatal" {
		t.Fatalf("filed: %v", got)
	}
	if ids := r.listAll("/api/v1/intake?flag_reason=nothing_to_post", nil); len(ids) != 1 || ids[0] != nothing {
		t.Fatalf("listed with flag_reason=nothing_to_post: %v, want [%d]", ids, nothing)
	}

	status, resp := r.postJSON("/api/v1/intake/"+itoa(nothing)+"/approve", "")
	if e := errorOf(resp); status != 409 || e["code"] != "invalid_state" || e["reason"] != "nothing_to_post" {
		t.Fatalf("approve: %d %v", status, resp)
	}
	status, resp = r.postJSON("/api/v1/intake/"+itoa(something)+"/close-nothing-to-post", "")
	if status != 409 || errorOf(resp)["code"] != "invalid_state" {
		t.Fatalf("closing a document with something to post: %d %v", status, resp)
	}
	status, resp = r.postJSON("/api/v1/intake/"+itoa(nothing)+"/close-nothing-to-post", "")
	if status != 200 || resp["status"] != "rejected" {
		t.Fatalf("close: %d %v", status, resp)
	}
	if got := r.waitStatus(float64(nothing), "rejected"); got["flag_reason"] != "nothing_to_post" {
		t.Fatalf("closed: %v", got)
	}
	if n := testkit.Count(t, a.db, `SELECT count(*) FROM intake_documents WHERE id = $1 AND decision_reason = $2 AND decided_by = $3`,
		nothing, review.NothingToPostReason, reviewer.Email); n != 1 {
		t.Fatal("the closed document does not carry the fixed reason and who closed it")
	}
	if n := testkit.Count(t, a.db, `SELECT count(*) FROM audit_events WHERE action = 'reject' AND subject_id = $1 AND detail->>'closed' = 'nothing_to_post'`,
		nothing); n != 1 {
		t.Fatalf("%d audited closes", n)
	}
	status, resp = r.postJSON("/api/v1/intake/"+itoa(nothing)+"/close-nothing-to-post", "")
	if status != 409 || errorOf(resp)["code"] != "invalid_state" {
		t.Fatalf("closing it again: %d %v", status, resp)
	}
}

// On the desk a document with nothing to post is under its own flag (offered by the flag filter, in
// the review and flagged tabs); its page says it is valid EN 16931, offers no approve and closes it
// with one button, without a form to fill in.
func TestTheDeskAndThePageOfADocumentWithNothingToPost(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := bookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.db, o, auth.RoleReviewer)
	r := &apiClient{t: t, base: a.URL, token: testkit.Token(t, a.db, reviewer)}
	filed(t, r, sample(t, "ubl-invoice-multirate.xml"), "pending")
	nothing := filed(t, r, zeroCopy(t, "NK-ZERO-2"), "flagged")
	c := a.client(t)
	csrf := a.signIn(t, c, reviewer)
	page := func(path string) *goquery.Document {
		t.Helper()
		resp := get(t, c, a.URL+path)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		return doc(t, resp)
	}

	for _, tab := range []string{"review", "flagged"} {
		desk := page("/desk?tab=" + tab + "&flag=nothing_to_post")
		if desk.Find(`#f-flag option[value=nothing_to_post][selected]`).Length() != 1 {
			t.Fatal("the desk's flag filter does not offer nothing_to_post")
		}
		rows := desk.Find(`[data-testid=queue-row]`)
		if rows.Length() != 1 || rows.AttrOr("data-document-id", "") != itoa(nothing) ||
			strings.TrimSpace(rows.Find(`[data-flag-reason=nothing_to_post]`).Text()) != "nothing to post" {
			html, _ := desk.Find(`[data-testid=queue]`).Html()
			t.Fatalf("the %s tab filtered by nothing to post: %s", tab, html)
		}
	}

	d := page("/intake/" + itoa(nothing))
	if got := strings.Join(strings.Fields(d.Find(`[data-testid=conformance] [data-testid=conformance-verdict]`).Text()), " "); !strings.HasPrefix(got, "Valid EN 16931") {
		t.Fatalf("the panel says %q", got)
	}
	if strings.TrimSpace(d.Find(`[data-testid=flag-reason]`).Text()) != "nothing to post" {
		t.Fatalf("the flag says %q", d.Find(`[data-testid=flag-reason]`).Text())
	}
	decision := d.Find(`[data-testid=decision]`)
	form := decision.Find(`[data-testid=close-nothing-to-post-form]`)
	if decision.Find(`[data-testid=approve], [data-testid=acknowledge-form]`).Length() != 0 || form.Length() != 1 ||
		form.Find(`[data-testid=close-nothing-to-post]`).Length() != 1 || form.Find(`input:not([type=hidden]), textarea, select`).Length() != 0 {
		html, _ := decision.Html()
		t.Fatalf("the decision region: %s", html)
	}
	if status := postFormWith(t, c, a.URL+form.AttrOr("action", ""), url.Values{"_csrf": {csrf}}, nil); status != 303 {
		t.Fatalf("close: %d", status)
	}
	d = page("/intake/" + itoa(nothing))
	if got := d.Find(`[data-testid=rejected]`).Text(); !strings.Contains(got, review.NothingToPostReason) {
		t.Fatalf("the closed document's page says %q", got)
	}
}
