package einvoice_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
)

func deepXML(levels int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?>`)
	for i := 0; i < levels; i++ {
		b.WriteString("<a>")
	}
	b.WriteString("x")
	for i := 0; i < levels; i++ {
		b.WriteString("</a>")
	}
	return b.Bytes()
}

func deepJSON(levels int) []byte {
	return []byte(`{"a":` + strings.Repeat("[", levels) + strings.Repeat("]", levels) + "}")
}

// The pretty-printed original of a deeply nested document grew with the square of its depth and was
// cut to size only once built: 100,000 levels asked for gigabytes and killed serve.
func TestPrettyIsLinearAndCapped(t *testing.T) {
	const limit = 400_000
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"xml 10,000 levels", deepXML(10_000)},
		{"xml 100,000 levels", deepXML(100_000)},
		{"json 9,000 levels", deepJSON(9_000)},
		{"json 100,000 levels", deepJSON(100_000)},
		{"xml wide", bytes.Repeat([]byte("<b>text</b>"), 200_000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out string
			alloc := einvoicetest.AllocatedBy(func() { out = einvoice.PrettyLimit(tc.data, limit) })
			if len(out) > limit+100 {
				t.Fatalf("output %d bytes, cap %d", len(out), limit)
			}
			if !utf8.ValidString(out) {
				t.Fatal("output cut inside a character")
			}
			// The input, the output and the decoder's own tokens: a small multiple of both.
			if bound := uint64(20*len(tc.data) + 4*limit + 8<<20); alloc > bound {
				t.Fatalf("allocated %d MB for a %d KB document (bound %d MB)", alloc>>20, len(tc.data)>>10, bound>>20)
			}
		})
	}
}

func TestPrettyLimitSaysWhereItStopped(t *testing.T) {
	out := einvoice.PrettyLimit(bytes.Repeat([]byte("<b>text</b>"), 10_000), 1000)
	if len(out) > 1100 || !strings.HasSuffix(out, "… (open the original for the rest)") {
		t.Fatalf("%d bytes: ...%q", len(out), out[max(0, len(out)-80):])
	}
	if s := einvoice.PrettyLimit([]byte(`<a><b>x</b></a>`), 1000); s != "<a>\n  <b>x</b>\n</a>" {
		t.Fatalf("small XML: %q", s)
	}
	if s := einvoice.PrettyLimit([]byte(`{"a":{},"b":[],"c":"x\"]"}`), 1000); s != "{\n  \"a\": {},\n  \"b\": [],\n  \"c\": \"x\\\"]\"\n}" {
		t.Fatalf("small JSON: %q", s)
	}
}
