package views

import (
	"strings"
	"testing"
)

func marked(segs []Segment) string {
	var b strings.Builder
	for _, s := range segs {
		if s.Changed {
			b.WriteString("[" + s.Text + "]")
		} else {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

func TestHighlightMarksOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	cases := []struct{ a, b, wantA, wantB string }{
		{"2026-12-20", "2027-01-15", "202[6-12-20]", "202[7-01-15]"},
		{"1006.74", "1060.74", "10[06].74", "10[60].74"},
		{"INV-001", "INV-001-B", "INV-001", "INV-001[-B]"},
		{"Nordisk Konsult AB", "Nordisk Konsult", "Nordisk Konsult[ AB]", "Nordisk Konsult"},
		{"abc", "xyz", "[abc]", "[xyz]"},
		{"aa", "aaa", "aa", "aa[a]"}, // the suffix never overlaps the prefix
		{"", "x", "", "[x]"},
		{"Müller GmbH", "Möller GmbH", "M[ü]ller GmbH", "M[ö]ller GmbH"}, // characters, not bytes
		{"Ü", "Ö", "[Ü]", "[Ö]"},
	}
	for _, c := range cases {
		sa, sb := Highlight(c.a, c.b)
		if got := marked(sa); got != c.wantA {
			t.Errorf("Highlight(%q, %q) left: %q, want %q", c.a, c.b, got, c.wantA)
		}
		if got := marked(sb); got != c.wantB {
			t.Errorf("Highlight(%q, %q) right: %q, want %q", c.a, c.b, got, c.wantB)
		}
	}
	if sa, sb := Highlight("same", "same"); sa != nil || sb != nil {
		t.Errorf("same values: %v %v", sa, sb)
	}
}

// The work is linear in the values and bounded: at most one step per
// character of the shorter value each way, and none past the cap, where
// the whole value is marked.
func TestHighlightIsBounded(t *testing.T) {
	t.Parallel()
	a := strings.Repeat("x", maxHighlightBytes/2) + "A" + strings.Repeat("y", maxHighlightBytes/2-1)
	b := strings.Repeat("x", maxHighlightBytes/2) + "B" + strings.Repeat("y", maxHighlightBytes/2-1)
	prefix, suffix, steps := changedSpan(a, b)
	if prefix != maxHighlightBytes/2 || suffix != maxHighlightBytes/2-1 {
		t.Fatalf("prefix %d, suffix %d", prefix, suffix)
	}
	if steps > len(a)+1 {
		t.Fatalf("%d steps for %d characters", steps, len(a))
	}
	huge := strings.Repeat("z", 10<<20)
	if _, _, steps := changedSpan(huge+"1", huge+"2"); steps != 0 {
		t.Fatalf("%d steps over the cap, want none", steps)
	}
	sa, sb := Highlight(huge+"1", huge+"2")
	if len(sa) != 1 || !sa[0].Changed || len(sb) != 1 || !sb[0].Changed {
		t.Fatalf("over the cap the whole value is marked: %d and %d segments", len(sa), len(sb))
	}
}
