package web_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"greatbook/web/httpkit"
	"greatbook/web/webtest"
)

// TestAPageWhoseTemplateFailsIsA500WithTheErrorPage: a component that fails
// half-way must not leave a cut-off page behind a 200.
func TestAPageWhoseTemplateFailsIsA500WithTheErrorPage(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	failing := templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		if _, err := io.WriteString(w, `<html><body><p data-testid="half-page">half a page`); err != nil {
			return err
		}
		return errors.New("template exploded")
	})
	a.Web.Echo().GET("/half-page", func(c echo.Context) error { return httpkit.Page(c, failing) })
	resp, err := http.Get(a.URL + "/half-page")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", resp.StatusCode)
	}
	d := webtest.Doc(t, resp)
	if d.Find(`[data-testid=half-page]`).Length() != 0 {
		t.Error("the half-rendered page was sent")
	}
	if s, _ := d.Find(`[data-testid=error-page]`).Attr("data-status"); s != "500" {
		html, _ := d.Html()
		t.Errorf("no 500 error page in:\n%s", strings.TrimSpace(html))
	}
}
