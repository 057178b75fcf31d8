package specimen

import (
	"bytes"
	"fmt"

	"codeberg.org/go-pdf/fpdf"
)

// Plain is a PDF invoice with a text layer and no e-invoice inside, as an
// accounting program prints one: Lieferant GmbH's name and address, then
// rows of label and value.
func Plain(rows [][2]string) ([]byte, error) {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCompression(false)
	pdf.SetCreationDate(epoch)
	pdf.SetModificationDate(epoch)
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
		return nil, fmt.Errorf("specimen: plain invoice: %w", err)
	}
	return buf.Bytes(), nil
}

// PlainGerman is a Plain invoice of Lieferant GmbH (VAT id DE123456789) in
// German, its number under numberLabel: "Beleg:" is no label the reader
// knows, so that number is read only by a learned layout.
func PlainGerman(numberLabel, number, date, net, tax, total string) ([]byte, error) {
	return Plain([][2]string{
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
