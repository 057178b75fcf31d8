package money

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestDisplayGroupsThousandsWithTheCurrencysDigits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		amount, currency, want string
	}{
		{"1006.74", "EUR", "1,006.74 EUR"},
		{"1006.7", "EUR", "1,006.70 EUR"},
		{"0", "EUR", "0.00 EUR"},
		{"-0.001", "EUR", "0.00 EUR"},
		{"999.999", "EUR", "1,000.00 EUR"},
		{"-1234567.891", "EUR", "-1,234,567.89 EUR"},
		{"123456", "JPY", "123,456 JPY"},
		{"1234.5", "KWD", "1,234.500 KWD"},
		{"100", "EUR", "100.00 EUR"},
		{"12345.6789", "XXX", "12,345.6789 XXX"},
		{"1000", "", "1,000"},
		{"12345678901234567.1234", "EUR", "12,345,678,901,234,567.12 EUR"},
	} {
		t.Run(tc.amount+" "+tc.currency, func(t *testing.T) {
			if got := Display(decimal.RequireFromString(tc.amount), tc.currency); got != tc.want {
				t.Errorf("Display(%s, %q) = %q, want %q", tc.amount, tc.currency, got, tc.want)
			}
		})
	}
}
