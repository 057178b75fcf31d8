package web_test

import (
	"context"
	"net/http"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/internal/testkit/browser"
	"greatbook/web/webtest"
)

var expect = browser.Expect()

// signInWith fills the sign-in form on the current page.
func signInWith(t *testing.T, p playwright.Page, email, password string) {
	t.Helper()
	if err := p.GetByLabel("Email").Fill(email); err != nil {
		t.Fatal(err)
	}
	if err := p.GetByLabel("Password").Fill(password); err != nil {
		t.Fatal(err)
	}
	if err := p.GetByTestId("signin-submit").Click(); err != nil {
		t.Fatal(err)
	}
}

func TestBrowserSignInAndOut(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	ctx := browser.NewContext(t, a.URL)
	p := browser.PageIn(t, ctx)

	_, err := p.Goto("/signin")
	webtest.Must(t, err)
	signInWith(t, p, u.Email, testkit.TestPassword)
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))
	webtest.Must(t, expect.Locator(p.GetByTestId("current-user")).ToContainText(u.Email))

	cookies, err := ctx.Cookies()
	webtest.Must(t, err)
	if len(cookies) != 1 || !cookies[0].HttpOnly || *cookies[0].SameSite != *playwright.SameSiteAttributeLax {
		t.Fatalf("session cookie: %+v", cookies)
	}

	webtest.Must(t, p.GetByTestId("signout").Click())
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/signin$`)))

	// The cookie copied before sign-out no longer signs anyone in.
	thief := browser.NewContext(t, a.URL)
	oc := cookies[0]
	webtest.Must(t, thief.AddCookies([]playwright.OptionalCookie{{Name: oc.Name, Value: oc.Value, URL: playwright.String(a.URL)}}))
	tp := browser.PageIn(t, thief)
	_, err = tp.Goto("/desk")
	webtest.Must(t, err)
	webtest.Must(t, expect.Page(tp).ToHaveURL(regexp.MustCompile(`/signin\?next=%2Fdesk$`)))
}

func TestBrowserWrongPassword(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	p := browser.NewPage(t, a.URL)

	_, err := p.Goto("/signin")
	webtest.Must(t, err)
	signInWith(t, p, u.Email, "not the password")
	webtest.Must(t, expect.Locator(p.GetByTestId("signin-error")).ToHaveText("wrong email or password"))
	webtest.Must(t, expect.Locator(p.GetByLabel("Email")).ToHaveValue(u.Email))
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM web_sessions WHERE user_id IS NOT NULL`); n != 0 {
		t.Fatalf("a failed sign-in created %d signed-in sessions", n)
	}
	_, err = p.Goto("/desk")
	webtest.Must(t, err)
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/signin`)))
}

func TestBrowserProtectedPageRedirectsAndReturns(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	p := browser.NewPage(t, a.URL)

	_, err := p.Goto("/desk?tab=flagged")
	webtest.Must(t, err)
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/signin\?next=%2Fdesk%3Ftab%3Dflagged$`)))
	signInWith(t, p, u.Email, testkit.TestPassword)
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk\?tab=flagged$`)))
}

func TestBrowserFormWithoutValidCSRFTokenIsRefused(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	p := browser.NewPage(t, a.URL)
	_, err := p.Goto("/signin")
	webtest.Must(t, err)
	signInWith(t, p, u.Email, testkit.TestPassword)
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))

	// Forge the sign-out form's token, as a page that never saw it would.
	_, err = p.Evaluate(`document.querySelector('form.signout input[name=_csrf]').value = 'forged'`)
	webtest.Must(t, err)
	resp, err := p.ExpectResponse("**/signout", func() error { return p.GetByTestId("signout").Click() })
	webtest.Must(t, err)
	if resp.Status() != http.StatusForbidden {
		t.Fatalf("forged sign-out: status %d, want 403", resp.Status())
	}
	webtest.Must(t, expect.Locator(p.GetByTestId("error-page")).ToContainText("CSRF"))

	// Nothing changed: still signed in, the session row is still there.
	_, err = p.Goto("/desk")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("current-user")).ToContainText(u.Email))
	var n int
	webtest.Must(t, a.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM web_sessions WHERE user_id = $1`, u.ID).Scan(&n))
	if n != 1 {
		t.Fatalf("signed-in sessions: %d, want 1", n)
	}
}

// pageT is a page with the test's helpers.
type pageT struct{ playwright.Page }

// pwExact matches a label exactly.
func pwExact() playwright.PageGetByLabelOptions {
	return playwright.PageGetByLabelOptions{Exact: playwright.Bool(true)}
}
