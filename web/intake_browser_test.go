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
)

// signedInPage opens a page signed in as u.
func (a *site) signedInPage(t *testing.T, u auth.User) *pageT {
	t.Helper()
	p := browser.NewPage(t, a.URL)
	_, err := p.Goto("/signin")
	must(t, err)
	signInWith(t, p, u.Email, testkit.TestPassword)
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))
	return &pageT{Page: p}
}

func TestBrowserUploadShowsProgressAndOutcomePerFile(t *testing.T) {
	t.Parallel()
	a := newAppWith(t, app.Config{MaxUploadBytes: 64 << 10})
	o := testkit.Org(t, a.db)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	p := a.signedInPage(t, u)

	dir := t.TempDir()
	big := filepath.Join(dir, "huge.xml")
	must(t, os.WriteFile(big, append([]byte("<Invoice>"), make([]byte, 70<<10)...), 0o644))
	files := []string{"../internal/einvoice/testdata/ubl-invoice-multirate.xml", "../internal/einvoice/testdata/cii-invoice.xml", big}

	_, err := p.Goto("/upload")
	must(t, err)
	must(t, p.GetByTestId("upload-input").SetInputFiles(files))
	must(t, p.GetByTestId("upload-submit").Click())
	results := p.GetByTestId("upload-result")
	must(t, expect.Locator(results).ToHaveCount(3))
	must(t, expect.Locator(p.Locator(`[data-testid=upload-result][data-outcome=new]`)).ToHaveCount(2))
	must(t, expect.Locator(p.Locator(`[data-testid=upload-result][data-outcome=refused]`)).ToContainText("larger than the limit"))

	// The same file again: recognised, not stored twice.
	must(t, p.GetByTestId("upload-input").SetInputFiles(files[:1]))
	must(t, p.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(p.Locator(`[data-testid=upload-result][data-outcome=known]`)).ToHaveCount(1))

	// Open the document: the clerk files it as pending.
	must(t, p.Locator(`[data-testid=upload-result][data-outcome=new] a`).First().Click())
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/intake/\d+$`)))
	for i := 0; i < 100; i++ {
		if txt, _ := p.GetByTestId("status").First().TextContent(); txt == "pending" {
			break
		}
		_, err = p.Reload()
		must(t, err)
	}
	must(t, expect.Locator(p.GetByTestId("status").First()).ToHaveText("pending"))
	must(t, expect.Locator(p.GetByTestId("field-number")).Not().ToBeEmpty())
}
