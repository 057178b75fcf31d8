package web_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/internal/testkit/browser"
	"greatbook/web/webtest"
)

// signedInPage opens a page signed in as u.
func signedInPage(t *testing.T, a *webtest.Site, u auth.User) *pageT {
	t.Helper()
	p := browser.NewPage(t, a.URL)
	_, err := p.Goto("/signin")
	webtest.Must(t, err)
	signInWith(t, p, u.Email, testkit.TestPassword)
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))
	return &pageT{Page: p}
}

func TestBrowserUploadShowsProgressAndOutcomePerFile(t *testing.T) {
	t.Parallel()
	a := webtest.NewSiteWith(t, app.Config{MaxUploadBytes: 64 << 10})
	o := testkit.Org(t, a.DB)
	u := testkit.User(t, a.DB, o, auth.RoleReviewer)
	p := signedInPage(t, a, u)

	dir := t.TempDir()
	big := filepath.Join(dir, "huge.xml")
	webtest.Must(t, os.WriteFile(big, append([]byte("<Invoice>"), make([]byte, 70<<10)...), 0o644))
	files := []string{"../internal/einvoice/testdata/ubl-invoice-multirate.xml", "../internal/einvoice/testdata/cii-invoice.xml", big}

	_, err := p.Goto("/upload")
	webtest.Must(t, err)
	webtest.Must(t, p.GetByTestId("upload-input").SetInputFiles(files))
	webtest.Must(t, p.GetByTestId("upload-submit").Click())
	results := p.GetByTestId("upload-result")
	webtest.Must(t, expect.Locator(results).ToHaveCount(3))
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=upload-result][data-outcome=new]`)).ToHaveCount(2))
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=upload-result][data-outcome=refused]`)).ToContainText("larger than the limit"))

	// The same file again: recognised, not stored twice.
	webtest.Must(t, p.GetByTestId("upload-input").SetInputFiles(files[:1]))
	webtest.Must(t, p.GetByTestId("upload-submit").Click())
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=upload-result][data-outcome=known]`)).ToHaveCount(1))

	// Open the document: the clerk files it as pending.
	webtest.Must(t, p.Locator(`[data-testid=upload-result][data-outcome=new] a`).First().Click())
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/intake/\d+$`)))
	for i := 0; i < 100; i++ {
		if txt, _ := p.GetByTestId("status").First().TextContent(); txt == "pending" {
			break
		}
		_, err = p.Reload()
		webtest.Must(t, err)
	}
	webtest.Must(t, expect.Locator(p.GetByTestId("status").First()).ToHaveText("pending"))
	webtest.Must(t, expect.Locator(p.GetByTestId("field-number")).Not().ToBeEmpty())
}
