package views_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/views"
)

// TestAnUploadResultAsksUntilFiledAndAtMostUploadPollCapTimes: a result
// whose document is still received asks again; a filed one, or one that has
// asked UploadPollCap times, stops (and the latter links the document).
func TestAnUploadResultAsksUntilFiledAndAtMostUploadPollCapTimes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		r      views.UploadResult
		asks   bool
		saying string
	}{
		{"reading", views.UploadResult{Outcome: "new", DocumentID: 7, Status: "received"}, true, "the clerk is reading it"},
		{"at the cap", views.UploadResult{Outcome: "new", DocumentID: 7, Status: "received", Poll: views.UploadPollCap}, false, "open the document"},
		{"pending", views.UploadResult{Outcome: "new", DocumentID: 7, Status: "pending"}, false, "ready for review"},
		{"duplicate", views.UploadResult{Outcome: "known", DocumentID: 7, Status: "flagged", FlagReason: "duplicate", DuplicateOf: 3}, false, "duplicate of #3"},
		{"invalid", views.UploadResult{Outcome: "new", DocumentID: 7, Status: "flagged", FlagReason: "invalid_einvoice"}, false, "invalid e-invoice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := views.UploadResultItem(tc.r).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			d, err := goquery.NewDocumentFromReader(&b)
			if err != nil {
				t.Fatal(err)
			}
			li := d.Find("[data-testid=upload-result]")
			_, asks := li.Attr("hx-get")
			if asks != tc.asks {
				t.Errorf("asks again: %v, want %v", asks, tc.asks)
			}
			if got := strings.Join(strings.Fields(li.Find("[data-testid=upload-state]").Text()), " "); !strings.Contains(got, tc.saying) {
				t.Errorf("says %q, want %q", got, tc.saying)
			}
		})
	}
}
