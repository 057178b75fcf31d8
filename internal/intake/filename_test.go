package intake_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"greatbook/internal/intake"
)

func TestCleanFilename(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "invoice.xml", "invoice.xml"},
		{"unicode kept", "faktura-Öresund.pdf", "faktura-Öresund.pdf"},
		{"NUL", "inv\x00oice.xml", "inv_oice.xml"},
		{"controls", "a\r\nb\tc\x7f.xml", "a__b_c_.xml"},
		{"invalid UTF-8", "inv\xff\xfeoice.xml", "inv\uFFFDoice.xml"},
		{"unix path", "../../etc/passwd", "passwd"},
		{"windows path", `C:\Users\me\invoice.pdf`, "invoice.pdf"},
		{"trailing slash", "dir/", ""},
		{"dot dot", "..", ""},
		{"spaces", "  invoice.pdf  ", "invoice.pdf"},
		{"bidi override", "invoice\u202Efdp.exe", "invoice_fdp.exe"},
		{"long keeps extension", strings.Repeat("x", 100_000) + ".pdf", strings.Repeat("x", 251) + ".pdf"},
		{"long with a huge extension", "a." + strings.Repeat("y", 1000), "a." + strings.Repeat("y", 253)},
		{"long multibyte", strings.Repeat("ö", 200) + ".xml", strings.Repeat("ö", 125) + ".xml"},
		{"long, cut at a space", strings.Repeat("x", 254) + " " + strings.Repeat("y", 100), strings.Repeat("x", 254)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := intake.CleanFilename(tc.in)
			if got != tc.want {
				t.Fatalf("CleanFilename(%.60q) = %.60q (%d bytes), want %.60q (%d bytes)", tc.in, got, len(got), tc.want, len(tc.want))
			}
			if !utf8.ValidString(got) || len(got) > intake.MaxFilenameBytes || intake.CleanFilename(got) != got {
				t.Fatalf("not clean, too long or not idempotent: %.60q", got)
			}
		})
	}
}

func FuzzCleanFilename(f *testing.F) {
	for _, s := range []string{"invoice.pdf", "../a\x00b", "\xff\xfe", strings.Repeat("é", 300) + ".json"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := intake.CleanFilename(in)
		if !utf8.ValidString(got) || len(got) > intake.MaxFilenameBytes || strings.ContainsAny(got, "/\\\x00") ||
			intake.CleanFilename(got) != got {
			t.Fatalf("CleanFilename(%q) = %q", in, got)
		}
	})
}
