package einvoice

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"greatbook/internal/money"
	"greatbook/internal/storable"
)

// Finding codes of values the database could not hold as they are.
const (
	CodeUnstorableText   = "unstorable_text"
	CodeTextTooLong      = "text_too_long"
	CodeAmountOutOfRange = "amount_out_of_range"
)

var decimalType = reflect.TypeFor[decimal.Decimal]()

// walk visits every string and every decimal of d, each with its JSON path
// ("seller.name", "lines[2].unit_price"). It walks the type by reflection, so
// a field added to Document later is checked without anyone remembering to.
func walk(d *Document, text func(path string, s *string), amount func(path string, v decimal.Decimal)) {
	// Typed strings (Format, DocType) are visited through a copy and set back.
	walkValue(reflect.ValueOf(d).Elem(), "", text, amount)
}

func walkValue(v reflect.Value, path string, text func(string, *string), amount func(string, decimal.Decimal)) {
	switch {
	case v.Type() == decimalType:
		if amount != nil {
			amount(path, v.Interface().(decimal.Decimal))
		}
	case v.Kind() == reflect.String:
		if text != nil {
			s := v.String()
			text(path, &s)
			if s != v.String() {
				v.SetString(s)
			}
		}
	case v.Kind() == reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				name = f.Name
			}
			if path != "" {
				name = path + "." + name
			}
			walkValue(v.Field(i), name, text, amount)
		}
	case v.Kind() == reflect.Slice:
		for i := range v.Len() {
			walkValue(v.Index(i), fmt.Sprintf("%s[%d]", path, i), text, amount)
		}
	}
}

// StorageFindings names every string of d the database cannot store as it
// is (a NUL character, invalid UTF-8, more than storable.MaxText bytes) and
// every number of d the ledger cannot hold (money.Ledger). ValidateAt
// includes them.
func StorageFindings(d Document) []Finding {
	var fs []Finding
	walk(&d, func(path string, s *string) {
		switch p := storable.Problem(*s, storable.MaxText); {
		case p == "":
		case len(*s) > storable.MaxText && storable.OK(*s, 0):
			fs = append(fs, Finding{Code: CodeTextTooLong, Severity: SeverityFatal, Field: path, Message: path + " " + p})
		default:
			fs = append(fs, Finding{Code: CodeUnstorableText, Severity: SeverityFatal, Field: path, Message: path + " " + p})
		}
	}, func(path string, v decimal.Decimal) {
		if !money.Ledger.Fits(v) {
			fs = append(fs, Finding{Code: CodeAmountOutOfRange, Severity: SeverityFatal, Field: path,
				Message: fmt.Sprintf("%s has %d digits before the decimal point; the ledger holds %s", path, integerDigits(v), money.Ledger.Describe())})
		}
	})
	if id, ok := d.SellerIdentity(); ok && len(id) > storable.MaxKey {
		fs = append(fs, Finding{Code: CodeTextTooLong, Severity: SeverityFatal, Field: "seller",
			Message: fmt.Sprintf("the seller's identity is %d bytes long; the ledger's supplier dimension holds %d", len(id), storable.MaxKey)})
	}
	if ref := d.SourceRef(); len(ref) > storable.MaxText {
		fs = append(fs, Finding{Code: CodeTextTooLong, Severity: SeverityFatal, Field: "number",
			Message: fmt.Sprintf("the document's reference (seller and number) is %d bytes long once normalised, more than the %d allowed", len(ref), storable.MaxText)})
	}
	return fs
}

// MakeStorable returns d with every string made storable (storable.Clean:
// a NUL or an invalid byte becomes U+FFFD, a text over storable.MaxText is
// cut), so a document whose text the database refuses is still filed, with
// StorageFindings saying what was changed, and a reviewer can read it.
func MakeStorable(d Document) Document {
	d.Lines = slices.Clone(d.Lines)
	d.TaxSubtotals = slices.Clone(d.TaxSubtotals)
	walk(&d, func(_ string, s *string) { *s = storable.Clean(*s, storable.MaxText) }, nil)
	return d
}

func integerDigits(v decimal.Decimal) int {
	s := v.Abs().Truncate(0).String()
	return len(s)
}
