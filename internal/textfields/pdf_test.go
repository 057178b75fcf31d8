package textfields

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/pagetext"
)

// printedInvoice prints rows of label and value to a PDF, as an accounting
// program does, and reads its words back with pdftotext.
func printedInvoice(t *testing.T, rows [][2]string) pagetext.Text {
	t.Helper()
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCompression(false)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.SetFont("Helvetica", "B", 14)
	pdf.Cell(0, 10, tr("Lieferant GmbH"))
	pdf.Ln(8)
	pdf.SetFont("Helvetica", "", 10)
	pdf.Cell(0, 6, tr("Lieferantenstraße 20, 80333 München"))
	pdf.Ln(12)
	for _, r := range rows {
		pdf.Cell(60, 7, tr(r[0]))
		pdf.Cell(60, 7, tr(r[1]))
		pdf.Ln(7)
	}
	path := filepath.Join(t.TempDir(), "invoice.pdf")
	if err := pdf.OutputFileAndClose(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	return pdfText(t, path)
}

func belegInvoice(t *testing.T, number, date, net, tax, total string) pagetext.Text {
	return printedInvoice(t, [][2]string{
		{"USt-IdNr.:", "DE136695976"},
		{"Beleg:", number},
		{"Rechnungsdatum:", date},
		{"An:", "Kunden AG Mitte"},
		{"Nettobetrag:", net + " EUR"},
		{"MwSt. 19 %:", tax + " EUR"},
		{"Gesamtbetrag:", total + " EUR"},
		{"IBAN:", "DE02120300000000202051"},
	})
}

func TestLearnFromAPrintedPDF(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	first := belegInvoice(t, "BX-1001", "03.02.2025", "100,00", "19,00", "119,00")
	r := readAt(first, nil, now)
	if _, ok := r.Fields[FieldNumber]; ok || r.Certain() {
		t.Fatalf("first sight read the number by an unknown label: %+v", r.Fields[FieldNumber])
	}
	checkReading(t, r, want{lang: "de", fields: map[string]string{FieldIssueDate: "2025-02-03", FieldCurrency: "EUR",
		FieldNet: "100", FieldTax: "19", FieldPayable: "119", FieldSellerVAT: "DE136695976", FieldIBAN: "DE02120300000000202051",
		FieldSellerName: "Lieferant GmbH"}})

	confirmed := r.Document
	confirmed.Number = "BX-1001"
	layout := Learn(first, confirmed)
	if a := layout.Fields[FieldNumber]; a.Label != "Beleg:" {
		t.Fatalf("learned number anchor %+v", a)
	}

	second := belegInvoice(t, "BX-1002", "10.03.2025", "1.200,00", "228,00", "1.428,00")
	r = readAt(second, &layout, now)
	checkReading(t, r, want{certain: true, fields: map[string]string{FieldNumber: "BX-1002", FieldIssueDate: "2025-03-10",
		FieldCurrency: "EUR", FieldNet: "1200", FieldTax: "228", FieldPayable: "1428", FieldSellerVAT: "DE136695976"}})
	if !r.Document.Totals.Payable.Equal(decimal.RequireFromString("1428")) || r.Document.Type != einvoice.TypeInvoice {
		t.Errorf("document %+v", r.Document)
	}
}
