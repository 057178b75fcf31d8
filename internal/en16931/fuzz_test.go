package en16931

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func addExampleSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/examples/*.xml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzCheckUBL reads any bytes as UBL and judges them: never a panic, whatever the document.
func FuzzCheckUBL(f *testing.F) {
	addExampleSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Validate("ubl", data)
	})
}

// FuzzCheckCII reads any bytes as CII and judges them: never a panic, whatever the document.
func FuzzCheckCII(f *testing.F) {
	addExampleSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Validate("cii", data)
	})
}

// TestReadingLimits proves a document nested deeper than MaxDepth or holding more than MaxElements elements is
// refused with ErrTooLarge before any rule runs, and that one within the limits is read.
func TestReadingLimits(t *testing.T) {
	const open = `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">`
	deep := strings.Repeat("<a>", MaxDepth+1) + strings.Repeat("</a>", MaxDepth+1)
	if _, err := Validate("ubl", []byte(open+deep+"</Invoice>")); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("nesting beyond MaxDepth: got %v, want ErrTooLarge", err)
	}
	var wide bytes.Buffer
	wide.WriteString(open)
	for i := 0; i < MaxElements; i++ {
		wide.WriteString("<a/>")
	}
	wide.WriteString("</Invoice>")
	if _, err := Validate("ubl", wide.Bytes()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("more than MaxElements elements: got %v, want ErrTooLarge", err)
	}
	within := open + strings.Repeat("<a>", MaxDepth-2) + strings.Repeat("</a>", MaxDepth-2) + "</Invoice>"
	if _, err := Validate("ubl", []byte(within)); err != nil {
		t.Fatalf("within the limits: %v", err)
	}
}

// TestWorkIsBoundedBySize gives the rules a document built to make the ones that compare every VAT breakdown
// with every line quadratic: it is refused as too large (ErrTooLarge) after work proportional to its size,
// not judged for minutes.
func TestWorkIsBoundedBySize(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
		xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
		xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"><cac:TaxTotal>`)
	const n = 3000
	for i := range n {
		fmt.Fprintf(&b, `<cac:TaxSubtotal><cbc:TaxableAmount>1</cbc:TaxableAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>%d</cbc:Percent>`+
			`<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>`, i+1)
	}
	b.WriteString(`</cac:TaxTotal>`)
	for i := range n {
		fmt.Fprintf(&b, `<cac:InvoiceLine><cbc:LineExtensionAmount>1</cbc:LineExtensionAmount><cac:Item><cac:ClassifiedTaxCategory>`+
			`<cbc:ID>S</cbc:ID><cbc:Percent>%d</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item></cac:InvoiceLine>`, i+1)
	}
	b.WriteString(`</Invoice>`)
	start := time.Now()
	_, err := Validate("ubl", b.Bytes())
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a quadratic document: got %v, want ErrTooLarge", err)
	}
	t.Logf("refused after %v", time.Since(start))
}

// TestCheckWithoutDocumentIsSilent proves Check of nothing and of an empty model does not panic.
func TestCheckWithoutDocumentIsSilent(t *testing.T) {
	if v := Check(nil); v != nil {
		t.Fatalf("Check(nil) = %v", v)
	}
	Check(&Invoice{})
	if _, err := Validate("pdf", nil); err == nil {
		t.Fatal("an unknown syntax must be refused")
	}
}
