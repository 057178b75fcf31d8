// Package einvoicetest holds what the tests of the e-invoicing packages share: the test documents and the
// clock they are validated against, factories and comparisons of documents, rapid generators, a builder
// of small PDFs with embedded files, and the fuzz targets' seeds and checks. Only tests import it.
package einvoicetest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
)

// Now is the clock the tests validate against, so that they do not depend on the day they run.
var Now = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// Dec is the decimal s spells, which must be one.
func Dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// TotalsOf builds Totals from line total, allowances, charges, net, tax, gross, prepaid, rounding, payable.
func TotalsOf(values ...string) einvoice.Totals {
	if len(values) != 9 {
		panic("totals needs nine values")
	}
	return einvoice.Totals{
		LineTotal: Dec(values[0]), AllowanceTotal: Dec(values[1]), ChargeTotal: Dec(values[2]),
		Net: Dec(values[3]), Tax: Dec(values[4]), Gross: Dec(values[5]),
		Prepaid: Dec(values[6]), Rounding: Dec(values[7]), Payable: Dec(values[8]),
	}
}

// FatalHelper is what testing.T and rapid.T have in common for helpers.
type FatalHelper interface {
	Helper()
	Fatal(args ...any)
}

// Comparable renders a document for comparison: the storage JSON, in which equal amounts are equal text.
func Comparable(t FatalHelper, d einvoice.Document) string {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// RoundTripFiles are the test documents every renderer must reproduce.
var RoundTripFiles = []string{
	"samples/en16931-ubl-example2.xml", "samples/en16931-ubl-creditnote1.xml", "samples/en16931-cii-example2.xml",
	"samples/peppol-bis3-base-example.xml", "samples/mustang-EN16931_Einfach.pdf",
	"ubl-invoice-multirate.xml", "ubl-creditnote.xml", "ubl-corrected-384.xml", "ubl-invoice-bad-total.xml",
	"cii-invoice.xml", "facturx-invoice.pdf",
	"json-invoice-with-totals.json", "json-invoice-without-totals.json", "json-credit-note.json", "json-invoice-bad-total.json",
}

// SameFields compares two documents field by field, Format aside, amounts by value.
func SameFields(t FatalHelper, got, want einvoice.Document) bool {
	t.Helper()
	// The syntax and the profile it states belong to the source, not to the facts a rewrite keeps.
	got.Format, want.Format = "", ""
	got.Specification, want.Specification = "", ""
	got.Profile, want.Profile = "", ""
	return Comparable(t, got) == Comparable(t, want)
}

// Invoice returns a valid invoice to break one rule at a time.
func Invoice() einvoice.Document {
	return einvoice.Document{
		Format: einvoice.FormatJSON, Type: einvoice.TypeInvoice, TypeCode: "380",
		Number: "INV-1", IssueDate: "2026-11-20", DueDate: "2026-12-20", Currency: "EUR",
		Seller: einvoice.Party{Name: "Supplier AB", VATID: "SE556677889901"},
		Buyer:  einvoice.Party{Name: "Acme Ltd"},
		Lines: []einvoice.Line{
			{Description: "Widget", Quantity: Dec("2"), UnitPrice: Dec("50.00"), Net: Dec("100.00"), TaxRate: Dec("25"), TaxCategory: "S"},
			{Description: "Book", Quantity: Dec("3"), UnitPrice: Dec("10.00"), Net: Dec("30.00"), TaxRate: Dec("6"), TaxCategory: "S"},
		},
		TaxSubtotals: []einvoice.TaxSubtotal{
			{Category: "S", Rate: Dec("25"), Taxable: Dec("100.00"), Tax: Dec("25.00")},
			{Category: "S", Rate: Dec("6"), Taxable: Dec("30.00"), Tax: Dec("1.80")},
		},
		Totals: TotalsOf("130.00", "0", "0", "130.00", "26.80", "156.80", "0", "0", "156.80"),
	}
}

// moduleRoot is the directory of go.mod above the working directory, which go test sets to the directory
// of the package under test, so that every package finds the same test documents.
var moduleRoot = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("einvoicetest: no go.mod above the working directory")
		}
		dir = parent
	}
})

// inModule is the path of rel under the module root.
func inModule(t testing.TB, rel ...string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{root}, rel...)...)
}

// testdataDir is the directory of the e-invoicing test documents, internal/einvoice/testdata.
func testdataDir(t testing.TB) string { return inModule(t, "internal", "einvoice", "testdata") }

// ReadTestdata reads a test document of internal/einvoice/testdata.
func ReadTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testdataDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// HostileDir is the repository's hostile-input corpus, testdata/hostile (see its README.md).
func HostileDir(t testing.TB) string { return inModule(t, "testdata", "hostile") }

// AllocatedBy returns the bytes the Go heap allocated while f ran (process-wide, so callers keep
// their bounds generous and do not run in parallel).
func AllocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// IsCapError reports a ParseError for the cap named limit.
func IsCapError(err error, limit string) bool {
	var pe *einvoice.ParseError
	return errors.As(err, &pe) && pe.Code == einvoice.CodeInputCap && pe.Field == limit
}
