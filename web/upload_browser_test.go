package web_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
)

// TestBrowserUploadResultsFollowTheClerk: an upload result does not stay at
// "the clerk is reading it": without a reload it turns into the document's
// outcome, pending, or flagged as a duplicate of #N with a link that opens it.
func TestBrowserUploadResultsFollowTheClerk(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := testkit.Org(t, a.db)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	p := a.signedIn(t, u)

	invoice := sample(t, "ubl-invoice-multirate.xml")
	dir := t.TempDir()
	first, copy := filepath.Join(dir, "first.xml"), filepath.Join(dir, "copy.xml")
	must(t, os.WriteFile(first, invoice, 0o644))
	must(t, os.WriteFile(copy, append([]byte("<!-- again -->"), invoice...), 0o644))

	_, err := p.Goto("/upload")
	must(t, err)
	must(t, p.GetByTestId("upload-input").SetInputFiles(first))
	must(t, p.GetByTestId("upload-submit").Click())
	result := p.Locator(`[data-testid=upload-result]`, playwright.PageLocatorOptions{HasText: "first.xml"})
	must(t, expect.Locator(result.GetByTestId("upload-state")).ToContainText("ready for review", playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(30_000)}))
	must(t, expect.Locator(result).ToHaveAttribute("data-status", "pending"))
	href, err := result.Locator("a").First().GetAttribute("href")
	must(t, err)
	firstID := regexp.MustCompile(`\d+$`).FindString(href)

	must(t, p.GetByTestId("upload-input").SetInputFiles(copy))
	must(t, p.GetByTestId("upload-submit").Click())
	dup := p.Locator(`[data-testid=upload-result]`, playwright.PageLocatorOptions{HasText: "copy.xml"})
	must(t, expect.Locator(dup.GetByTestId("upload-state")).ToContainText("duplicate of #"+firstID, playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(30_000)}))
	must(t, expect.Locator(dup).ToHaveAttribute("data-status", "flagged"))
	screenshot(t, p, "upload.png")
	must(t, dup.GetByTestId("upload-duplicate-of").Click())
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/intake/`+firstID+`$`)))
}

// TestBrowserFilesDroppedOnTheUploadPageAreUploaded: dropping a file on the
// drop zone uploads it like choosing it with the input does.
func TestBrowserFilesDroppedOnTheUploadPageAreUploaded(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o := testkit.Org(t, a.db)
	u := testkit.User(t, a.db, o, auth.RoleReviewer)
	p := a.signedIn(t, u)
	_, err := p.Goto("/upload")
	must(t, err)
	_, err = p.Evaluate(`content => {
		const dt = new DataTransfer();
		dt.items.add(new File([content], "dropped.xml", { type: "application/xml" }));
		const zone = document.querySelector("[data-testid=drop-zone]");
		for (const type of ["dragenter", "dragover", "drop"]) {
			zone.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
		}
	}`, string(sample(t, "ubl-invoice-multirate.xml")))
	must(t, err)
	result := p.Locator(`[data-testid=upload-result]`, playwright.PageLocatorOptions{HasText: "dropped.xml"})
	must(t, expect.Locator(result).ToHaveAttribute("data-outcome", "new"))
	must(t, expect.Locator(result.GetByTestId("upload-state")).ToContainText("ready for review", playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(30_000)}))
}
