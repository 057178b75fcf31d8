package textfields

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/pagetext"
)

// invoiceValues are one invoice's values, printed by a supplier's layout.
type invoiceValues struct {
	number      string
	issue, due  time.Time
	net, tax    decimal.Decimal
	vatID, iban string
	shift       float64 // how far the next invoice's body moved down
}

func (v invoiceValues) payable() decimal.Decimal { return v.net.Add(v.tax) }

// document is what a person confirms for the invoice.
func (v invoiceValues) document(currency string) einvoice.Document {
	d := einvoice.Document{Number: v.number, IssueDate: v.issue.Format(time.DateOnly), Currency: currency, PayeeIBAN: v.iban}
	if !v.due.IsZero() {
		d.DueDate = v.due.Format(time.DateOnly)
	}
	d.Seller.VATID = v.vatID
	d.Totals.Net, d.Totals.Tax, d.Totals.Payable = v.net, v.tax, v.payable()
	return d
}

// german prints an amount as 1.234,56; english as 1,234.56.
func german(d decimal.Decimal) string {
	s := english(d)
	return strings.NewReplacer(",", ".", ".", ",").Replace(s)
}

func english(d decimal.Decimal) string {
	s := d.StringFixed(2)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + "." + frac
}

// supplierLayout prints an invoice's values the way one supplier does.
type supplierLayout struct {
	name            string
	currency        string
	print           func(v invoiceValues) pagetext.Text
	firstSightFails bool
}

var supplierLayouts = []supplierLayout{
	{
		// Labels the generic reader does not know.
		name: "beleg", currency: "EUR", firstSightFails: true,
		print: func(v invoiceValues) pagetext.Text {
			s := v.shift
			return doc(page(1,
				placed{0.05, 0.04, "Holzbau Krause KG"},
				placed{0.6, 0.10 + s, "Beleg-Nr.: " + v.number},
				placed{0.6, 0.12 + s, "Belegdatum: " + v.issue.Format("02.01.2006")},
				placed{0.6, 0.14 + s, "Zahlungsfrist: " + v.due.Format("02.01.2006")},
				placed{0.05, 0.30 + s, "Arbeiten laut Aufstellung"},
				placed{0.55, 0.50 + s, "Warenwert"}, placed{0.8, 0.50 + s, german(v.net) + " €"},
				placed{0.55, 0.52 + s, "Steueranteil"}, placed{0.8, 0.52 + s, german(v.tax) + " €"},
				placed{0.55, 0.54 + s, "Zu überweisen"}, placed{0.8, 0.54 + s, german(v.payable()) + " €"},
				placed{0.05, 0.92, "Steuer-ID " + v.vatID + "   Konto " + v.iban},
			))
		},
	},
	{
		// An English-French layout with a label first sight does not know
		// and the values far right of their labels.
		name: "ref document", currency: "EUR", firstSightFails: true,
		print: func(v invoiceValues) pagetext.Text {
			s := v.shift
			return doc(page(1,
				placed{0.05, 0.04, "Bureau Lefèvre SAS"},
				placed{0.05, 0.10 + s, "Ref. document"}, placed{0.75, 0.10 + s, v.number},
				placed{0.05, 0.12 + s, "Issued"}, placed{0.75, 0.12 + s, v.issue.Format("2 January 2006")},
				placed{0.05, 0.40 + s, "Amount before levies"}, placed{0.85, 0.40 + s, "EUR " + english(v.net)},
				placed{0.05, 0.42 + s, "Levies"}, placed{0.85, 0.42 + s, "EUR " + english(v.tax)},
				placed{0.05, 0.44 + s, "To settle"}, placed{0.85, 0.44 + s, "EUR " + english(v.payable())},
				placed{0.05, 0.90, "Ident. " + v.vatID},
				placed{0.05, 0.92, "Bank " + v.iban},
			))
		},
	},
	{
		// Values without labels, in fixed places, and labels a row above
		// their values more than a few lines away.
		name: "unlabelled boxes", currency: "CHF", firstSightFails: true,
		print: func(v invoiceValues) pagetext.Text {
			s := v.shift
			return doc(page(1,
				placed{0.05, 0.04, "Alpenwerk AG"},
				placed{0.75, 0.06 + s, v.number},
				placed{0.75, 0.08 + s, v.issue.Format("02.01.2006")},
				placed{0.05, 0.60 + s, "Netto"}, placed{0.3, 0.60 + s, "MWST"}, placed{0.55, 0.60 + s, "Zu bezahlen"},
				placed{0.05, 0.70 + s, "CHF " + english(v.net)}, placed{0.3, 0.70 + s, "CHF " + english(v.tax)}, placed{0.55, 0.70 + s, "CHF " + english(v.payable())},
				placed{0.05, 0.90, v.vatID},
				placed{0.05, 0.92, v.iban},
			))
		},
	},
	{
		// A layout first sight reads: learning must keep it read.
		name: "plain english", currency: "GBP",
		print: func(v invoiceValues) pagetext.Text {
			s := v.shift
			return doc(page(1,
				placed{0.05, 0.04, "Thames Tools Ltd"},
				placed{0.6, 0.10 + s, "Invoice number: " + v.number},
				placed{0.6, 0.12 + s, "Invoice date: " + v.issue.Format("02/01/2006")},
				placed{0.6, 0.14 + s, "Due date: " + v.due.Format("02/01/2006")},
				placed{0.6, 0.40 + s, "Net"}, placed{0.8, 0.40 + s, "£" + english(v.net)},
				placed{0.6, 0.42 + s, "VAT"}, placed{0.8, 0.42 + s, "£" + english(v.tax)},
				placed{0.6, 0.44 + s, "Total"}, placed{0.8, 0.44 + s, "£" + english(v.payable())},
				placed{0.05, 0.90, "VAT reg no: " + v.vatID},
				placed{0.05, 0.92, "IBAN: " + v.iban},
			))
		},
	},
}

func TestLearnThenReadTheNextInvoice(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	day := func(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	vat := map[string][2]string{
		"beleg":            {"DE136695976", "DE136695976"},
		"ref document":     {"FR40303265045", "FR40303265045"},
		"unlabelled boxes": {"CHE-116.281.710 MWST", "CHE-116.281.710 MWST"},
		"plain english":    {"GB123456789", "GB123456789"},
	}
	iban := map[string]string{
		"beleg": "DE89 3704 0044 0532 0130 00", "ref document": "FR14 2004 1010 0505 0001 3M02 606",
		"unlabelled boxes": "CH93 0076 2011 6238 5295 7", "plain english": "GB33 BUKB 2020 1555 5555 55",
	}
	for _, sl := range supplierLayouts {
		t.Run(sl.name, func(t *testing.T) {
			t.Parallel()
			first := invoiceValues{number: "A-100", issue: day(2026, 3, 2), due: day(2026, 4, 1),
				net: decimal.RequireFromString("1000.00"), tax: decimal.RequireFromString("190.00"), vatID: vat[sl.name][0], iban: iban[sl.name]}
			next := invoiceValues{number: "A-100234", issue: day(2026, 11, 28), due: day(2026, 12, 28),
				net: decimal.RequireFromString("23456.70"), tax: decimal.RequireFromString("4456.77"), vatID: vat[sl.name][1], iban: iban[sl.name], shift: 0.01}

			layout := Learn(sl.print(first), first.document(sl.currency))
			for _, f := range []string{FieldNumber, FieldIssueDate, FieldNet, FieldTax, FieldPayable, FieldSellerVAT, FieldIBAN} {
				if _, ok := layout.Fields[f]; !ok {
					t.Errorf("learned no place for %s: %+v", f, layout.Fields)
				}
			}
			text := sl.print(next)
			if sl.firstSightFails {
				if r := readAt(text, nil, now); r.Certain() && r.Fields[FieldNumber].Value == next.number && r.Fields[FieldPayable].Value == next.payable().String() {
					t.Errorf("first sight reads this layout already; it does not test learning")
				}
			}
			r := readAt(text, &layout, now)
			wantFields := map[string]string{
				FieldNumber: next.number, FieldIssueDate: next.issue.Format(time.DateOnly), FieldCurrency: sl.currency,
				FieldNet: next.net.String(), FieldTax: next.tax.String(), FieldPayable: next.payable().String(),
				FieldSellerVAT: normaliseVATID(next.vatID), FieldIBAN: strings.ReplaceAll(next.iban, " ", ""),
			}
			checkReading(t, r, want{certain: true, fields: wantFields})
			if !r.Layout {
				t.Errorf("reading does not say a layout was used")
			}
			if r.SupplierKey != normaliseVATID(next.vatID) {
				t.Errorf("supplier key = %q, want %q", r.SupplierKey, normaliseVATID(next.vatID))
			}
			if t.Failed() {
				t.Logf("layout: %s", fmt.Sprintf("%+v", layout.Fields))
			}
		})
	}
}
