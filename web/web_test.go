package web_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestCSRF(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	_, _, c, csrf := a.SignedInClient(t, auth.RoleReviewer)

	post := func(t *testing.T, form url.Values, header map[string]string) int {
		return webtest.PostForm(t, c, a.URL+"/signout", form, header)
	}
	stillSignedIn := func(t *testing.T) {
		t.Helper()
		resp, err := c.Get(a.URL + "/desk")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("the refused request changed state: /desk answers %d", resp.StatusCode)
		}
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		header map[string]string
	}{
		{"no token", nil, nil},
		{"wrong token", url.Values{"_csrf": {"x" + csrf[1:]}}, nil},
		// Echo's own CSRF middleware would let this through: any client can claim same-origin.
		{"no token but Sec-Fetch-Site same-origin", nil, map[string]string{"Sec-Fetch-Site": "same-origin"}},
		{"valid token from a cross-site page", url.Values{"_csrf": {csrf}}, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		// htmx requests are checked like forms: the header token, or nothing passes.
		{"htmx request without a token", nil, map[string]string{"HX-Request": "true"}},
		{"htmx request with a wrong header token", nil, map[string]string{"HX-Request": "true", "X-CSRF-Token": "x" + csrf[1:]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := post(t, tc.form, tc.header); got != http.StatusForbidden {
				t.Fatalf("status %d, want 403", got)
			}
			stillSignedIn(t)
		})
	}
	t.Run("valid header token is accepted (htmx)", func(t *testing.T) {
		if got := post(t, nil, map[string]string{"X-CSRF-Token": csrf, "Sec-Fetch-Site": "same-origin"}); got != http.StatusSeeOther {
			t.Fatalf("status %d, want 303", got)
		}
	})
}

// Signing out in the browser revokes the session on the server: a copy of
// the cookie taken before it no longer signs anyone in.
func TestSignOutRevokesACopiedCookie(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	_, _, c, csrf := a.SignedInClient(t, auth.RoleReviewer)
	base, _ := url.Parse(a.URL)
	copied := c.Jar.Cookies(base)
	if len(copied) == 0 {
		t.Fatal("no session cookie after sign-in")
	}
	withCopy := func() *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", a.URL+"/desk", nil)
		for _, ck := range copied {
			req.AddCookie(ck)
		}
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := withCopy(); resp.StatusCode != http.StatusOK {
		t.Fatalf("the copied cookie before sign-out: %d", resp.StatusCode)
	}
	resp, err := c.PostForm(a.URL+"/signout", url.Values{"_csrf": {csrf}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", resp.StatusCode)
	}
	if resp := withCopy(); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/signin") {
		t.Fatalf("the copied cookie after sign-out: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestAPIAuthAndErrorShape(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o1, o2 := testkit.Org(t, a.DB), testkit.Org(t, a.DB)
	u1, u2 := testkit.User(t, a.DB, o1, auth.RoleReviewer), testkit.User(t, a.DB, o2, auth.RoleReviewer)
	tok1 := testkit.Token(t, a.DB, u1)

	call := func(t *testing.T, path, token string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("GET", a.URL+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatalf("%s: body is not JSON: %v", path, err)
		}
		return resp.StatusCode, body
	}
	errCode := func(body map[string]any) string {
		e, _ := body["error"].(map[string]any)
		s, _ := e["code"].(string)
		return s
	}
	for _, tc := range []struct {
		name, path, token string
		status            int
		code              string
	}{
		{"no token", "/api/v1/me", "", 401, "unauthorized"},
		{"bad token", "/api/v1/me", "gbk_" + strings.Repeat("A", 43), 401, "unauthorized"},
		{"own user", "/api/v1/users/" + webtest.Itoa(u1.ID), tok1, 200, ""},
		{"another org's user is not found", "/api/v1/users/" + webtest.Itoa(u2.ID), tok1, 404, "not_found"},
		{"unknown route", "/api/v1/nothing-here", tok1, 404, "not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := call(t, tc.path, tc.token)
			if status != tc.status || errCode(body) != tc.code {
				t.Fatalf("got %d %v, want %d %q", status, body, tc.status, tc.code)
			}
			if tc.code != "" {
				if msg, _ := body["error"].(map[string]any)["message"].(string); msg == "" {
					t.Fatal("an error needs a message")
				}
			}
		})
	}
}

func TestInternalErrorsShowARequestIDAndNoStack(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	a.Web.Echo().GET("/boom", func(echo.Context) error { panic("secret internal detail") })
	a.Web.Echo().GET("/api/v1/boom", func(echo.Context) error { return errors.New("secret internal detail") })

	resp, err := http.Get(a.URL + "/boom")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	d, _ := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	id := d.Find(`[data-testid=request-id]`).Text()
	if id == "" || id != resp.Header.Get("X-Request-Id") {
		t.Fatalf("the page must show the request id %q, shows %q", resp.Header.Get("X-Request-Id"), id)
	}
	if strings.Contains(string(body), "secret internal detail") || strings.Contains(string(body), "goroutine") {
		t.Fatal("internal detail or a stack trace reached the user")
	}

	resp, err = http.Get(a.URL + "/api/v1/boom")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct {
			Code      string `json:"code"`
			Message   string `json:"message"`
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &e); err != nil || resp.StatusCode != 500 || e.Error.Code != "internal" ||
		e.Error.RequestID != resp.Header.Get("X-Request-Id") || e.Error.Message == "" {
		t.Fatalf("API 500: %d %s", resp.StatusCode, raw)
	}
	if strings.Contains(string(raw), "secret internal detail") {
		t.Fatal("internal detail reached an API client")
	}
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	resp, err := http.Get(a.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != `{"status":"ok"}` {
		t.Fatalf("healthz: %d %s", resp.StatusCode, b)
	}
	a.DB.Pool.Close()
	resp, err = http.Get(a.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Fatalf("healthz without a database: %d, want 503", resp.StatusCode)
	}
}

func TestNoGETChangesState(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	_, _, c, _ := a.SignedInClient(t, auth.RoleReviewer)
	resp, err := c.Get(a.URL + "/signout")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /signout: %d, want 404 (state changes are POST only)", resp.StatusCode)
	}
	resp, err = c.Get(a.URL + "/desk")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /signout signed the user out: /desk answers %d", resp.StatusCode)
	}
}

// A JSON body over the limit is refused with 413 in the API's error shape,
// and nothing is written.
func TestAnOversizedJSONBodyIsRefused(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	body := `{"source_type": "manual", "source_id": "big", "description": "` + strings.Repeat("x", 2<<20) + `"}`
	req, _ := http.NewRequest("POST", a.URL+"/api/v1/journal-entries", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testkit.Token(t, a.DB, u))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || out.Error.Code != "too_large" {
		t.Fatalf("an oversized body: %d %q", resp.StatusCode, out.Error.Code)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM journal_entries`); n != 0 {
		t.Fatalf("%d entries written", n)
	}
}
