package einvoice

import (
	"bytes"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestBuildCIIRoundTripFiles(t *testing.T) {
	t.Parallel()
	for _, file := range RoundTripFiles {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			d, err := Parse(ReadTestdata(t, file))
			if err != nil {
				t.Fatal(err)
			}
			xmlData, err := BuildCII(d)
			if err != nil {
				t.Fatal(err)
			}
			if Detect(xmlData) != FormatCII {
				t.Fatalf("BuildCII output is detected as %q", Detect(xmlData))
			}
			back, err := ParseCII(xmlData)
			if err != nil {
				t.Fatalf("ParseCII(BuildCII): %v\n%s", err, xmlData)
			}
			if !SameFields(t, back, d) {
				t.Errorf("round trip changed the document\n got %s\nwant %s", Comparable(t, back), Comparable(t, d))
			}
			again, _ := BuildCII(d)
			if !bytes.Equal(xmlData, again) {
				t.Errorf("BuildCII is not deterministic")
			}
		})
	}
}

func TestBuildCIIErrors(t *testing.T) {
	t.Parallel()
	d := Invoice()
	d.IssueDate = "20.11.2026"
	if _, err := BuildCII(d); err == nil || !strings.HasPrefix(err.Error(), "einvoice: build cii: issue_date") {
		t.Errorf("error = %v, want a build cii error naming issue_date", err)
	}
	d = Invoice()
	d.DueDate = "later"
	if _, err := BuildCII(d); err == nil || !strings.Contains(err.Error(), "due_date") {
		t.Errorf("error = %v, want an error naming due_date", err)
	}
}

func TestBuildCIIEscapes(t *testing.T) {
	t.Parallel()
	d := Invoice()
	d.Seller.Name = `Smith & Sons <"Ltd">`
	d.Lines[0].Description = "Line\twith\ttabs\nand a newline\r\nand ' quotes"
	d.Seller.EndpointID, d.Seller.EndpointScheme = "a&b", `"EM"`
	data, err := BuildCII(d)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseCII(data)
	if err != nil {
		t.Fatal(err)
	}
	if !SameFields(t, back, d) {
		t.Errorf("escaping lost something\n got %s\nwant %s", Comparable(t, back), Comparable(t, d))
	}
}

// TestBuildCIIRoundTripProperty: ParseCII(BuildCII(d)) gives d back, and BuildCII is deterministic.
func TestBuildCIIRoundTripProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		d := DocumentGen.Draw(t, "document")
		data, err := BuildCII(d)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseCII(data)
		if err != nil {
			t.Fatalf("ParseCII: %v\n%s", err, data)
		}
		if !SameFields(t, back, d) {
			t.Fatalf("round trip changed the document\n got %s\nwant %s\n%s", Comparable(t, back), Comparable(t, d), data)
		}
		if again, _ := BuildCII(d); !bytes.Equal(data, again) {
			t.Fatal("BuildCII is not deterministic")
		}
	})
}
