package typewriter

import (
	"bytes"
	"fmt"
	"time"

	"codeberg.org/go-pdf/fpdf"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/cii"
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
	ciiXML, err := cii.Build(d)
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
	pdf.SetAttachments([]fpdf.Attachment{{Content: ciiXML, Filename: "factur-x.xml", Description: "EN 16931 invoice data (CII)"}})
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.SetMargins(18, 18, 18)
	pdf.AddPage()

	s := sheet{pdf: pdf, tr: tr, minor: int32(2)}
	if c, ok := money.Lookup(d.Currency); ok {
		s.minor = c.MinorUnits
	}
	s.heading(d)
	s.lines(d)
	s.totals(d)
	pdf.Ln(6)
	pdf.SetFont("Helvetica", "I", 8)
	pdf.MultiCell(0, 4, tr("Composed in GreatBook Intake. The invoice data is embedded in this PDF as factur-x.xml (EN 16931 CII)."), "", "L", false)

	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("typewriter: render PDF: %w", err)
	}
	return buf.Bytes(), nil
}

// sheet is the page Render draws on: the PDF, its text encoding and the currency's minor units.
type sheet struct {
	pdf   *fpdf.Fpdf
	tr    func(string) string
	minor int32
}

func (s sheet) amount(v interface{ StringFixed(int32) string }) string { return v.StringFixed(s.minor) }

// heading draws the document's kind, number and dates, and the two parties side by side.
func (s sheet) heading(d einvoice.Document) {
	kind := "INVOICE"
	if d.Type == einvoice.TypeCreditNote {
		kind = "CREDIT NOTE"
	}
	s.pdf.SetFont("Helvetica", "B", 18)
	s.pdf.CellFormat(0, 10, s.tr(kind), "", 1, "L", false, 0, "")
	s.pdf.SetFont("Helvetica", "", 10)
	s.pdf.CellFormat(0, 6, s.tr(fmt.Sprintf("Number %s   Issued %s   Due %s", d.Number, d.IssueDate, orDash(d.DueDate))), "", 1, "L", false, 0, "")
	if d.BillingReference != "" {
		s.pdf.CellFormat(0, 6, s.tr("Refers to invoice "+d.BillingReference), "", 1, "L", false, 0, "")
	}
	s.pdf.Ln(4)
	y := s.pdf.GetY()
	party := func(x float64, title string, p einvoice.Party) {
		s.pdf.SetXY(x, y)
		s.pdf.SetFont("Helvetica", "B", 10)
		s.pdf.CellFormat(80, 6, s.tr(title), "", 2, "L", false, 0, "")
		s.pdf.SetFont("Helvetica", "", 10)
		s.pdf.CellFormat(80, 5, s.tr(p.Name), "", 2, "L", false, 0, "")
		if p.VATID != "" {
			s.pdf.CellFormat(80, 5, s.tr("VAT "+p.VATID), "", 2, "L", false, 0, "")
		}
	}
	party(18, "Seller", d.Seller)
	party(110, "Buyer", d.Buyer)
	s.pdf.SetXY(18, y+24)
}

// lines draws the table of invoice lines.
func (s sheet) lines(d einvoice.Document) {
	s.pdf.SetFont("Helvetica", "B", 9)
	widths := []float64{80, 20, 28, 16, 30}
	for i, h := range []string{"Description", "Quantity", "Unit price", "VAT %", "Net " + d.Currency} {
		align := "R"
		if i == 0 {
			align = "L"
		}
		s.pdf.CellFormat(widths[i], 7, s.tr(h), "B", 0, align, false, 0, "")
	}
	s.pdf.Ln(-1)
	s.pdf.SetFont("Helvetica", "", 9)
	for _, l := range d.Lines {
		cells := []string{l.Description, l.Quantity.String(), s.amount(l.UnitPrice), l.TaxRate.String(), s.amount(l.Net)}
		for i, c := range cells {
			align := "R"
			if i == 0 {
				align = "L"
			}
			s.pdf.CellFormat(widths[i], 6, s.tr(c), "", 0, align, false, 0, "")
		}
		s.pdf.Ln(-1)
	}
}

// totals draws the net, each VAT subtotal and the amount payable.
func (s sheet) totals(d einvoice.Document) {
	s.pdf.Ln(3)
	total := func(label string, v interface{ StringFixed(int32) string }, bold bool) {
		style := ""
		if bold {
			style = "B"
		}
		s.pdf.SetFont("Helvetica", style, 10)
		s.pdf.CellFormat(144, 6, s.tr(label), "", 0, "R", false, 0, "")
		s.pdf.CellFormat(30, 6, s.tr(s.amount(v)), "", 1, "R", false, 0, "")
	}
	total("Net", d.Totals.Net, false)
	for _, st := range d.TaxSubtotals {
		total(fmt.Sprintf("VAT %s%% on %s", st.Rate.String(), s.amount(st.Taxable)), st.Tax, false)
	}
	total("Payable "+d.Currency, d.Totals.Payable, true)
	if d.PayeeIBAN != "" {
		pay := "Pay to IBAN " + d.PayeeIBAN
		if d.PayeeBIC != "" {
			pay += ", BIC " + d.PayeeBIC
		}
		s.pdf.SetFont("Helvetica", "", 9)
		s.pdf.CellFormat(174, 6, s.tr(pay), "", 1, "R", false, 0, "")
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
