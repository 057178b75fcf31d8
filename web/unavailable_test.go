package web_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

func TestAnUnreachableDatabaseAnswers503WithRetryAfter(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	token := testkit.Token(t, a.DB, u)
	browser := a.Client(t)
	a.SignIn(t, browser, u)

	get := func(c *http.Client, path string, header map[string]string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", a.URL+path, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(body)
	}
	bearer := map[string]string{"Authorization": "Bearer " + token}
	if resp, body := get(http.DefaultClient, "/api/v1/me", bearer); resp.StatusCode != 200 {
		t.Fatalf("before the outage: %d %s", resp.StatusCode, body)
	}

	restore := testkit.RefuseConnections(t, a.DB)
	for _, tc := range []struct {
		name   string
		client *http.Client
		path   string
		header map[string]string
		check  func(t *testing.T, body string)
	}{
		{"API", http.DefaultClient, "/api/v1/me", bearer, func(t *testing.T, body string) {
			var e struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Code != "unavailable" || e.Error.Message == "" {
				t.Fatalf("API body %s", body)
			}
		}},
		{"page", browser, "/desk", nil, func(t *testing.T, body string) {
			d, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
			if d.Find(`[data-testid=error-page][data-status="503"]`).Length() != 1 {
				t.Fatalf("no 503 error page: %s", body)
			}
		}},
		{"htmx", browser, "/desk", map[string]string{"HX-Request": "true"}, func(t *testing.T, body string) {
			d, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
			if d.Find(`[data-testid=error-partial][data-status="503"]`).Length() != 1 || d.Find(`[data-testid=error-page]`).Length() != 0 {
				t.Fatalf("no 503 partial: %s", body)
			}
		}},
		{"healthz", http.DefaultClient, "/healthz", nil, func(t *testing.T, body string) {
			if !strings.Contains(body, "unavailable") {
				t.Fatalf("healthz body %s", body)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := get(tc.client, tc.path, tc.header)
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("status %d, want 503: %s", resp.StatusCode, body)
			}
			if resp.Header.Get("Retry-After") == "" {
				t.Fatal("a 503 without Retry-After")
			}
			tc.check(t, body)
		})
	}

	// The same pool serves again once the database is back.
	restore()
	if resp, body := get(http.DefaultClient, "/api/v1/me", bearer); resp.StatusCode != 200 {
		t.Fatalf("after the outage: %d %s", resp.StatusCode, body)
	}
	if resp, body := get(browser, "/desk", nil); resp.StatusCode != 200 {
		t.Fatalf("the desk after the outage: %d %s", resp.StatusCode, body)
	}
}
