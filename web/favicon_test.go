package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"greatbook/internal/testkit"
	"greatbook/web"
	"greatbook/web/webtest"
)

// The browser's first request for /favicon.ico is answered with an icon
// from the embedded static files, which every page links.
func TestFaviconIsServed(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	resp, err := http.Get(a.URL + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "image/") || len(body) == 0 {
		t.Fatalf("GET /favicon.ico: %d %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
	resp, err = http.Get(a.URL + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	if href, _ := webtest.Doc(t, resp).Find(`head link[rel=icon]`).Attr("href"); href != "/favicon.ico" {
		t.Errorf("the layout's icon: %q", href)
	}
}

// A browser that gives up on a request (a favicon fetch cut short by the
// next navigation) cancels its context while the session loads: that is
// no server error, and nothing is logged at error level.
func TestARequestCancelledWhileTheSessionLoadsLogsNoError(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	var logs testkit.LogBuffer
	srv := web.New(a.App, web.Options{Logger: slog.New(slog.NewTextHandler(io.MultiWriter(&logs, testWriter{t}), nil))})

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/desk", nil)
	// A cookie shaped like a session token, so that loading it asks the database.
	req.AddCookie(&http.Cookie{Name: srv.Sessions().CookieName(), Value: strings.Repeat("a", 43)})
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Fatalf("a cancelled request logged an error:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "path=/desk") {
		t.Fatalf("the request is not logged at all:\n%s", logs.String())
	}
}

// testWriter writes a test's log lines through t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
