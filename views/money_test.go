package views_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPagesFormatAmountsOneWay keeps every page on money.Display (or its
// DisplayNumber): a view that formats an amount itself (money.Format, the
// decimal's StringFixed) would show it without thousands separators,
// unlike the rest. (money.Canonical stays allowed: rates and quantities
// are not amounts.)
func TestPagesFormatAmountsOneWay(t *testing.T) {
	t.Parallel()
	own := regexp.MustCompile(`money\.Format\(|\.StringFixed\(`)
	files, err := filepath.Glob("*")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_templ.go") || strings.HasSuffix(name, "_test.go") ||
			!(strings.HasSuffix(name, ".templ") || strings.HasSuffix(name, ".go")) {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if own.MatchString(line) {
				t.Errorf("%s:%d formats an amount its own way (use money.Display): %s", name, i+1, strings.TrimSpace(line))
			}
		}
	}
}
