package ui_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/auth"
	"greatbook/internal/review"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// On the desk a document with nothing to post is under its own flag (offered by the flag filter, in
// the review and flagged tabs); its page says it is valid EN 16931, offers no approve and closes it
// with one button, without a form to fill in.
func TestTheDeskAndThePageOfADocumentWithNothingToPost(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := webtest.BookkeepingOrg(t, a)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	r := a.APIFor(t, reviewer)
	webtest.Filed(t, r, webtest.Sample(t, "ubl-invoice-multirate.xml"), "pending")
	nothing := webtest.Filed(t, r, webtest.ZeroCopy(t, "NK-ZERO-2"), "flagged")
	c := a.Client(t)
	csrf := a.SignIn(t, c, reviewer)
	page := func(path string) *goquery.Document {
		t.Helper()
		resp := webtest.Get(t, c, a.URL+path)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		return webtest.Doc(t, resp)
	}

	for _, tab := range []string{"review", "flagged"} {
		desk := page("/desk?tab=" + tab + "&flag=nothing_to_post")
		if desk.Find(`#f-flag option[value=nothing_to_post][selected]`).Length() != 1 {
			t.Fatal("the desk's flag filter does not offer nothing_to_post")
		}
		rows := desk.Find(`[data-testid=queue-row]`)
		if rows.Length() != 1 || rows.AttrOr("data-document-id", "") != webtest.Itoa(nothing) ||
			strings.TrimSpace(rows.Find(`[data-flag-reason=nothing_to_post]`).Text()) != "nothing to post" {
			html, _ := desk.Find(`[data-testid=queue]`).Html()
			t.Fatalf("the %s tab filtered by nothing to post: %s", tab, html)
		}
	}

	d := page("/intake/" + webtest.Itoa(nothing))
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
	if status := webtest.PostForm(t, c, a.URL+form.AttrOr("action", ""), url.Values{"_csrf": {csrf}}, nil); status != 303 {
		t.Fatalf("close: %d", status)
	}
	d = page("/intake/" + webtest.Itoa(nothing))
	if got := d.Find(`[data-testid=rejected]`).Text(); !strings.Contains(got, review.NothingToPostReason) {
		t.Fatalf("the closed document's page says %q", got)
	}
}
