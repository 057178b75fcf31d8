package views

import "unicode/utf8"

// maxHighlightBytes bounds the work of highlighting a changed value: a
// value longer than this (on either side) is marked changed as a whole
// rather than compared character by character.
const maxHighlightBytes = 4096

// Segment is a piece of a value as the side-by-side view shows it; Changed
// pieces are what differs from the other document's value.
type Segment struct {
	Text    string
	Changed bool
}

// Highlight splits two differing values into what they share and what
// changed between them: the common beginning and end stay plain, the part
// between is marked. It reads each value once (linear, and bounded by
// maxHighlightBytes), never splits a character, and gives nil for values
// that are the same.
func Highlight(a, b string) (sa, sb []Segment) {
	if a == b {
		return nil, nil
	}
	prefix, suffix, _ := changedSpan(a, b)
	return segments(a, prefix, suffix), segments(b, prefix, suffix)
}

// changedSpan is the length in bytes of the common prefix and of the
// common suffix (not overlapping it) of a and b, and how many characters
// it looked at.
func changedSpan(a, b string) (prefix, suffix, steps int) {
	if len(a) > maxHighlightBytes || len(b) > maxHighlightBytes {
		return 0, 0, 0
	}
	for prefix < len(a) && prefix < len(b) {
		ra, na := utf8.DecodeRuneInString(a[prefix:])
		rb, nb := utf8.DecodeRuneInString(b[prefix:])
		steps++
		if ra != rb || na != nb {
			break
		}
		prefix += na
	}
	for suffix < len(a)-prefix && suffix < len(b)-prefix {
		ra, na := utf8.DecodeLastRuneInString(a[:len(a)-suffix])
		rb, nb := utf8.DecodeLastRuneInString(b[:len(b)-suffix])
		steps++
		if ra != rb || na != nb || suffix+na > len(a)-prefix || suffix+nb > len(b)-prefix {
			break
		}
		suffix += na
	}
	return prefix, suffix, steps
}

func segments(s string, prefix, suffix int) []Segment {
	var out []Segment
	add := func(text string, changed bool) {
		if text != "" {
			out = append(out, Segment{Text: text, Changed: changed})
		}
	}
	add(s[:prefix], false)
	add(s[prefix:len(s)-suffix], true)
	add(s[len(s)-suffix:], false)
	if len(out) == 0 {
		// Nothing left of this side: the other side has more.
		out = append(out, Segment{})
	}
	return out
}
