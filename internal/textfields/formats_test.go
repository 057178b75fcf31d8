package textfields

import (
	"slices"
	"testing"
	"time"
)

func TestParseAmount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, lang, want, currency string
	}{
		{"1.234,56", "de", "1234.56", ""},
		{"1,234.56", "en", "1234.56", ""},
		{"1 234,56", "fr", "1234.56", ""},
		{"1\u202f234,56", "fr", "1234.56", ""},
		{"1\u00a0234,56 €", "fr", "1234.56", "EUR"},
		{"1234.56", "en", "1234.56", ""},
		{"1234,56", "de", "1234.56", ""},
		{"€ 1.234,56", "nl", "1234.56", "EUR"},
		{"€1,234.56", "en", "1234.56", "EUR"},
		{"EUR 529,87", "de", "529.87", "EUR"},
		{"529,87 EUR", "de", "529.87", "EUR"},
		{"£246.91", "en", "246.91", "GBP"},
		{"$1,000", "en", "1000", "USD"},
		{"CHF 1'234.50", "de", "1234.5", "CHF"},
		{"USD 12.00", "en", "12", "USD"},
		{"-12,50", "de", "-12.5", ""},
		{"12,50-", "de", "-12.5", ""},
		{"(12.50)", "en", "-12.5", ""},
		{"1.234", "de", "1234", ""},
		{"1,234", "en", "1234", ""},
		{"1,234", "de", "1.234", ""},
		{"9,9000", "de", "9.9", ""},
		{"50,-", "de", "50", ""},
		{"1.234.567,89", "de", "1234567.89", ""},
		{"1,234,567.89", "en", "1234567.89", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, c, ok := parseAmount(tt.in, tt.lang)
			if !ok || d.String() != tt.want || c != tt.currency {
				t.Errorf("parseAmount(%q, %s) = %s %q %v, want %s %q", tt.in, tt.lang, d, c, ok, tt.want, tt.currency)
			}
		})
	}
	for _, bad := range []string{"", "abc", "2 10,00", "1.23.4", "12,34,5", "19%", "1,2,3", "€", "12 345 67", "2026-01-02", "--1", "1e5"} {
		if d, _, ok := parseAmount(bad, "de"); ok {
			t.Errorf("parseAmount(%q) = %s, want no amount", bad, d)
		}
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		dayFirst bool
		want     string
	}{
		{"02.01.2026", true, "2026-01-02"},
		{"2.1.26", true, "2026-01-02"},
		{"2026-01-02", true, "2026-01-02"},
		{"02/01/2026", true, "2026-01-02"},
		{"02/01/2026", false, "2026-02-01"},
		{"13/01/2026", false, "2026-01-13"},
		{"01/13/2026", true, "2026-01-13"},
		{"02-01-2026", true, "2026-01-02"},
		{"2. Januar 2026", true, "2026-01-02"},
		{"2 janvier 2026", true, "2026-01-02"},
		{"1er février 2026", true, "2026-02-01"},
		{"2 januari 2026", true, "2026-01-02"},
		{"2 January 2026", true, "2026-01-02"},
		{"January 2, 2026", true, "2026-01-02"},
		{"Jan 2, 2026", true, "2026-01-02"},
		{"02-Jan-2026", true, "2026-01-02"},
		{"15. März 2024", true, "2024-03-15"},
		{"3 mrt 2026", true, "2026-03-03"},
		{"29.02.2024", true, "2024-02-29"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got, ok := parseDate(tt.in, tt.dayFirst); !ok || got != tt.want {
				t.Errorf("parseDate(%q, %v) = %q %v, want %q", tt.in, tt.dayFirst, got, ok, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "29.02.2025", "32.01.2026", "13/13/2026", "2026", "1.234,56", "2 Foo 2026", "12:30"} {
		if got, ok := parseDate(bad, true); ok {
			t.Errorf("parseDate(%q) = %q, want no date", bad, got)
		}
	}
	now := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]bool{"2026-01-02": true, "1999-12-31": false, "2028-12-05": false, "2028-12-03": true} {
		if got := plausibleDate(in, now); got != want {
			t.Errorf("plausibleDate(%s) = %v, want %v", in, got, want)
		}
	}
}

func TestCheckVATID(t *testing.T) {
	t.Parallel()
	tests := map[string]vatCheck{
		"DE136695976": vatValid, "DE 811 191 002": vatValid, "DE123456789": vatInvalid,
		"ATU13585627": vatValid, "ATU13585628": vatInvalid,
		"BE0411905847": vatValid, "BE 0403.170.701": vatValid, "BE0411905848": vatInvalid,
		"FR40303265045": vatValid, "FR41303265045": vatInvalid, "FRXA303265045": vatShape,
		"NL004495445B01": vatValid, "NL123456789B01": vatInvalid,
		"CHE-116.281.710 MWST": vatValid, "CHE123456789": vatInvalid,
		"IT12345678901": vatShape, "GB123456789": vatShape,
		"DE12345": vatUnknown, "QQ123456789": vatUnknown, "": vatUnknown,
	}
	for in, want := range tests {
		if got := checkVATID(normaliseVATID(in)); got != want {
			t.Errorf("checkVATID(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestReadIBANAsPrinted(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"DE89 3704 0044 0532 0130 00":     "DE89370400440532013000",
		"DE89370400440532013000":          "DE89370400440532013000",
		"DE60 7015 0000 9097-0426 27":     "DE60701500009097042627", // an OCR's dash between groups
		"DEO3 3704 0044 8389 1413 27":     "DE03370400448389141327", // an OCR's O for 0
		"GB33 BUKB 2020 1555 5555 55 BIC": "GB33BUKB20201555555555",
		"DE89 3704 0044 0532 0130 01":     "DE89370400440532013001", // as printed; its check fails
	}
	for printed, want := range tests {
		ws := page(1, placed{0.1, 0.1, printed}).Words
		v, ok := readIBAN(ws)
		if !ok || v.text != want {
			t.Errorf("readIBAN(%q) = %q %v, want %q", printed, v.text, ok, want)
		}
	}
	r := readAt(doc(page(1, placed{0.1, 0.9, "IBAN: DE89 3704 0044 0532 0130 01"})), nil, time.Now())
	if f := r.Fields[FieldIBAN]; f.Confidence >= Certain || !slices.Contains(r.Uncertain, FieldIBAN) {
		t.Errorf("an IBAN failing its check read with confidence %.2f, uncertain %v", f.Confidence, r.Uncertain)
	}
}
