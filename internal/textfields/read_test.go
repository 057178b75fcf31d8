package textfields

import (
	"slices"
	"testing"
	"time"

	"greatbook/internal/einvoice"
	"greatbook/internal/pagetext"
)

// want is what a test expects read: the fields' values (amounts as
// money.Canonical writes them) and, when set, the lines' count.
type want struct {
	lang    string
	fields  map[string]string
	lines   int
	credit  bool
	certain bool
	// doubtful are fields read right but rightly below Certain (a check
	// digit that fails on a made-up id).
	doubtful []string
}

func englishInvoice() pagetext.Text {
	return doc(page(1,
		placed{0.05, 0.05, "ACME Supplies Ltd"},
		placed{0.05, 0.065, "1 High Street, London"},
		placed{0.6, 0.05, "INVOICE"},
		placed{0.6, 0.10, "Invoice No: INV-2026-0042"},
		placed{0.6, 0.12, "Invoice Date: 2 January 2026"},
		placed{0.6, 0.14, "Due Date: 01/02/2026"},
		placed{0.05, 0.20, "Bill to:"},
		placed{0.05, 0.215, "Widget Buyers Ltd"},
		placed{0.05, 0.23, "VAT No: GB987654321"},
		placed{0.05, 0.30, "Description"}, placed{0.5, 0.30, "Qty"}, placed{0.6, 0.30, "Unit price"}, placed{0.8, 0.30, "Amount"},
		placed{0.05, 0.32, "Consulting services"}, placed{0.5, 0.32, "10"}, placed{0.6, 0.32, "£100.00"}, placed{0.8, 0.32, "£1,000.00"},
		placed{0.05, 0.34, "Travel"}, placed{0.5, 0.34, "1"}, placed{0.6, 0.34, "£234.56"}, placed{0.8, 0.34, "£234.56"},
		placed{0.6, 0.40, "Subtotal"}, placed{0.8, 0.40, "£1,234.56"},
		placed{0.6, 0.42, "VAT 20%"}, placed{0.8, 0.42, "£246.91"},
		placed{0.6, 0.44, "Total due"}, placed{0.8, 0.44, "£1,481.47"},
		placed{0.05, 0.90, "VAT No: GB123456789"},
		placed{0.05, 0.92, "IBAN: GB33 BUKB 2020 1555 5555 55"},
	))
}

func germanInvoice() pagetext.Text {
	return doc(page(1,
		placed{0.05, 0.05, "Muster GmbH · Hauptstr. 1 · 10115 Berlin"},
		placed{0.05, 0.12, "Rechnungsempfänger"},
		placed{0.05, 0.135, "Beispiel AG"},
		placed{0.05, 0.15, "USt-IdNr.: DE811191002"},
		placed{0.6, 0.12, "Rechnungsnummer: RE-4711"},
		placed{0.6, 0.14, "Rechnungsdatum: 2. Januar 2026"},
		placed{0.6, 0.16, "Fällig am: 16.01.2026"},
		placed{0.05, 0.22, "Rechnung"},
		placed{0.05, 0.30, "Pos."}, placed{0.1, 0.30, "Bezeichnung"}, placed{0.5, 0.30, "Menge"}, placed{0.6, 0.30, "Einzelpreis"}, placed{0.8, 0.30, "Gesamt"},
		placed{0.05, 0.32, "1"}, placed{0.1, 0.32, "Beratung"}, placed{0.5, 0.32, "2"}, placed{0.6, 0.32, "1.000,00 €"}, placed{0.8, 0.32, "2.000,00 €"},
		placed{0.6, 0.40, "Nettobetrag"}, placed{0.8, 0.40, "2.000,00 €"},
		placed{0.6, 0.42, "MwSt. 19 %"}, placed{0.8, 0.42, "380,00 €"},
		placed{0.6, 0.44, "Gesamtbetrag"}, placed{0.8, 0.44, "2.380,00 €"},
		placed{0.05, 0.90, "Muster GmbH"}, placed{0.4, 0.90, "USt-IdNr.: DE136695976"},
		placed{0.05, 0.92, "IBAN: DE89 3704 0044 0532 0130 00"},
	))
}

func frenchInvoice() pagetext.Text {
	return doc(page(1,
		placed{0.05, 0.05, "Dupont SARL"},
		placed{0.6, 0.05, "Facture"},
		placed{0.6, 0.10, "Facture n° F-2026-001"},
		placed{0.6, 0.12, "Date de facture : 2 janvier 2026"},
		placed{0.6, 0.14, "Échéance : 01/02/2026"},
		placed{0.05, 0.20, "Client"},
		placed{0.05, 0.215, "Martin SA"},
		placed{0.05, 0.30, "Désignation"}, placed{0.5, 0.30, "Quantité"}, placed{0.62, 0.30, "Prix unitaire"}, placed{0.8, 0.30, "Montant HT"},
		placed{0.05, 0.32, "Maintenance annuelle"}, placed{0.5, 0.32, "1"}, placed{0.62, 0.32, "1\u202f234,56"}, placed{0.8, 0.32, "1\u202f234,56"},
		placed{0.6, 0.40, "Total HT"}, placed{0.8, 0.40, "1\u202f234,56 €"},
		placed{0.6, 0.42, "TVA 20 %"}, placed{0.8, 0.42, "246,91 €"},
		placed{0.6, 0.44, "Total TTC"}, placed{0.8, 0.44, "1 481,47 €"},
		placed{0.05, 0.90, "N° TVA : FR40303265045"},
		placed{0.05, 0.92, "IBAN FR14 2004 1010 0505 0001 3M02 606"},
	))
}

func dutchInvoice() pagetext.Text {
	return doc(page(1,
		placed{0.05, 0.05, "Jansen BV"},
		placed{0.6, 0.05, "Factuur"},
		placed{0.6, 0.10, "Factuurnummer: 2026-015"},
		placed{0.6, 0.12, "Factuurdatum: 2 januari 2026"},
		placed{0.6, 0.14, "Vervaldatum: 16-01-2026"},
		placed{0.05, 0.30, "Omschrijving"}, placed{0.5, 0.30, "Aantal"}, placed{0.6, 0.30, "Prijs"}, placed{0.8, 0.30, "Bedrag"},
		placed{0.05, 0.32, "Advies"}, placed{0.5, 0.32, "1"}, placed{0.6, 0.32, "€ 1.234,56"}, placed{0.8, 0.32, "€ 1.234,56"},
		placed{0.6, 0.40, "Subtotaal"}, placed{0.8, 0.40, "€ 1.234,56"},
		placed{0.6, 0.42, "BTW 21%"}, placed{0.8, 0.42, "€ 259,26"},
		placed{0.6, 0.44, "Te betalen"}, placed{0.8, 0.44, "€ 1.493,82"},
		placed{0.05, 0.90, "BTW-nummer: NL004495445B01"},
		placed{0.05, 0.92, "IBAN: NL91 ABNA 0417 1643 00"},
	))
}

func TestReadFirstSight(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text pagetext.Text
		want want
	}{
		{"english", englishInvoice(), want{lang: "en", lines: 2, certain: true, fields: map[string]string{
			FieldNumber: "INV-2026-0042", FieldIssueDate: "2026-01-02", FieldDueDate: "2026-02-01", FieldCurrency: "GBP",
			FieldNet: "1234.56", FieldTax: "246.91", FieldPayable: "1481.47", FieldSellerVAT: "GB123456789",
			FieldIBAN: "GB33BUKB20201555555555", FieldSellerName: "ACME Supplies Ltd", FieldBuyerName: "Widget Buyers Ltd"}}},
		{"german", germanInvoice(), want{lang: "de", lines: 1, certain: true, fields: map[string]string{
			FieldNumber: "RE-4711", FieldIssueDate: "2026-01-02", FieldDueDate: "2026-01-16", FieldCurrency: "EUR",
			FieldNet: "2000", FieldTax: "380", FieldPayable: "2380", FieldSellerVAT: "DE136695976",
			FieldIBAN: "DE89370400440532013000", FieldSellerName: "Muster GmbH", FieldBuyerName: "Beispiel AG"}}},
		{"french", frenchInvoice(), want{lang: "fr", lines: 1, certain: true, fields: map[string]string{
			FieldNumber: "F-2026-001", FieldIssueDate: "2026-01-02", FieldDueDate: "2026-02-01", FieldCurrency: "EUR",
			FieldNet: "1234.56", FieldTax: "246.91", FieldPayable: "1481.47", FieldSellerVAT: "FR40303265045",
			FieldIBAN: "FR1420041010050500013M02606", FieldSellerName: "Dupont SARL", FieldBuyerName: "Martin SA"}}},
		{"dutch", dutchInvoice(), want{lang: "nl", lines: 1, certain: true, fields: map[string]string{
			FieldNumber: "2026-015", FieldIssueDate: "2026-01-02", FieldDueDate: "2026-01-16", FieldCurrency: "EUR",
			FieldNet: "1234.56", FieldTax: "259.26", FieldPayable: "1493.82", FieldSellerVAT: "NL004495445B01",
			FieldIBAN: "NL91ABNA0417164300", FieldSellerName: "Jansen BV"}}},
		{"american", doc(page(1,
			placed{0.05, 0.05, "Stars Inc"},
			placed{0.6, 0.10, "Invoice #: 1001"},
			placed{0.6, 0.12, "Date: 01/02/2026"},
			placed{0.6, 0.40, "Subtotal"}, placed{0.8, 0.40, "$1,000.00"},
			placed{0.6, 0.42, "Sales Tax"}, placed{0.8, 0.42, "$80.00"},
			placed{0.6, 0.44, "Amount due"}, placed{0.8, 0.44, "USD 1,080.00"},
		)), want{lang: "en", certain: true, fields: map[string]string{
			FieldNumber: "1001", FieldIssueDate: "2026-01-02", FieldCurrency: "USD", FieldNet: "1000", FieldTax: "80", FieldPayable: "1080"}}},
		{"number glued to its hash after the title", doc(page(1,
			placed{0.05, 0.05, "INVOICE #A-2041"},
			placed{0.6, 0.10, "Date: 3 February 2026"},
			placed{0.6, 0.44, "Total due"}, placed{0.8, 0.44, "€1,250.00"},
		)), want{lang: "en", certain: true, fields: map[string]string{
			FieldNumber: "A-2041", FieldIssueDate: "2026-02-03", FieldCurrency: "EUR", FieldPayable: "1250"}}},
		{"german credit note, labels above values", doc(page(1,
			placed{0.05, 0.05, "Gutschrift"},
			placed{0.05, 0.10, "Gutschrift-Nr."}, placed{0.3, 0.10, "Datum"}, placed{0.5, 0.10, "Währung"},
			placed{0.05, 0.12, "G-77"}, placed{0.3, 0.12, "15.03.2026"}, placed{0.5, 0.12, "EUR"},
			placed{0.6, 0.44, "Zahlbetrag"}, placed{0.8, 0.44, "119,00"},
		)), want{lang: "de", credit: true, certain: true, fields: map[string]string{
			FieldNumber: "G-77", FieldIssueDate: "2026-03-15", FieldCurrency: "EUR", FieldPayable: "119"}}},
	}
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := readAt(tt.text, nil, now)
			checkReading(t, r, tt.want)
		})
	}
}

func checkReading(t *testing.T, r Reading, w want) {
	t.Helper()
	for f, v := range w.fields {
		if got := r.Fields[f].Value; got != v {
			t.Errorf("%s = %q, want %q (confidence %.2f, label %q)", f, got, v, r.Fields[f].Confidence, r.Fields[f].Label)
		}
	}
	if w.lang != "" && r.Language != w.lang {
		t.Errorf("language = %q, want %q", r.Language, w.lang)
	}
	if w.lines > 0 && len(r.Document.Lines) != w.lines {
		t.Errorf("lines = %+v, want %d", r.Document.Lines, w.lines)
	}
	wantType := einvoice.TypeInvoice
	if w.credit {
		wantType = einvoice.TypeCreditNote
	}
	if r.Document.Type != wantType {
		t.Errorf("type = %s, want %s", r.Document.Type, wantType)
	}
	if w.certain && !r.Certain() {
		t.Errorf("not certain: uncertain %v, fields %+v", r.Uncertain, r.Fields)
	}
	for f, v := range w.fields {
		if f == FieldSellerName || f == FieldBuyerName || slices.Contains(w.doubtful, f) {
			continue
		}
		if c := r.Fields[f].Confidence; c < Certain && w.certain {
			t.Errorf("%s = %q read with confidence %.2f, want at least %.2f", f, v, c, Certain)
		}
	}
	for _, f := range r.Fields {
		if f.Box.X0 < 0 || f.Box.X1 > 1 || f.Box.Y0 < 0 || f.Box.Y1 > 1 {
			t.Errorf("box %+v outside the page", f.Box)
		}
	}
	if slices.Contains(r.Uncertain, "") {
		t.Errorf("uncertain names an empty field: %v", r.Uncertain)
	}
}
