package ui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/web/webtest"
)

// hasBidiControl reports a character that reorders the text around it.
func hasBidiControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069' || r == '\u200E' || r == '\u200F' || r == '\u061C'
	})
}

// A supplier's name with a right-to-left override is stored as it came,
// but the desk and the document's page neither obey the override nor hide
// it: the name is isolated in a <bdi> and each control shows as its code
// point, so "Acme ‮fdp.exe‬ Ltd" cannot pass for "Acme exe.pdf Ltd".
func TestBidiControlsInASuppliersNameDoNotReorderThePage(t *testing.T) {
	t.Parallel()
	s := webtest.NewAPSite(t, false)
	const name, number = "Acme \u202Efdp.exe\u202C Ltd", "INV-\u20661001\u2069"
	id := s.File(t, fmt.Appendf(nil, `{"type": "invoice", "number": %q, "issue_date": %q, "due_date": %q, "currency": "EUR",
		"seller": {"name": %q, "vat_id": "DE999999999"}, "buyer": {"name": "Acme Handels GmbH"},
		"lines": [{"description": "Paper", "quantity": "1", "unit_price": "10.00", "tax_rate": "19"}]}`,
		number, webtest.Day(-3), webtest.Day(27), name))

	_, stored := s.Reviewer.Get("/api/v1/intake/" + webtest.Itoa(id))
	fields, _ := stored["fields"].(map[string]any)
	seller, _ := fields["seller"].(map[string]any)
	if seller["name"] != name || fields["number"] != number {
		t.Fatalf("stored as %q %q, want the name and number as received", seller["name"], fields["number"])
	}

	shown := func(t *testing.T, where string, sel *goquery.Selection, want ...string) {
		t.Helper()
		text := sel.Text()
		if sel.Length() == 0 || hasBidiControl(text) {
			t.Errorf("%s: %q obeys a bidi control", where, text)
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q does not show %q", where, text, w)
			}
		}
	}
	d := webtest.Doc(t, webtest.Get(t, s.Browser, s.URL+"/desk"))
	row := d.Find(`[data-testid=queue-row][data-document-id="` + webtest.Itoa(id) + `"]`)
	shown(t, "desk row", row, "U+202E", "U+2066", "fdp.exe")
	if row.Find("bdi").Length() < 2 {
		t.Errorf("the desk row does not isolate the supplier's name and number")
	}
	shown(t, "desk title", d.Find("title"))

	page := s.Page(t, id)
	shown(t, "document heading", page.Find(`#doc-title`), "U+202E", "U+2066")
	if page.Find(`#doc-title bdi`).Length() < 2 {
		t.Errorf("the heading does not isolate the supplier's name and number")
	}
	shown(t, "document fields", page.Find(`#bt-27`), "U+202E", "DE999999999")
	shown(t, "document title", page.Find("title"))
}
