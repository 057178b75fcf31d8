package views

import (
	"fmt"
	"strings"
)

// isBidiControl reports the characters that reorder the text around them:
// the embeddings and overrides (U+202A–U+202E), the isolates (U+2066–U+2069)
// and the marks (U+200E, U+200F, U+061C).
func isBidiControl(r rune) bool {
	return r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069' ||
		r == '\u200E' || r == '\u200F' || r == '\u061C'
}

// bidiControlNames name the controls where they are shown.
var bidiControlNames = map[rune]string{
	'\u202A': "left-to-right embedding", '\u202B': "right-to-left embedding", '\u202C': "pop directional formatting",
	'\u202D': "left-to-right override", '\u202E': "right-to-left override", '\u2066': "left-to-right isolate",
	'\u2067': "right-to-left isolate", '\u2068': "first strong isolate", '\u2069': "pop directional isolate",
	'\u200E': "left-to-right mark", '\u200F': "right-to-left mark", '\u061C': "Arabic letter mark",
}

// bidiMark is how a control shows on a page: its code point, in brackets.
func bidiMark(r rune) string { return fmt.Sprintf("[U+%04X]", r) }

// ShowBidiControls is s with every bidi control replaced by its visible
// mark ("[U+202E]"), for text that cannot hold markup (a page's <title>):
// a name with a right-to-left override neither reorders what follows nor
// passes for another name. The stored text keeps the controls.
func ShowBidiControls(s string) string {
	if !strings.ContainsFunc(s, isBidiControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isBidiControl(r) {
			b.WriteString(bidiMark(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// suppliedPart is a run of text a document supplied, or one bidi control in it.
type suppliedPart struct {
	text    string
	control rune
}

// suppliedParts splits s into runs of text and the bidi controls between them.
func suppliedParts(s string) []suppliedPart {
	var parts []suppliedPart
	start := 0
	for i, r := range s {
		if !isBidiControl(r) {
			continue
		}
		if i > start {
			parts = append(parts, suppliedPart{text: s[start:i]})
		}
		parts = append(parts, suppliedPart{text: bidiMark(r), control: r})
		start = i + len(string(r))
	}
	if start < len(s) {
		parts = append(parts, suppliedPart{text: s[start:]})
	}
	return parts
}
