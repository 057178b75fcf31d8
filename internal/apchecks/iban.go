package apchecks

import (
	"fmt"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/runenames"

	"greatbook/internal/einvoice"
)

// ibanLengths is the length of an IBAN of each country of the SWIFT IBAN
// registry (ISO 13616). Territories that use another country's IBAN (Åland,
// the French overseas departments, Jersey) are not listed: their IBANs
// start with FI, FR, GB.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27,
	"BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28,
	"EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
	"GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
	"IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21,
	"LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28,
	"NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
	"RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
	"SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

// IBAN lengths any country may use (ISO 13616: at most 34 characters).
const (
	minIBANLength = 15
	maxIBANLength = 34
)

// ibanFinding checks that iban, as the document wrote it, is an IBAN: only
// the Latin letters A-Z and the digits 0-9 once spaces are left out (a
// Cyrillic "А" looks like "A" but is another account, or none), then, for
// an account written as an IBAN (a country code and two check digits), the
// country's length and the ISO 7064 mod 97-10 checksum. Lower case is
// accepted: only the letters' shapes matter to a bank. It reports the
// first rule iban breaks.
func ibanFinding(iban string) (einvoice.Finding, bool) {
	written := strings.TrimSpace(iban)
	s := ibanCharacters(iban)
	if s == "" {
		return einvoice.Finding{}, false
	}
	for i, r := range []rune(s) {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return warning(CodeIBANCharacters, "payee_iban",
				"The bank account %q is not a valid IBAN: its %s character is %s, which is not one of the Latin letters A-Z or the digits 0-9 an IBAN is written in%s. "+
					"An account number that only looks right is how payment fraud hides: confirm the account with the supplier by phone, using a number you already had, before paying.",
				written, ordinal(i+1), describeRune(r), lookAlike(r)), true
		}
	}
	if len(s) < 4 || !isLetter(s[0]) || !isLetter(s[1]) || !isDigit(s[2]) || !isDigit(s[3]) {
		// Not written as an IBAN at all: BT-84 may name another kind of
		// account (a national account number), which is not judged as one.
		return einvoice.Finding{}, false
	}
	if want, known := ibanLengths[s[:2]]; known && len(s) != want {
		return warning(CodeIBANLength, "payee_iban",
			"The bank account %q is not a valid IBAN: it has %d characters, but an IBAN of %s has %d. "+
				"A character was left out or added: confirm the account with the supplier before paying.",
			written, len(s), s[:2], want), true
	} else if !known && (len(s) < minIBANLength || len(s) > maxIBANLength) {
		return warning(CodeIBANLength, "payee_iban",
			"The bank account %q is not a valid IBAN: it has %d characters, but an IBAN has %d to %d. "+
				"A character was left out or added: confirm the account with the supplier before paying.",
			written, len(s), minIBANLength, maxIBANLength), true
	}
	if !ibanChecksumOK(s) {
		return warning(CodeIBANChecksum, "payee_iban",
			"The bank account %q is not a valid IBAN: its check digits do not match the rest (ISO 13616 mod 97). "+
				"A character is mistyped or two are swapped, or the account was altered: confirm it with the supplier before paying.",
			written), true
	}
	return einvoice.Finding{}, false
}

// ibanCharacters is iban upper case without the spaces (and dashes and
// dots) it may be printed with, and with every other character as written:
// unlike NormalizeIBAN it folds no look-alike into the letter it resembles.
func ibanCharacters(iban string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '-' || r == '.' {
			return -1
		}
		if r >= 'a' && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, iban)
}

// ibanChecksumOK is ISO 7064 mod 97-10 over s (upper-case letters and
// digits): the first four characters moved to the end, each letter read as
// two digits (A = 10 … Z = 35), the number mod 97 is 1.
func ibanChecksumOK(s string) bool {
	var digits strings.Builder
	for _, r := range s[4:] + s[:4] {
		if isLetter(byte(r)) {
			fmt.Fprintf(&digits, "%d", r-'A'+10)
		} else {
			digits.WriteRune(r)
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// describeRune names a character for a person: the character itself when
// it prints, its code point and its Unicode name.
func describeRune(r rune) string {
	name := runenames.Name(r)
	if name == "" {
		name = "an unnamed character"
	}
	if r == utf8.RuneError || !unicode.IsPrint(r) {
		return fmt.Sprintf("U+%04X %s", r, name)
	}
	return fmt.Sprintf("%q (U+%04X %s)", r, r, name)
}

// lookAlike says which Latin letter or digit a character is taken for,
// when it is a well-known look-alike.
func lookAlike(r rune) string {
	if latin, ok := confusables[r]; ok {
		return fmt.Sprintf(", though it looks like the Latin %q", latin)
	}
	return ""
}

// confusables are the Cyrillic and Greek capitals that print like a Latin
// capital, and the full-width forms of A-Z and 0-9.
var confusables = func() map[rune]rune {
	m := map[rune]rune{
		'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
		'Х': 'X', 'У': 'Y', 'І': 'I', 'Ј': 'J', 'Ѕ': 'S', 'Ԁ': 'D', 'Ԛ': 'Q', 'Ԝ': 'W',
		'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
		'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	}
	for c := 'A'; c <= 'Z'; c++ {
		m[c-'A'+'Ａ'] = c
	}
	for c := '0'; c <= '9'; c++ {
		m[c-'0'+'０'] = c
	}
	return m
}()

// ordinal is n as "1st", "2nd", "3rd", "4th" …
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
