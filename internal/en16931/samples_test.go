package en16931

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPublishedExamplesHaveNoFatalViolation proves the rules are never stricter than the standard: every
// published example e-invoice comes out without a fatal violation.
func TestPublishedExamplesHaveNoFatalViolation(t *testing.T) {
	files, _ := filepath.Glob("testdata/examples/*.xml")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			format := "ubl"
			if strings.Contains(string(data), "CrossIndustryInvoice") {
				format = "cii"
			}
			violations, err := Validate(format, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range violations {
				if v.Fatal() {
					t.Errorf("%s %s %s: %s", v.Rule, v.BusinessTerm, v.Field, v.Message)
				} else {
					t.Logf("warning %s: %s", v.Rule, v.Message)
				}
			}
		})
	}
}
