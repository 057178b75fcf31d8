package einvoice

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestXMLOverACapIsRefusedNamingIt(t *testing.T) {
	ubl := string(readTestdata(t, "ubl-invoice-multirate.xml"))
	cii := string(readTestdata(t, "cii-invoice.xml"))
	deep := func(doc, after string, levels int) string {
		return strings.Replace(doc, after, after+strings.Repeat("<x>", levels)+strings.Repeat("</x>", levels), 1)
	}
	for _, tc := range []struct {
		name, data, limit string
	}{
		{"ubl 100,000 levels", deep(ubl, "</cbc:ID>", 100_000), "xml_depth"},
		{"ubl 129 levels", deep(ubl, "</cbc:ID>", 129), "xml_depth"},
		{"cii 100,000 levels", deep(cii, "</ram:ID>", 100_000), "xml_depth"},
		{"huge attribute", strings.Replace(ubl, "<cbc:ID>", `<cbc:ID a="`+strings.Repeat("x", 70_000)+`">`, 1), "xml_attribute_bytes"},
		{"too many elements", strings.Replace(ubl, "</cbc:ID>", "</cbc:ID>"+strings.Repeat("<x/>", 1_000_001), 1), "xml_elements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.data))
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Code != CodeInputCap || pe.Field != tc.limit {
				t.Fatalf("Parse: %#v, want an input_cap error naming %s", err, tc.limit)
			}
		})
	}
	// 128 levels is within the cap: the extra elements are ignored as before.
	if _, err := Parse([]byte(deep(ubl, "</cbc:ID>", 120))); err != nil {
		t.Fatalf("120 levels: %v", err)
	}
}

func TestDeepJSONIsRefusedNamingTheCap(t *testing.T) {
	for _, levels := range []int{65, 100_000} {
		data := []byte(`{"type":"invoice","seller":{"name":` + strings.Repeat("[", levels) + strings.Repeat("]", levels) + `}}`)
		_, err := ParseJSON(data)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Code != CodeInputCap || pe.Field != "json_depth" {
			t.Fatalf("%d levels: %v, want an input_cap error naming json_depth", levels, err)
		}
	}
}

func TestJSONWithTooManyValuesIsRefused(t *testing.T) {
	data := []byte(`{"type":"invoice","lines":[` + strings.Repeat(`{},`, 1_000_000) + `{}]}`)
	var pe *ParseError
	if _, err := ParseJSON(data); !errors.As(err, &pe) || pe.Code != CodeInputCap || pe.Field != "json_values" {
		t.Fatalf("ParseJSON: %v, want an input_cap error naming json_values", err)
	}
}

// classify asks Structured and extract carves: Structured itself must never inflate or lex a PDF, or
// every PDF would be carved twice.
func TestStructuredDoesNotCarve(t *testing.T) {
	pdf := quadraticObjectStreamPDF(700_000, 13<<20)
	var f Format
	var structured bool
	if alloc := allocatedBy(func() { f, structured = Structured(pdf) }); alloc > 1<<20 {
		t.Fatalf("Structured allocated %d bytes for a %d-byte PDF: it carved", alloc, len(pdf))
	}
	if f != FormatUnknown || !structured {
		t.Fatalf("Structured = %s, %v; want unknown, true (Parse carves it)", f, structured)
	}
}

// encoding/json keeps the last of two equal keys, so {"number":"A","number":"B"} read as B while any
// other reader may see A. The project's own format refuses it, naming the repeated field.
func TestJSONDuplicateKeysAreRefused(t *testing.T) {
	base := string(readTestdata(t, "json-invoice-without-totals.json"))
	for _, tc := range []struct{ name, data, field string }{
		{"top level", strings.Replace(base, `"type"`, `"number": "X-1", "type"`, 1), "number"},
		{"nested", strings.Replace(base, `"seller": {`, `"seller": {"name": "Shadow GmbH", `, 1), "seller.name"},
		{"in a line", strings.Replace(base, `"quantity"`, `"unit_price": "0.01", "quantity"`, 1), "lines[0].unit_price"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.data, tc.field[strings.LastIndex(tc.field, ".")+1:]) || tc.data == base {
				t.Fatal("the fixture did not change")
			}
			_, err := ParseJSON([]byte(tc.data))
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Field != tc.field || !strings.Contains(pe.Reason, "duplicate key") {
				t.Fatalf("ParseJSON: %v, want a duplicate key at %s", err, tc.field)
			}
		})
	}
	if _, err := ParseJSON([]byte(base)); err != nil {
		t.Fatalf("the fixture itself: %v", err)
	}
	// The same key in two objects is no duplicate.
	if err := checkJSON(nil, []byte(`{"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}]}`)); err != nil {
		t.Fatalf("keys in sibling objects: %v", err)
	}
}

// XML in a charset nothing here reads was filed with no finding saying why.
func TestUnknownCharsetSaysWhy(t *testing.T) {
	cii := bytes.Replace(readTestdata(t, "cii-invoice.xml"), []byte(`encoding="UTF-8"`), []byte(`encoding="x-unknown"`), 1)
	_, err := Parse(cii)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Code != CodeUnsupportedCharset || !strings.Contains(pe.Reason, `"x-unknown"`) {
		t.Fatalf("Parse: %v, want an unsupported_charset error naming the charset", err)
	}
	if f, structured := Structured(cii); f != FormatUnknown || !structured {
		t.Fatalf("Structured = %s, %v: Parse must be asked, to say why", f, structured)
	}
	latin1 := bytes.Replace(readTestdata(t, "cii-invoice.xml"), []byte(`encoding="UTF-8"`), []byte(`encoding="ISO-8859-1"`), 1)
	if _, err := Parse(latin1); err != nil {
		t.Fatalf("a known legacy charset: %v", err)
	}
}
