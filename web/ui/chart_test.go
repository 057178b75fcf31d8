package ui_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/chart"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// The import forms without the script: a hostile file (a NUL byte, bytes
// that are not UTF-8) is refused at the door naming its line, a file over
// the cap is 413, and nothing is written; a good values file creates its
// dimension. A reviewer may not import (403).
func TestChartImportFormsRefuseHostileFiles(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, _, c, csrf := a.SignedInClient(t, auth.RoleAdmin)
	send := func(client *http.Client, token, path, dimension string, content []byte) *http.Response {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		_ = w.WriteField("_csrf", token)
		if dimension != "" {
			_ = w.WriteField("dimension", dimension)
		}
		part, _ := w.CreateFormFile("file", "chart.csv")
		_, _ = part.Write(content)
		_ = w.Close()
		resp, err := client.Post(a.URL+path, w.FormDataContentType(), &buf)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for name, tc := range map[string]struct {
		content []byte
		fault   string
	}{
		"nul":          {[]byte("code,name,type\n6600,Hard\x00ware,expense\n"), "line 2: the file contains a NUL byte"},
		"invalid utf8": {[]byte("code,name,type\n6600,Hardware,expense\n6700,\xc3\x28,expense\n"), "line 3: the file is not UTF-8 text"},
	} {
		resp := send(c, csrf, "/admin/accounts/import", "", tc.content)
		d := webtest.Doc(t, resp)
		if resp.StatusCode != 422 || !strings.HasPrefix(d.Find(`[data-testid=chart-fault]`).Text(), tc.fault) {
			t.Errorf("%s: %d %q", name, resp.StatusCode, d.Find(`[data-testid=chart-error]`).Text())
		}
	}
	big := append([]byte("code,name,type\n"), bytes.Repeat([]byte("6600,Hardware,expense\n"), chart.MaxImportBytes/20)...)
	if resp := send(c, csrf, "/admin/accounts/import", "", big); resp.Body.Close() == nil && resp.StatusCode != 413 {
		t.Errorf("a file over the cap: %d", resp.StatusCode)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM accounts WHERE org_id = $1 AND code = '6600'`, o.ID); n != 0 {
		t.Fatal("a refused file wrote an account")
	}
	resp := send(c, csrf, "/admin/dimensions/import", "project", []byte("code;name\nP1;Apollo\n"))
	if resp.Body.Close() == nil && resp.StatusCode != http.StatusSeeOther && resp.StatusCode != 200 {
		t.Fatalf("values import: %d", resp.StatusCode)
	}
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM dimension_values v JOIN dimensions d ON d.id = v.dimension_id WHERE d.org_id = $1 AND d.name = 'project'`, o.ID); n != 1 {
		t.Fatalf("%d values imported, want 1", n)
	}
	_, _, rc, rcsrf := a.SignedInClient(t, auth.RoleReviewer)
	if resp := send(rc, rcsrf, "/admin/dimensions/import", "project", []byte("code,name\nP2,Gemini\n")); resp.Body.Close() == nil && resp.StatusCode != 403 {
		t.Fatalf("a reviewer importing: %d", resp.StatusCode)
	}
}
