package money

import (
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"
)

func TestCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
	}{
		{"10", "10"},
		{"10.0", "10"},
		{"10.00", "10"},
		{"1e1", "10"},
		{"1E3", "1000"},
		{"0", "0"},
		{"-0", "0"},
		{"-0.00", "0"},
		{"0.000", "0"},
		{"0.50", "0.5"},
		{"-0.50", "-0.5"},
		{"1234.5600", "1234.56"},
		{"-1801.78", "-1801.78"},
		{"1.5e-3", "0.0015"},
		{"100.010", "100.01"},
		{"123456789012345678901234567890.123400", "123456789012345678901234567890.1234"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			d, err := decimal.NewFromString(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := Canonical(d); got != tt.want {
				t.Errorf("Canonical(%s) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		minor int32
		want  string
	}{
		{"100", 2, "100.00"},
		{"100.5", 2, "100.50"},
		{"0", 2, "0.00"},
		{"-0.001", 2, "0.00"},
		{"-0.005", 2, "-0.01"},
		{"0.005", 2, "0.01"},
		{"365.125", 2, "365.13"},
		{"1273", 0, "1273"},
		{"1272.5", 0, "1273"},
		{"1.2345", 3, "1.235"},
		{"1e2", 2, "100.00"},
		{"-25", 2, "-25.00"},
		{"12.5", -1, "13"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			d := decimal.RequireFromString(tt.in)
			if got := Format(d, tt.minor); got != tt.want {
				t.Errorf("Format(%s, %d) = %q, want %q", tt.in, tt.minor, got, tt.want)
			}
		})
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	valid := []struct {
		in   string
		want string
	}{
		{"0", "0"},
		{"100", "100"},
		{"100.00", "100"},
		{"-12.50", "-12.5"},
		{"007", "7"},
		{"0.0001", "0.0001"},
	}
	for _, tt := range valid {
		t.Run("valid "+tt.in, func(t *testing.T) {
			t.Parallel()
			d, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got := Canonical(d); got != tt.want {
				t.Errorf("Parse(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
	invalid := []string{
		"", " ", "-", "+1", " 1", "1 ", "1,000", "1 000", "1.000,50", "1e3", "1E3", "1.5e-3",
		"NaN", "nan", "Inf", "-Inf", ".5", "5.", "1..2", "1.2.3", "--1", "0x10", "١٢٣", "1_000",
		"12345678901234567890123456789012345678901234567890123456789012345",
	}
	for _, in := range invalid {
		t.Run("invalid "+in, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(in)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want an error", in)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("Parse(%q) error %v does not wrap ErrSyntax", in, err)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code  string
		ok    bool
		minor int32
	}{
		{"EUR", true, 2}, {"SEK", true, 2}, {"NOK", true, 2}, {"USD", true, 2}, {"GBP", true, 2},
		{"JPY", true, 0}, {"KRW", true, 0}, {"ISK", true, 0}, {"CLP", true, 0}, {"VND", true, 0},
		{"KWD", true, 3}, {"BHD", true, 3}, {"OMR", true, 3}, {"TND", true, 3}, {"JOD", true, 3},
		{"IQD", true, 3}, {"LYD", true, 3},
		{"XCG", true, 2}, {"ZWG", true, 2}, {"SLE", true, 2},
		{"eur", false, 0}, {"EU", false, 0}, {"EURO", false, 0}, {"", false, 0},
		{"XAU", false, 0}, {"XDR", false, 0}, {"XTS", false, 0}, {"XXX", false, 0}, {"CLF", false, 0},
		{"HRK", false, 0}, {"ZWL", false, 0}, {"SLL", false, 0}, {"ABC", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			t.Parallel()
			c, ok := Lookup(tt.code)
			if ok != tt.ok {
				t.Fatalf("Lookup(%q) ok = %v, want %v", tt.code, ok, tt.ok)
			}
			if ok && (c.Code != tt.code || c.MinorUnits != tt.minor) {
				t.Errorf("Lookup(%q) = %+v, want minor units %d", tt.code, c, tt.minor)
			}
		})
	}
	if n := len(Codes()); n < 150 {
		t.Errorf("only %d currencies; the ISO 4217 active list has over 150", n)
	}
}

// decimalGen draws decimals with at most maxScale fractional digits and up to 30 integer digits.
func decimalGen(maxScale int32) *rapid.Generator[decimal.Decimal] {
	return rapid.Custom(func(t *rapid.T) decimal.Decimal {
		digits := rapid.StringMatching(`[0-9]{1,30}`).Draw(t, "digits")
		value, _ := new(big.Int).SetString(digits, 10)
		if rapid.Bool().Draw(t, "negative") {
			value.Neg(value)
		}
		scale := rapid.Int32Range(0, maxScale).Draw(t, "scale")
		return decimal.NewFromBigInt(value, -scale)
	})
}

func TestFormatParseCanonicalProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		minor := rapid.Int32Range(0, 4).Draw(t, "minor")
		x := decimalGen(minor).Draw(t, "x")
		parsed, err := Parse(Format(x, minor))
		if err != nil {
			t.Fatalf("Parse(Format(%s, %d)): %v", x, minor, err)
		}
		if Canonical(parsed) != Canonical(x) {
			t.Fatalf("Canonical(Parse(Format(x))) = %s, Canonical(x) = %s", Canonical(parsed), Canonical(x))
		}
	})
}

func TestCanonicalProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		x := decimalGen(8).Draw(t, "x")
		c := Canonical(x)
		back, err := Parse(c)
		if err != nil {
			t.Fatalf("canonical text %q does not parse: %v", c, err)
		}
		if !back.Equal(x) {
			t.Fatalf("Parse(Canonical(x)) = %s, want %s", back, x)
		}
		if Canonical(back) != c {
			t.Fatalf("Canonical is not idempotent: %q then %q", c, Canonical(back))
		}
		// Equal values have equal canonical text, whatever their exponent.
		padded := decimal.NewFromBigInt(new(big.Int).Mul(x.Coefficient(), big.NewInt(1000)), x.Exponent()-3)
		if Canonical(padded) != c {
			t.Fatalf("Canonical(%s) = %q, Canonical(%s) = %q", padded.StringFixed(-padded.Exponent()), Canonical(padded), x, c)
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{"0", "-12.50", "1e3", "", "1,000", "١٢٣", "99999999999999999999.99"} {
		f.Add(seed)
	}
	// The repository's hostile-input corpus (testdata/hostile), without the sidecars and the README.
	paths, _ := filepath.Glob("../../testdata/hostile/*")
	if len(paths) == 0 {
		f.Fatal("no hostile corpus in ../../testdata/hostile")
	}
	for _, path := range paths {
		if strings.HasSuffix(path, ".want.json") || strings.HasSuffix(path, ".md") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		if err != nil {
			return
		}
		back, err := Parse(Canonical(d))
		if err != nil || !back.Equal(d) {
			t.Fatalf("canonical text of %q does not parse back: %v", s, err)
		}
	})
}

func TestLedgerPrecision(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		fits bool
	}{
		{"0", true},
		{"9999999999999999.9999", true},
		{"-9999999999999999.9999", true},
		{"9999999999999999.99995", false}, // rounds up to 10^16
		{"10000000000000000", false},
		{"1234567890123456789012345678901234567890", false},
		{"0.000000001", true},
	} {
		d, err := Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := Ledger.Fits(d); got != tc.fits {
			t.Errorf("Ledger.Fits(%s) = %v, want %v", tc.in, got, tc.fits)
		}
	}
}
