package views

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func TestSuppliedTextShowsBidiControlsInsteadOfObeyingThem(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, text string }{
		{"Acme Ltd", "Acme Ltd"},
		{"Acme \u202Efdp.exe\u202C Ltd", "Acme [U+202E]fdp.exe[U+202C] Ltd"},
		{"\u2067שלום\u2069 \u200F\u061C", "[U+2067]שלום[U+2069] [U+200F][U+061C]"},
		{"", ""},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := supplied(tt.in).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		d, err := goquery.NewDocumentFromReader(&b)
		if err != nil {
			t.Fatal(err)
		}
		if bdi := d.Find("bdi"); bdi.Length() != 1 || bdi.Text() != tt.text {
			t.Errorf("supplied(%q) = %q, want one <bdi> reading %q", tt.in, b.String(), tt.text)
		}
		if got := ShowBidiControls(tt.in); got != tt.text {
			t.Errorf("ShowBidiControls(%q) = %q, want %q", tt.in, got, tt.text)
		}
	}
}

// A page's <title> holds no markup: the layout shows a bidi control in it
// as its code point.
func TestTheTitleShowsBidiControls(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := Layout(Chrome{Title: "Document 7 · Acme \u202Efdp.exe"}).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	d, err := goquery.NewDocumentFromReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	if title := d.Find("title").Text(); strings.ContainsRune(title, '\u202E') || !strings.Contains(title, "Acme [U+202E]fdp.exe") {
		t.Errorf("title %q", title)
	}
}
