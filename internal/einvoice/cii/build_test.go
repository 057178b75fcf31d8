package cii_test

import (
	"bytes"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/cii"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/read"
)

func TestBuildCIIRoundTripFiles(t *testing.T) {
	t.Parallel()
	for _, file := range einvoicetest.RoundTripFiles {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			d, err := read.Parse(einvoicetest.ReadTestdata(t, file))
			if err != nil {
				t.Fatal(err)
			}
			xmlData, err := cii.Build(d)
			if err != nil {
				t.Fatal(err)
			}
			if read.Detect(xmlData) != einvoice.FormatCII {
				t.Fatalf("BuildCII output is detected as %q", read.Detect(xmlData))
			}
			back, err := cii.Parse(xmlData)
			if err != nil {
				t.Fatalf("ParseCII(BuildCII): %v\n%s", err, xmlData)
			}
			if !einvoicetest.SameFields(t, back, d) {
				t.Errorf("round trip changed the document\n got %s\nwant %s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d))
			}
			again, _ := cii.Build(d)
			if !bytes.Equal(xmlData, again) {
				t.Errorf("BuildCII is not deterministic")
			}
		})
	}
}

func TestBuildCIIErrors(t *testing.T) {
	t.Parallel()
	d := einvoicetest.Invoice()
	d.IssueDate = "20.11.2026"
	if _, err := cii.Build(d); err == nil || !strings.HasPrefix(err.Error(), "einvoice: build cii: issue_date") {
		t.Errorf("error = %v, want a build cii error naming issue_date", err)
	}
	d = einvoicetest.Invoice()
	d.DueDate = "later"
	if _, err := cii.Build(d); err == nil || !strings.Contains(err.Error(), "due_date") {
		t.Errorf("error = %v, want an error naming due_date", err)
	}
}

func TestBuildCIIEscapes(t *testing.T) {
	t.Parallel()
	d := einvoicetest.Invoice()
	d.Seller.Name = `Smith & Sons <"Ltd">`
	d.Lines[0].Description = "Line\twith\ttabs\nand a newline\r\nand ' quotes"
	d.Seller.EndpointID, d.Seller.EndpointScheme = "a&b", `"EM"`
	data, err := cii.Build(d)
	if err != nil {
		t.Fatal(err)
	}
	back, err := cii.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !einvoicetest.SameFields(t, back, d) {
		t.Errorf("escaping lost something\n got %s\nwant %s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d))
	}
}

// TestBuildCIIRoundTripProperty: ParseCII(BuildCII(d)) gives d back, the payee's account and bank
// included, and BuildCII is deterministic.
func TestBuildCIIRoundTripProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		d := einvoicetest.DocumentGen.Draw(t, "document")
		account := einvoicetest.PayeeAccountGen.Draw(t, "payee account")
		d.PayeeIBAN, d.PayeeBIC = account.IBAN, account.BIC
		data, err := cii.Build(d)
		if err != nil {
			t.Fatal(err)
		}
		back, err := cii.Parse(data)
		if err != nil {
			t.Fatalf("ParseCII: %v\n%s", err, data)
		}
		if !einvoicetest.SameFields(t, back, d) {
			t.Fatalf("round trip changed the document\n got %s\nwant %s\n%s", einvoicetest.Comparable(t, back), einvoicetest.Comparable(t, d), data)
		}
		if again, _ := cii.Build(d); !bytes.Equal(data, again) {
			t.Fatal("BuildCII is not deterministic")
		}
	})
}
