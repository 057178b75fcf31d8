package web_test

import (
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/testkit"
	"greatbook/web/webtest"
)

// TestBrowserAnUncertainReadingIsConfirmedBesideThePage: a plain PDF whose
// number stands under a label the reader does not know is flagged "check
// what was read"; its type-in form shows the page with each read field's
// place, lights a field's place up when its input has the focus, and says
// the number was not found. Confirming it files the document and teaches
// the supplier's layout, by which the supplier's next invoice is read
// whole; an admin sees the layout, and forgets it.
func TestBrowserAnUncertainReadingIsConfirmedBesideThePage(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o := testkit.Org(t, a.DB)
	reviewer := testkit.User(t, a.DB, o, auth.RoleReviewer)
	admin := testkit.User(t, a.DB, o, auth.RoleAdmin)
	p := signedIn(t, a, reviewer)
	long := playwright.LocatorAssertionsToContainTextOptions{Timeout: playwright.Float(30_000)}

	_, err := p.Goto("/upload")
	webtest.Must(t, err)
	first := webtest.GermanInvoice(t, "Beleg:", "BX-1001", "03.02.2025", "100,00", "19,00", "119,00")
	webtest.Must(t, p.GetByTestId("upload-input").SetInputFiles([]playwright.InputFile{{Name: "beleg-1001.pdf", MimeType: "application/pdf", Buffer: first}}))
	webtest.Must(t, p.GetByTestId("upload-submit").Click())
	result := p.Locator(`[data-testid=upload-result][data-outcome=new]`)
	webtest.Must(t, expect.Locator(result.GetByTestId("upload-state")).ToContainText("check what was read", long))
	webtest.Must(t, result.Locator("a").First().Click())
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/intake/\d+$`)))
	docURL := p.URL()
	webtest.Must(t, expect.Locator(p.GetByTestId("flag-reason")).ToHaveText("check what was read"))
	webtest.Must(t, expect.Locator(p.GetByTestId("read-source")).ToHaveText("Read from its text layer."))
	webtest.Must(t, expect.Locator(p.GetByTestId("read-uncertain")).ToContainText("Number"))

	// The type-in form, beside the page.
	webtest.Must(t, p.GetByTestId("type-in").Click())
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/type-in$`)))
	img := p.GetByTestId("read-page-image")
	webtest.Must(t, expect.Locator(img).ToBeVisible())
	webtest.Must(t, expect.Locator(img).ToHaveJSProperty("complete", true))
	if w, err := img.Evaluate(`img => img.naturalWidth`, nil); err != nil || w.(int) < 800 {
		t.Fatalf("the page image is %v pixels wide (%v)", w, err)
	}
	webtest.Must(t, expect.Locator(p.Locator(`[data-testid=read-note][data-note-for=number]`)).ToHaveText("not found on the page — type it in"))
	issueBox := p.Locator(`[data-testid=read-box][data-field=issue_date]`)
	webtest.Must(t, expect.Locator(issueBox).Not().ToHaveClass(regexp.MustCompile(`\bactive\b`)))
	webtest.Must(t, p.Locator("#t-issue").Focus())
	webtest.Must(t, expect.Locator(issueBox).ToHaveClass(regexp.MustCompile(`\bactive\b`)))
	// Choosing a place goes to its field.
	webtest.Must(t, p.Locator(`[data-testid=read-box][data-field=seller_name]`).Click())
	webtest.Must(t, expect.Locator(p.Locator("#t-seller")).ToBeFocused())
	webtest.Must(t, expect.Locator(issueBox).Not().ToHaveClass(regexp.MustCompile(`\bactive\b`)))
	screenshot(t, p, "type-in-read.png")

	webtest.Must(t, p.Locator("#t-number").Fill("BX-1001"))
	webtest.Must(t, expect.Locator(p.GetByTestId("typein-submit")).ToHaveText("Confirm and file"))
	webtest.Must(t, p.GetByTestId("typein-submit").Click())
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(regexp.QuoteMeta(docURL)+"$")))
	webtest.Must(t, expect.Locator(p.GetByTestId("decision")).ToHaveAttribute("data-status", "pending"))
	webtest.Must(t, expect.Locator(p.GetByTestId("field-number")).ToHaveText("BX-1001"))

	// The admin sees the layout it taught.
	ap := signedIn(t, a, admin)
	_, err = ap.Goto("/admin/layouts")
	webtest.Must(t, err)
	row := ap.GetByTestId("layout")
	webtest.Must(t, expect.Locator(row).ToHaveCount(1))
	webtest.Must(t, expect.Locator(row.GetByTestId("layout-supplier")).ToHaveText("Lieferant GmbH"))
	webtest.Must(t, expect.Locator(row.GetByTestId("layout-fields")).ToContainText("Number"))
	learnedFrom, err := row.GetByTestId("layout-learned-from").GetAttribute("href")
	webtest.Must(t, err)
	if a.URL+learnedFrom != docURL {
		t.Fatalf("learned from %s, want %s", learnedFrom, docURL)
	}

	// The supplier's next invoice, other values, is read whole by it.
	second := webtest.FiledPDF(t, a.APIFor(t, reviewer), webtest.GermanInvoice(t, "Beleg:", "BX-1002", "10.03.2025", "200,00", "38,00", "238,00"), "pending")
	_, err = p.Goto("/intake/" + webtest.Itoa(second))
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("field-number")).ToHaveText("BX-1002"))
	webtest.Must(t, expect.Locator(p.GetByTestId("read-source")).ToHaveText("Read from its text layer by Lieferant GmbH’s learned layout."))

	// The admin forgets it: the row is gone, and the outcome said in its place.
	_, err = ap.Reload()
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(row.GetByTestId("layout-uses")).ToHaveText("1"))
	webtest.Must(t, row.GetByTestId("layout-forget").Click())
	webtest.Must(t, expect.Locator(ap.GetByTestId("layouts-outcome")).ToContainText("Forgot the layout of Lieferant GmbH"))
	webtest.Must(t, expect.Locator(row).ToHaveCount(0))
	webtest.Must(t, expect.Locator(ap.GetByTestId("no-layouts")).ToBeVisible())
	if n := testkit.Count(t, a.DB, `SELECT count(*) FROM supplier_layouts`); n != 0 {
		t.Fatalf("%d layouts after forgetting", n)
	}
}
