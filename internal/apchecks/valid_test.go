package apchecks_test

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"greatbook/internal/apchecks"
	"greatbook/internal/apperr"
)

// TestValidIBAN accepts real IBANs however they are printed and refuses
// each broken rule, look-alike characters among them.
func TestValidIBAN(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"DE89370400440532013000", "DE89370400440532013000"},
		{"de89 3704 0044 0532 0130 00", "DE89370400440532013000"},
		{" GB82-WEST-1234-5698-7654-32 ", "GB82WEST12345698765432"},
		{"NO9386011117947", "NO9386011117947"},
		{"BE91000000143476", "BE91000000143476"}, // the credit note sample's account
		{"IBAN32423940", ""},                     // not written as an IBAN
		{"DE8937040044053201300", ""},            // one character short
		{"DE89370400440532013001", ""},           // mistyped
		{"XX89370400440532013000", ""},           // no such country
		{"DE89370400440532013000\x00", ""},       // a NUL
		{"DЕ89370400440532013000", ""},           // Cyrillic Е
		{"ＤＥ89370400440532013000", ""},           // full-width letters
		{"DE89３70400440532013000", ""},           // a full-width digit
		{"DE89\u200b370400440532013000", ""},     // a zero-width space
		{"\xffDE89370400440532013000", ""},       // not UTF-8
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.in), func(t *testing.T) {
			got, err := apchecks.ValidIBAN(tt.in)
			if tt.want == "" {
				var e *apperr.Error
				if err == nil || !errors.As(err, &e) || e.Code != apperr.Invalid {
					t.Fatalf("accepted as %q (%v), want an invalid error", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ValidIBAN = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	_, err := apchecks.ValidIBAN("DЕ89370400440532013000")
	if err == nil || !strings.Contains(err.Error(), "CYRILLIC") || !strings.Contains(err.Error(), `looks like the Latin 'E'`) {
		t.Errorf("a Cyrillic look-alike is refused without saying so: %v", err)
	}
}

// TestValidBIC accepts BICs of 8 and 11 characters and refuses other shapes.
func TestValidBIC(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"COBADEFFXXX", "COBADEFFXXX"},
		{" dnbanokk ", "DNBANOKK"},
		{"BPOTBEB1", "BPOTBEB1"},
		{"BIC324098", ""},   // the Peppol sample's placeholder
		{"COBADEFFXX", ""},  // 10 characters
		{"COBA12FFXXX", ""}, // the country is not letters
		{"СОВАDEFFXXX", ""}, // Cyrillic С, О, В, А
		{"ＣＯＢＡDEFFXXX", ""}, // full-width
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.in), func(t *testing.T) {
			got, err := apchecks.ValidBIC(tt.in)
			if (err == nil) != (tt.want != "") || got != tt.want {
				t.Fatalf("ValidBIC = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// ibanOf is an IBAN of country with bban, its check digits computed.
func ibanOf(country, bban string) string {
	var digits strings.Builder
	for _, r := range bban + country + "00" {
		if r >= 'A' && r <= 'Z' {
			fmt.Fprintf(&digits, "%d", r-'A'+10)
		} else {
			digits.WriteRune(r)
		}
	}
	n, _ := new(big.Int).SetString(digits.String(), 10)
	check := 98 - new(big.Int).Mod(n, big.NewInt(97)).Int64()
	return fmt.Sprintf("%s%02d%s", country, check, bban)
}

// ibanLengthsForTest are some SEPA countries' IBAN lengths, for drawing IBANs.
var ibanLengthsForTest = map[string]int{"DE": 22, "FR": 27, "NL": 18, "BE": 16, "AT": 20, "IT": 27, "ES": 24, "NO": 15, "MT": 31, "GB": 22, "CH": 21, "SE": 24}

// TestValidIBANProperty: every IBAN with correct check digits is accepted
// however it is printed (groups of four, lower case), and changing one
// digit for another digit or one letter for another letter, or putting a
// look-alike in one place, is refused.
func TestValidIBANProperty(t *testing.T) {
	t.Parallel()
	countries := []string{"AT", "BE", "CH", "DE", "ES", "FR", "GB", "IT", "MT", "NL", "NO", "SE"}
	rapid.Check(t, func(t *rapid.T) {
		country := rapid.SampledFrom(countries).Draw(t, "country")
		bban := rapid.StringMatching(fmt.Sprintf("[0-9A-Z]{%d}", ibanLengthsForTest[country]-4)).Draw(t, "bban")
		iban := ibanOf(country, bban)
		if got, err := apchecks.ValidIBAN(iban); err != nil || got != iban {
			t.Fatalf("ValidIBAN(%q) = %q, %v", iban, got, err)
		}
		var printed strings.Builder
		for i, r := range strings.ToLower(iban) {
			if i > 0 && i%4 == 0 {
				printed.WriteByte(' ')
			}
			printed.WriteRune(r)
		}
		if got, err := apchecks.ValidIBAN(printed.String()); err != nil || got != iban {
			t.Fatalf("ValidIBAN(%q) = %q, %v", printed.String(), got, err)
		}
		i := rapid.IntRange(2, len(iban)-1).Draw(t, "position")
		c := iban[i]
		var other byte
		if c >= '0' && c <= '9' {
			other = byte('0' + (int(c-'0')+rapid.IntRange(1, 9).Draw(t, "digit shift"))%10)
		} else {
			other = byte('A' + (int(c-'A')+rapid.IntRange(1, 25).Draw(t, "letter shift"))%26)
		}
		changed := iban[:i] + string(other) + iban[i+1:]
		if got, err := apchecks.ValidIBAN(changed); err == nil {
			t.Fatalf("ValidIBAN(%q) accepted a changed IBAN as %q", changed, got)
		}
		lookAlike := rapid.SampledFrom([]string{"А", "О", "Ｏ", "０", "１", "\u200b"}).Draw(t, "look-alike")
		if got, err := apchecks.ValidIBAN(iban[:i] + lookAlike + iban[i+1:]); err == nil {
			t.Fatalf("ValidIBAN accepted a look-alike as %q", got)
		}
	})
}

// FuzzValidIBAN: whatever it is given, ValidIBAN accepts only ASCII
// letters and digits of a registry country's length, and what it gives back
// it accepts again unchanged; ValidBIC likewise gives back only a BIC shape.
func FuzzValidIBAN(f *testing.F) {
	for _, s := range []string{"DE89370400440532013000", "de89 3704 0044 0532 0130 00", "DЕ89370400440532013000", "ＤＥ89", "", "\xff", "COBADEFFXXX"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, err := apchecks.ValidIBAN(s); err == nil {
			if len(got) < 15 || len(got) > 34 || strings.Trim(got, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
				t.Fatalf("ValidIBAN(%q) = %q", s, got)
			}
			if again, err := apchecks.ValidIBAN(got); err != nil || again != got {
				t.Fatalf("ValidIBAN(%q) = %q, %v", got, again, err)
			}
		}
		if got, err := apchecks.ValidBIC(s); err == nil {
			if (len(got) != 8 && len(got) != 11) || strings.Trim(got, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
				t.Fatalf("ValidBIC(%q) = %q", s, got)
			}
		}
	})
}
