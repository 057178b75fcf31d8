package apchecks

import (
	"strings"

	"greatbook/internal/apperr"
)

// ValidIBAN is iban in its electronic form (upper case, without the spaces,
// dashes and dots it may be printed with) when it is an IBAN a bank takes:
// only the Latin letters A-Z and the digits 0-9 (a Cyrillic or full-width
// look-alike is refused, never folded: it would be another account, or
// none), a country of the IBAN registry, that country's length, and the
// ISO 13616 mod-97 check digits. Otherwise an invalid error says which rule
// it breaks.
func ValidIBAN(iban string) (string, error) {
	s := ibanCharacters(iban)
	if s == "" {
		return "", apperr.New(apperr.Invalid, "an IBAN is required")
	}
	for i, r := range s {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return "", apperr.New(apperr.Invalid, "%q is not an IBAN: its %s character is %s, not one of the Latin letters A-Z or the digits 0-9%s",
				clipped(iban), ordinal(len([]rune(s[:i]))+1), describeRune(r), lookAlike(r))
		}
	}
	if len(s) < 4 || !isLetter(s[0]) || !isLetter(s[1]) || !isDigit(s[2]) || !isDigit(s[3]) {
		return "", apperr.New(apperr.Invalid, "%q is not an IBAN: an IBAN starts with a country code and two check digits, as in DE89 3704 0044 0532 0130 00", clipped(iban))
	}
	want, known := ibanLengths[s[:2]]
	switch {
	case !known:
		return "", apperr.New(apperr.Invalid, "%q is not an IBAN: %s is not a country of the IBAN registry", clipped(iban), s[:2])
	case len(s) != want:
		return "", apperr.New(apperr.Invalid, "%q is not an IBAN: it has %d characters, but an IBAN of %s has %d", clipped(iban), len(s), s[:2], want)
	case !ibanChecksumOK(s):
		return "", apperr.New(apperr.Invalid, "%q is not an IBAN: its check digits do not match the rest (a character mistyped, or two swapped)", clipped(iban))
	}
	return s, nil
}

// ValidBIC is bic upper case without surrounding spaces when it has the
// shape of a BIC (ISO 9362): four letters or digits for the institution,
// a two-letter country, two letters or digits for the location, and
// optionally three for the branch. Otherwise an invalid error says why.
func ValidBIC(bic string) (string, error) {
	s := ibanCharacters(strings.TrimSpace(bic))
	if s == "" {
		return "", apperr.New(apperr.Invalid, "a BIC is required")
	}
	for i, r := range s {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return "", apperr.New(apperr.Invalid, "%q is not a BIC: its %s character is %s, not one of the Latin letters A-Z or the digits 0-9%s",
				clipped(bic), ordinal(len([]rune(s[:i]))+1), describeRune(r), lookAlike(r))
		}
	}
	if (len(s) != 8 && len(s) != 11) || !isLetter(s[4]) || !isLetter(s[5]) {
		return "", apperr.New(apperr.Invalid, "%q is not a BIC: a BIC has 8 or 11 letters and digits, the 5th and 6th its country, as in COBADEFFXXX", clipped(bic))
	}
	return s, nil
}

// clipped shortens a value quoted back in an error.
func clipped(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
