package official_test

import (
	"os"
	"slices"
	"testing"

	"greatbook/internal/en16931/official"
)

func TestTheOfficialValidatorJudgesBothSyntaxes(t *testing.T) {
	v, err := official.Start(official.Options{StylesheetDir: "../cen"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for _, tc := range []struct{ syntax, file string }{{"ubl", "../testdata/examples/en16931-ubl-example2.xml"}, {"cii", "../testdata/examples/en16931-cii-example2.xml"}} {
		doc, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := v.Judge(tc.syntax, doc)
		if err != nil || got.Err != "" || len(got.Fatal) != 0 {
			t.Fatalf("%s: %+v %v, want valid", tc.file, got, err)
		}
	}
	// A published example without its invoice number breaks BR-02.
	doc, _ := os.ReadFile("../testdata/examples/en16931-ubl-example2.xml")
	broken := []byte(string(doc[:0]) + removeFirst(string(doc), "<cbc:ID>", "</cbc:ID>"))
	got, err := v.Judge("ubl", broken)
	if err != nil || !slices.Contains(got.Fatal, "BR-02") {
		t.Fatalf("an invoice without its number: %+v %v, want BR-02", got, err)
	}
	got, err = v.Judge("ubl", []byte("<not xml"))
	if err != nil || got.Err == "" {
		t.Fatalf("not XML: %+v %v, want an error verdict", got, err)
	}
}

func removeFirst(s, open, close string) string {
	i := indexOf(s, open)
	j := indexOf(s[i:], close) + i + len(close)
	return s[:i] + s[j:]
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
