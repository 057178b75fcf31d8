package typewriter

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/einvoice/read"
)

func TestRenderIsDeterministicAndReadsBack(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"json-invoice-with-totals.json", "json-invoice-without-totals.json", "json-credit-note.json", "with payment"} {
		file := name
		if name == "with payment" {
			file = "json-invoice-with-totals.json"
		}
		raw, err := os.ReadFile("../einvoice/testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ownjson.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if name == "with payment" {
			// The creditor's account and bank are written into the embedded CII and read back.
			d.PayeeIBAN, d.PayeeBIC = "DE89370400440532013000", "COBADEFFXXX"
		}
		a, err := Render(d)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Render(d)
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: the same version rendered to different bytes", name)
		}
		back, err := read.Parse(a)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back.Format, d.Format = "", ""
		// The PDF states the EN 16931 profile BuildCII writes; the JSON it came from states none.
		back.Specification, back.Profile = "", ""
		if d.TypeCode == "" {
			d.TypeCode = back.TypeCode
		}
		x, _ := json.Marshal(d)
		y, _ := json.Marshal(back)
		if !bytes.Equal(x, y) {
			t.Fatalf("%s: the PDF reads back differently\n got %s\nwant %s", name, y, x)
		}
	}
}

func TestDiffNamesWhatChanged(t *testing.T) {
	t.Parallel()
	raw, _ := os.ReadFile("../einvoice/testdata/json-invoice-with-totals.json")
	a, _ := ownjson.Parse(raw)
	b := a
	b.Lines = append([]einvoice.Line(nil), a.Lines...)
	b.DueDate = "2027-01-31"
	b.Lines[0].Description = "Widget, blue"
	fields := map[string]bool{}
	for _, d := range Diff(a, b) {
		fields[d.Field] = true
	}
	if len(fields) != 2 || !fields["due date"] || !fields["line 1"] {
		t.Fatalf("diff: %v", Diff(a, b))
	}
	if len(Diff(a, a)) != 0 {
		t.Fatal("a version differs from itself")
	}
}
