package storable_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"greatbook/internal/apperr"
	"greatbook/internal/storable"
)

func TestClean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "Acme AB", 100, "Acme AB"},
		{"NUL", "Evil\x00Corp", 100, "Evil\uFFFDCorp"},
		{"invalid UTF-8", "caf\xe9", 100, "caf\uFFFD"},
		{"cut at a character boundary", "aé", 2, "a"},
		{"unbounded", strings.Repeat("x", 10), 0, strings.Repeat("x", 10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := storable.Clean(tc.in, tc.max)
			if got != tc.want {
				t.Fatalf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if !storable.OK(got, tc.max) || !utf8.ValidString(got) {
				t.Fatalf("Clean(%q) = %q is not storable", tc.in, got)
			}
		})
	}
	if storable.Problem("a\x00", 10) == "" || storable.Problem("\xff", 10) == "" || storable.Problem("abc", 2) == "" {
		t.Fatal("a problem went unreported")
	}
}

func TestJSONProblem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"a": "b"}`, true},
		{`{"a": "\\u0000"}`, true}, // an escaped backslash, then text
		{`{"a": "x\u0000"}`, false},
		{`{"a": "\\\u0000"}`, false},
		{"{\"a\": \"\xff\"}", false},
		{`{"a": `, false},
	} {
		if got := storable.JSONProblem([]byte(tc.in)) == ""; got != tc.ok {
			t.Errorf("JSONProblem(%s) ok = %v, want %v", tc.in, got, tc.ok)
		}
	}
}

func TestCheckParameters(t *testing.T) {
	t.Parallel()
	if err := storable.CheckParameters(storable.Param{Name: "q", Value: "fine", Max: 10}, storable.Param{Name: "type", Value: "", Max: 10}); err != nil {
		t.Fatalf("storable parameters refused: %v", err)
	}
	err := storable.CheckParameters(storable.Param{Name: "q", Value: "fine", Max: 10}, storable.Param{Name: "type", Value: "a\x00", Max: 10},
		storable.Param{Name: "flag", Value: "\xff", Max: 10}, storable.Param{Name: "kind", Value: "eleven long", Max: 10})
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.Invalid || !strings.HasPrefix(e.Message, "the parameter type ") {
		t.Fatalf("got %v, want invalid naming type", err)
	}
	reasons, _ := e.Details["reasons"].([]storable.Reason)
	var fields []string
	for _, r := range reasons {
		fields = append(fields, r.Field)
	}
	if strings.Join(fields, ",") != "type,flag,kind" {
		t.Fatalf("reasons %v, want type, flag and kind in that order", reasons)
	}
}
