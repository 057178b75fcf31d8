package read

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
)

// classify asks Structured and extract carves: Structured itself must never inflate or lex a PDF, or
// every PDF would be carved twice.
func TestStructuredDoesNotCarve(t *testing.T) {
	pdf := einvoicetest.QuadraticObjectStreamPDF(700_000, 13<<20)
	var f einvoice.Format
	var structured bool
	if alloc := einvoicetest.AllocatedBy(func() { f, structured = Structured(pdf) }); alloc > 1<<20 {
		t.Fatalf("Structured allocated %d bytes for a %d-byte PDF: it carved", alloc, len(pdf))
	}
	if f != einvoice.FormatUnknown || !structured {
		t.Fatalf("Structured = %s, %v; want unknown, true (Parse carves it)", f, structured)
	}
}

// XML in a charset nothing here reads was filed with no finding saying why.
func TestUnknownCharsetSaysWhy(t *testing.T) {
	cii := bytes.Replace(einvoicetest.ReadTestdata(t, "cii-invoice.xml"), []byte(`encoding="UTF-8"`), []byte(`encoding="x-unknown"`), 1)
	_, err := Parse(cii)
	var pe *einvoice.ParseError
	if !errors.As(err, &pe) || pe.Code != einvoice.CodeUnsupportedCharset || !strings.Contains(pe.Reason, `"x-unknown"`) {
		t.Fatalf("Parse: %v, want an unsupported_charset error naming the charset", err)
	}
	if f, structured := Structured(cii); f != einvoice.FormatUnknown || !structured {
		t.Fatalf("Structured = %s, %v: Parse must be asked, to say why", f, structured)
	}
	latin1 := bytes.Replace(einvoicetest.ReadTestdata(t, "cii-invoice.xml"), []byte(`encoding="UTF-8"`), []byte(`encoding="ISO-8859-1"`), 1)
	if _, err := Parse(latin1); err != nil {
		t.Fatalf("a known legacy charset: %v", err)
	}
}
