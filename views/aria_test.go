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

// A component call followed by a block on its line, `@badge(s) { n } of`,
// passes the block as the component's children; one that renders no
// children drops it silently (the job page lost its attempt count so). Only
// components that render { children... } may be called with a block.
func TestNoChildrenArePassedToAComponentThatDropsThem(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("templates: %v %v", files, err)
	}
	var src []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = append(append(src, b...), '\n')
	}
	takesChildren := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^templ (\w+)\(`)
	idx := decl.FindAllSubmatchIndex(src, -1)
	for i, m := range idx {
		end := len(src)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		if regexp.MustCompile(`\{ children\.\.\. \}`).Match(src[m[1]:end]) {
			takesChildren[string(src[m[2]:m[3]])] = true
		}
	}
	call := regexp.MustCompile(`@(\w+)\((?:[^()\n]|\([^()\n]*\))*\)[ \t]*\{`)
	for _, m := range call.FindAllSubmatch(src, -1) {
		if !takesChildren[string(m[1])] {
			t.Errorf("%s is given children it does not render: %q", m[1], m[0])
		}
	}
}

// Inside a tag's attributes templ takes "if" and "else" but not "else if":
// it writes the words "else" or "if" into the tag as attributes. No
// generated template writes either.
func TestNoTagCarriesAStrayElseOrIf(t *testing.T) {
	files, err := filepath.Glob("*_templ.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("generated templates: %v %v", files, err)
	}
	stray := regexp.MustCompile(`WriteString\(templ_7745c5c3_Buffer, \d+, " (else|if)[ ">]`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if loc := stray.FindIndex(src); loc != nil {
			t.Errorf("%s: a stray attribute: %s", f, src[loc[0]:loc[1]])
		}
	}
}
