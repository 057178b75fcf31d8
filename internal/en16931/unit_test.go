package en16931

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unitTest is one <test> of CEN's unit tests: the rule, the verdict it expects and the (partial) document.
type unitTest struct {
	file     string
	rule     string
	expected string // "success", "error" or "warning"
	document []byte
}

func readUnitTests(t *testing.T) []unitTest {
	t.Helper()
	files, err := filepath.Glob("testdata/unit-ubl/*/*.xml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no unit test files: %v", err)
	}
	var out []unitTest
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var set struct {
			Tests []struct {
				Assert struct {
					Success string `xml:"success"`
					Error   string `xml:"error"`
					Warning string `xml:"warning"`
				} `xml:"assert"`
				Inner []byte `xml:",innerxml"`
			} `xml:"test"`
		}
		if err := xml.Unmarshal(data, &set); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, test := range set.Tests {
			u := unitTest{file: filepath.ToSlash(strings.TrimPrefix(file, "testdata/unit-ubl/"))}
			switch {
			case test.Assert.Success != "":
				u.rule, u.expected = test.Assert.Success, "success"
			case test.Assert.Error != "":
				u.rule, u.expected = test.Assert.Error, "error"
			case test.Assert.Warning != "":
				u.rule, u.expected = test.Assert.Warning, "warning"
			default:
				t.Fatalf("%s: a test without a verdict", file)
			}
			u.rule = strings.TrimSpace(u.rule)
			_, doc, found := bytes.Cut(test.Inner, []byte("</assert>"))
			if !found {
				t.Fatalf("%s: a test without an assert", file)
			}
			u.document = doc
			out = append(out, u)
		}
	}
	return out
}

// TestOfficialUnitTests runs every test of CEN's UBL unit tests and of the CII tests beside them: each verdict
// must be the official one, every rule of every test (the rules are CEN's own, evaluated here).
func TestOfficialUnitTests(t *testing.T) {
	tests := readUnitTests(t)
	agree := 0
	for _, u := range tests {
		violations, err := Validate("ubl", u.document)
		if err != nil {
			t.Errorf("%s %s: reading: %v", u.file, u.rule, err)
			continue
		}
		got := "success"
		for _, v := range violations {
			if strings.HasPrefix(v.Rule, "BR-DE-") {
				t.Errorf("%s %s: an XRechnung rule judged a document that is not XRechnung: %s", u.file, u.rule, v.Rule)
			}
			if v.Rule == u.rule {
				got = map[bool]string{true: "error", false: "warning"}[v.Fatal()]
			}
		}
		if got != u.expected {
			t.Errorf("%s: %s: official verdict %s, ours %s", u.file, u.rule, u.expected, got)
			continue
		}
		agree++
	}
	t.Logf("EN 16931 unit tests: %d/%d verdicts agree", agree, len(tests))
}

// TestEveryRuleHasItsOfficialText proves each rule carries the id, flag and message of its publisher, so a
// violation never shows words of our own in place of the standard's.
func TestEveryRuleHasItsOfficialText(t *testing.T) {
	rules, err := Rules()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rules {
		if seen[r.ID] {
			t.Errorf("%s is listed twice", r.ID)
		}
		seen[r.ID] = true
		if r.Message() == "" || (r.Flag() != "fatal" && r.Flag() != "warning") {
			t.Errorf("%s: flag %q, message %q", r.ID, r.Flag(), r.Message())
		}
	}
	if len(rules) < 1500 {
		t.Fatalf("only %d rules: CEN's validators hold more than 1,500", len(rules))
	}
}
