package webtest

import (
	"bytes"
	"testing"

	"codeberg.org/go-pdf/fpdf"
)

// PlainInvoice is a PDF invoice with a text layer and no e-invoice inside,
// as an accounting program prints one: the supplier's name and address,
// then rows of label and value. The text reading reads it.
func PlainInvoice(t *testing.T, rows [][2]string) []byte {
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
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// GermanInvoice is a plain PDF invoice of Lieferant GmbH (VAT id
// DE123456789) in German, its number under numberLabel: "Beleg:" is no
// label the reader knows, so that number is read only by a learned layout.
func GermanInvoice(t *testing.T, numberLabel, number, date, net, tax, total string) []byte {
	return PlainInvoice(t, [][2]string{
		{"USt-IdNr.:", "DE123456789"},
		{numberLabel, number},
		{"Rechnungsdatum:", date},
		{"An:", "Kunden AG Mitte"},
		{"Nettobetrag:", net + " EUR"},
		{"MwSt. 19 %:", tax + " EUR"},
		{"Gesamtbetrag:", total + " EUR"},
		{"IBAN:", "DE02120300000000202051"},
	})
}

// FiledPDF uploads a PDF through the API and waits for the clerk to file
// it with status.
func FiledPDF(t *testing.T, c *APIClient, content []byte, status string) int64 {
	t.Helper()
	code, body := c.Do("POST", "/api/v1/documents", "application/pdf", content)
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	id := body["intake_id"].(float64)
	c.WaitStatus(id, status)
	return int64(id)
}
