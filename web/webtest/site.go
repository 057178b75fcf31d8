// Package webtest serves the whole site (web.New over a fresh database) to
// the tests of web, web/api and web/ui, with the clients, fixtures and
// checks they share: a browser-like client that signs in, an API client
// with a token, documents filed through the API, and the check of every
// /api/v1 response against the OpenAPI document.
package webtest

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/app"
	"greatbook/internal/auth"
	"greatbook/internal/org"
	"greatbook/internal/testkit"
	"greatbook/web"
)

// Site is the server under test, in-process against a fresh database,
// its services acting at the site's failpoints.
type Site struct {
	*httptest.Server
	DB         *testkit.DB
	Web        *web.Server
	App        *app.App
	Failpoints *testkit.Failpoints
}

// NewSite serves the app with the default configuration.
func NewSite(t *testing.T) *Site { return NewSiteWith(t, app.Config{}) }

// NewSiteWith serves the app with a configuration (workers and logging are set here).
func NewSiteWith(t *testing.T, cfg app.Config) *Site {
	t.Helper()
	db := testkit.NewDB(t)
	fp := &testkit.Failpoints{}
	cfg.Logger, cfg.Workers, cfg.LeaseTTL, cfg.Failpoints = testkit.Logger(t), 2, 5*time.Second, fp
	services := app.New(db.Pool, cfg)
	ctx, stop := context.WithCancel(context.Background())
	services.Start(ctx)
	t.Cleanup(func() { stop(); services.Wait() })
	srv := web.New(services, web.Options{Logger: testkit.Logger(t)})
	srv.Auth().Password = testkit.FastPasswords
	// Every /api/v1 response is checked against web/api/openapi.json.
	ts := httptest.NewServer(validatingAPI(t, srv.Handler()))
	t.Cleanup(ts.Close)
	return &Site{Server: ts, DB: db, Web: srv, App: services, Failpoints: fp}
}

// Client is a browser-like HTTP client with a cookie jar that does not follow redirects.
func (a *Site) Client(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Doc parses an HTML response (and closes its body).
func Doc(t *testing.T, resp *http.Response) *goquery.Document {
	t.Helper()
	defer resp.Body.Close()
	d, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// SignedInClient is a new org with one user of role, signed in on a new client:
// the org, the user, the client and its CSRF token.
func (a *Site) SignedInClient(t *testing.T, role auth.Role) (org.Org, auth.User, *http.Client, string) {
	t.Helper()
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, role)
	c := a.Client(t)
	return o, u, c, a.SignIn(t, c, u)
}

// SignIn signs u in with c and returns the CSRF token of the new session.
func (a *Site) SignIn(t *testing.T, c *http.Client, u auth.User) string {
	t.Helper()
	token := a.postSignIn(t, c, u)
	resp, err := c.Get(a.URL + "/desk")
	if err != nil {
		t.Fatal(err)
	}
	csrf, ok := Doc(t, resp).Find(`form.signout input[name=_csrf]`).Attr("value")
	if !ok || csrf == "" || csrf == token {
		t.Fatalf("signed-in page must carry a new CSRF token (got %q)", csrf)
	}
	return csrf
}

// postSignIn sends the sign-in form for u with c, and returns the form's
// CSRF token (the one before signing in).
func (a *Site) postSignIn(t *testing.T, c *http.Client, u auth.User) string {
	t.Helper()
	resp, err := c.Get(a.URL + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	token, _ := Doc(t, resp).Find(`form[data-testid=signin-form] input[name=_csrf]`).Attr("value")
	resp, err = c.PostForm(a.URL+"/signin", url.Values{"_csrf": {token}, "email": {u.Email}, "password": {testkit.TestPassword}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in of %s: status %d", u.Email, resp.StatusCode)
	}
	return token
}

// Operator adds an instance operator (no org) and signs them in.
func (a *Site) Operator(t *testing.T) *http.Client {
	t.Helper()
	svc := auth.NewService(a.DB.Pool)
	svc.Password = testkit.FastPasswords
	u, err := svc.CreateUser(context.Background(), 0, "op-"+strings.ToLower(t.Name())+"@ops.test", auth.RoleOperator, testkit.TestPassword)
	if err != nil {
		t.Fatal(err)
	}
	c := a.Client(t)
	a.postSignIn(t, c, u)
	return c
}

// Itoa is an id as a path segment.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }

// PostForm posts form to url with c and the headers given, and returns
// the status.
func PostForm(t *testing.T, c *http.Client, url string, form url.Values, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Get sends a GET with c.
func Get(t *testing.T, c *http.Client, u string) *http.Response {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// Must fails the test on err.
func Must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// MustAtoi reads a decimal id.
func MustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int64(r-'0')
	}
	return n
}

// CountRows counts the rows of table.
func CountRows(t *testing.T, a *Site, table string) int {
	t.Helper()
	var n int
	if err := a.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
