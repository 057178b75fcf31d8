package ui_test

import (
	"net/http"
	"net/url"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// An anonymous visitor's sign-in form writes no session row, however often
// it is fetched (a crawler or a load balancer's probe would otherwise fill
// the table); the form still carries a CSRF token, and signing in with it
// creates the one session. The sign-in POST is refused without the token,
// with another visitor's, and from a cross-site page, with or without
// Sec-Fetch-Site, and a refused POST writes no row either.
func TestAnonymousSignInFormStoresNoSession(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	sessions := func() int { return testkit.Count(t, a.DB, `SELECT count(*) FROM web_sessions`) }
	before := sessions()

	formToken := func(t *testing.T, c *http.Client) string {
		t.Helper()
		resp, err := c.Get(a.URL + "/signin")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /signin: %d", resp.StatusCode)
		}
		token, _ := webtest.Doc(t, resp).Find(`form[data-testid=signin-form] input[name=_csrf]`).Attr("value")
		if token == "" {
			t.Fatal("the sign-in form has no CSRF token")
		}
		return token
	}
	for range 5 {
		formToken(t, a.Client(t)) // a new visitor each time
	}
	same := a.Client(t)
	first := formToken(t, same)
	for range 5 {
		if again := formToken(t, same); again != first {
			t.Fatalf("one visitor's form token changed from %q to %q: a second tab's form would be refused", first, again)
		}
	}
	if n := sessions(); n != before {
		t.Fatalf("anonymous visits of the sign-in form wrote %d session rows", n-before)
	}

	post := func(t *testing.T, c *http.Client, form url.Values, header map[string]string) int {
		t.Helper()
		return webtest.PostForm(t, c, a.URL+"/signin", form, header)
	}
	credentials := func(token string) url.Values {
		return url.Values{"_csrf": {token}, "email": {u.Email}, "password": {testkit.TestPassword}}
	}
	other := a.Client(t)
	otherToken := formToken(t, other)
	wrong := "x" + first[1:] // the right token with its first character changed
	if first[0] == 'x' {
		wrong = "y" + first[1:]
	}
	for _, tc := range []struct {
		name   string
		client *http.Client
		form   url.Values
		header map[string]string
	}{
		{"no token", same, credentials(""), nil},
		{"a wrong token", same, credentials(wrong), nil},
		{"no token, Sec-Fetch-Site same-origin", same, credentials(""), map[string]string{"Sec-Fetch-Site": "same-origin"}},
		{"another visitor's token", same, credentials(otherToken), nil},
		{"the token without its cookie", a.Client(t), credentials(first), nil},
		{"the right token from a cross-site page", same, credentials(first), map[string]string{"Sec-Fetch-Site": "cross-site"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := post(t, tc.client, tc.form, tc.header); got != http.StatusForbidden {
				t.Fatalf("status %d, want 403", got)
			}
			if n := sessions(); n != before {
				t.Fatalf("a refused sign-in wrote %d session rows", n-before)
			}
		})
	}

	t.Run("signing in with the form's token, Sec-Fetch-Site same-origin", func(t *testing.T) {
		if got := post(t, same, credentials(first), map[string]string{"Sec-Fetch-Site": "same-origin"}); got != http.StatusSeeOther {
			t.Fatalf("status %d, want 303", got)
		}
		if n := sessions(); n != before+1 {
			t.Fatalf("%d session rows after signing in, want %d", n, before+1)
		}
		resp, err := same.Get(a.URL + "/desk")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("/desk after signing in: %d", resp.StatusCode)
		}
	})
	t.Run("signing in with the form's token, no Sec-Fetch-Site", func(t *testing.T) {
		if got := post(t, other, credentials(otherToken), nil); got != http.StatusSeeOther {
			t.Fatalf("status %d, want 303", got)
		}
		if n := sessions(); n != before+2 {
			t.Fatalf("%d session rows after two sign-ins, want %d", n, before+2)
		}
	})
}

// A failed sign-in shows the form again with a token that works: the
// second attempt, with the right password, signs in.
func TestAFailedSignInCanBeRetried(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	c := a.Client(t)
	resp, err := c.Get(a.URL + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	token, _ := webtest.Doc(t, resp).Find(`form[data-testid=signin-form] input[name=_csrf]`).Attr("value")
	resp, err = c.PostForm(a.URL+"/signin", url.Values{"_csrf": {token}, "email": {u.Email}, "password": {"wrong password"}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a wrong password: %d", resp.StatusCode)
	}
	again, _ := webtest.Doc(t, resp).Find(`form[data-testid=signin-form] input[name=_csrf]`).Attr("value")
	if again == "" {
		t.Fatal("the form shown again has no CSRF token")
	}
	resp, err = c.PostForm(a.URL+"/signin", url.Values{"_csrf": {again}, "email": {u.Email}, "password": {testkit.TestPassword}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the second attempt: %d", resp.StatusCode)
	}
}
