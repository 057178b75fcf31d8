package views

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// A boolean aria-current (aria-current?={ ... }) renders aria-current="",
// which marks nothing as current: every template says it through
// ariaCurrentPage (or a literal value) instead.
func TestNoTemplateRendersAnEmptyAriaCurrent(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("templates: %v %v", files, err)
	}
	bare := regexp.MustCompile(`aria-current\?=|aria-current=""|aria-current\s*[>}]`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if loc := bare.FindIndex(src); loc != nil {
			t.Errorf("%s: a boolean aria-current: %q", f, src[loc[0]:loc[1]])
		}
	}
}
