package typewriter

import (
	"bytes"
	"fmt"
	"time"

	"codeberg.org/go-pdf/fpdf"

	"greatbook/internal/einvoice"
	"greatbook/internal/money"
)

// epoch is the fixed date every rendered PDF carries, so that a version
// always renders to the same bytes (and hash).
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Render draws a document as a one-page (or more) PDF invoice carrying the
// document as an embedded EN 16931 CII file (the Factur-X idea), which the
// intake pipeline's extractor reads back. The same document renders to the
// same bytes.
func Render(d einvoice.Document) ([]byte, error) {
	cii, err := einvoice.BuildCII(d)
	if err != nil {
		return nil, fmt.Errorf("typewriter: build CII: %w", err)
	}
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(epoch)
	pdf.SetModificationDate(epoch)
	pdf.SetCatalogSort(true)
	pdf.SetProducer("GreatBook Intake typewriter", true)
	pdf.SetCreator("GreatBook Intake", true)
	pdf.SetTitle(d.Number, true)
	pdf.SetAttachments([]fpdf.Attachment{{Content: cii, Filename: "factur-x.xml", Description: "EN 16931 invoice data (CII)"}})
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.SetMargins(18, 18, 18)
	pdf.AddPage()

	kind := "INVOICE"
	if d.Type == einvoice.TypeCreditNote {
		kind = "CREDIT NOTE"
	}
	pdf.SetFont("Helvetica", "B", 18)
	pdf.CellFormat(0, 10, tr(kind), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	pdf.CellFormat(0, 6, tr(fmt.Sprintf("Number %s   Issued %s   Due %s", d.Number, d.IssueDate, orDash(d.DueDate))), "", 1, "L", false, 0, "")
	if d.BillingReference != "" {
		pdf.CellFormat(0, 6, tr("Refers to invoice "+d.BillingReference), "", 1, "L", false, 0, "")
	}
	pdf.Ln(4)
	y := pdf.GetY()
	party := func(x float64, title string, p einvoice.Party) {
		pdf.SetXY(x, y)
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(80, 6, tr(title), "", 2, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		pdf.CellFormat(80, 5, tr(p.Name), "", 2, "L", false, 0, "")
		if p.VATID != "" {
			pdf.CellFormat(80, 5, tr("VAT "+p.VATID), "", 2, "L", false, 0, "")
		}
	}
	party(18, "Seller", d.Seller)
	party(110, "Buyer", d.Buyer)
	pdf.SetXY(18, y+24)

	minor := int32(2)
	if c, ok := money.Lookup(d.Currency); ok {
		minor = c.MinorUnits
	}
	amount := func(v interface{ StringFixed(int32) string }) string { return v.StringFixed(minor) }
	pdf.SetFont("Helvetica", "B", 9)
	widths := []float64{80, 20, 28, 16, 30}
	for i, h := range []string{"Description", "Quantity", "Unit price", "VAT %", "Net " + d.Currency} {
		align := "R"
		if i == 0 {
			align = "L"
		}
		pdf.CellFormat(widths[i], 7, tr(h), "B", 0, align, false, 0, "")
	}
	pdf.Ln(-1)
	pdf.SetFont("Helvetica", "", 9)
	for _, l := range d.Lines {
		cells := []string{l.Description, l.Quantity.String(), amount(l.UnitPrice), l.TaxRate.String(), amount(l.Net)}
		for i, c := range cells {
			align := "R"
			if i == 0 {
				align = "L"
			}
			pdf.CellFormat(widths[i], 6, tr(c), "", 0, align, false, 0, "")
		}
		pdf.Ln(-1)
	}
	pdf.Ln(3)
	total := func(label string, v interface{ StringFixed(int32) string }, bold bool) {
		style := ""
		if bold {
			style = "B"
		}
		pdf.SetFont("Helvetica", style, 10)
		pdf.CellFormat(144, 6, tr(label), "", 0, "R", false, 0, "")
		pdf.CellFormat(30, 6, tr(amount(v)), "", 1, "R", false, 0, "")
	}
	total("Net", d.Totals.Net, false)
	for _, st := range d.TaxSubtotals {
		total(fmt.Sprintf("VAT %s%% on %s", st.Rate.String(), amount(st.Taxable)), st.Tax, false)
	}
	total("Payable "+d.Currency, d.Totals.Payable, true)
	pdf.Ln(6)
	pdf.SetFont("Helvetica", "I", 8)
	pdf.MultiCell(0, 4, tr("Composed in GreatBook Intake. The invoice data is embedded in this PDF as factur-x.xml (EN 16931 CII)."), "", "L", false)

	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("typewriter: render PDF: %w", err)
	}
	return buf.Bytes(), nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
