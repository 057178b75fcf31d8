package specimen

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
)

// epoch is the date every specimen PDF carries, so that the same values
// render to the same bytes.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	pageWidth, pageHeight = 210.0, 297.0
	margin                = 18.0
	contentWidth          = pageWidth - 2*margin
	bottom                = pageHeight - 24 // the footer's top
)

// Render draws d in layout l as a PDF with a text layer and nothing
// embedded: what a supplier's accounting program prints, not an e-invoice.
func Render(l Layout, d einvoice.Document) ([]byte, error) {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(epoch)
	pdf.SetModificationDate(epoch)
	pdf.SetCatalogSort(true)
	pdf.SetProducer("specimen", true)
	pdf.SetMargins(margin, 15, margin)
	pdf.SetAutoPageBreak(false, 0)
	pdf.AliasNbPages("{nb}")
	s := &sheet{pdf: pdf, tr: pdf.UnicodeTranslatorFromDescriptor(""), l: l, d: d, row: l.Size * 0.6}
	pdf.SetFooterFunc(s.footer)
	pdf.AddPage()
	s.letterhead()
	s.buyer()
	s.details()
	s.lines()
	s.totals()
	s.payment()
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("specimen: render PDF: %w", err)
	}
	return buf.Bytes(), nil
}

// sheet is the page Render draws on.
type sheet struct {
	pdf *fpdf.Fpdf
	tr  func(string) string
	l   Layout
	d   einvoice.Document
	row float64 // a table row's height in mm
}

func (s *sheet) font(style string, delta float64) { s.pdf.SetFont(s.l.Font, style, s.l.Size+delta) }

func (s *sheet) cell(w, h float64, text, border, align string, ln int) {
	s.pdf.CellFormat(w, h, s.tr(text), border, ln, align, false, 0, "")
}

func (s *sheet) amount(v decimal.Decimal) string { return s.l.Numbers.Amount(v, s.d.Currency) }

func (s *sheet) date(iso string) string { return s.l.Dates.Format(iso, s.l.Language) }

func (s *sheet) iban() string {
	if s.l.GroupIBAN {
		return groupIBAN(s.d.PayeeIBAN)
	}
	return s.d.PayeeIBAN
}

// letterhead draws the seller's name and address at the top, left or right.
func (s *sheet) letterhead() {
	x, w, align := margin, 90.0, "L"
	if s.l.SellerRight {
		x, align = pageWidth-margin-90, "R"
	}
	p := s.d.Seller
	s.pdf.SetXY(x, 15)
	s.font("B", 5)
	s.cell(w, 8, p.Name, "", align, 2)
	s.font("", -1)
	s.cell(w, 4.5, p.Address.Line1, "", align, 2)
	s.cell(w, 4.5, p.Address.Postcode+" "+p.Address.City, "", align, 2)
	if !s.l.Footer {
		s.cell(w, 4.5, s.l.Labels.VAT+": "+p.VATID, "", align, 2)
	}
}

// buyer draws the address the invoice is sent to.
func (s *sheet) buyer() {
	p := s.d.Buyer
	s.pdf.SetXY(margin, 48)
	s.font("B", -1)
	s.cell(85, 5, s.l.Labels.BillTo, "", "L", 2)
	s.font("", 0)
	s.cell(85, 5, p.Name, "", "L", 2)
	s.cell(85, 5, p.Address.Line1, "", "L", 2)
	s.cell(85, 5, p.Address.Postcode+" "+p.Address.City, "", "L", 2)
}

// details draws the title and the number, dates (and currency or customer
// number) in the layout's placement, and leaves the cursor below them.
func (s *sheet) details() {
	lb := s.l.Labels
	rows := [][2]string{{lb.Number, s.d.Number}, {lb.Issue, s.date(s.d.IssueDate)}, {lb.Due, s.date(s.d.DueDate)}}
	if s.l.Numbers.Mark == MarkNone {
		rows = append(rows, [2]string{lb.Currency, s.d.Currency})
	}
	if s.l.Customer {
		rows = append(rows, [2]string{lb.Customer, fmt.Sprintf("%d", 10000+len(s.d.Buyer.Name)*731)})
	}
	h := s.l.Size * 0.55
	title := func(y float64) {
		s.pdf.SetXY(margin, y)
		s.font("B", 6)
		s.cell(contentWidth, 10, s.l.Labels.Title, "", "L", 1)
	}
	switch s.l.Details {
	case DetailsBox:
		s.pdf.SetXY(pageWidth-margin-78, 48)
		for _, r := range rows {
			s.pdf.SetX(pageWidth - margin - 78)
			s.font("B", -1)
			s.cell(38, h+1, r[0], "L", "L", 0)
			s.font("", -1)
			s.cell(40, h+1, r[1], "R", "R", 2)
		}
		s.pdf.Rect(pageWidth-margin-78, 46, 78, float64(len(rows))*(h+1)+4, "D")
		title(max(s.pdf.GetY()+6, 74))
	case DetailsStacked:
		title(76)
		y := s.pdf.GetY() + 2
		w := contentWidth / float64(len(rows))
		for i, r := range rows {
			s.pdf.SetXY(margin+float64(i)*w, y)
			s.font("B", -2)
			s.cell(w, h, r[0], "", "L", 2)
			s.font("", 0)
			s.cell(w, h, r[1], "", "L", 2)
		}
	case DetailsTable:
		title(76)
		for _, r := range rows {
			s.font("B", -1)
			s.cell(55, h+1.5, r[0], "1", "L", 0)
			s.font("", -1)
			s.cell(55, h+1.5, r[1], "1", "L", 1)
		}
	default:
		title(76)
		for _, r := range rows {
			s.font("", 0)
			s.cell(45, h, r[0]+":", "", "L", 0)
			s.cell(80, h, r[1], "", "L", 1)
		}
	}
	s.pdf.SetY(s.pdf.GetY() + 8)
}

// column widths in mm at size 10; the description takes what is left.
var widths = map[byte]float64{'n': 10, 'q': 15, 'u': 16, 'p': 27, 'r': 14, 'a': 29}

func (s *sheet) widths() []float64 {
	out := make([]float64, len(s.l.Columns))
	rest := contentWidth
	for i := range s.l.Columns {
		if c := s.l.Columns[i]; c != 'd' {
			out[i] = widths[c] * (0.7 + s.l.Size*0.03)
			if s.l.Font == "Courier" {
				out[i] *= 1.15
			}
			rest -= out[i]
		}
	}
	for i := range s.l.Columns {
		if s.l.Columns[i] == 'd' {
			out[i] = rest
		}
	}
	return out
}

func (s *sheet) heading(w []float64) {
	border := ""
	switch s.l.Table {
	case TableGrid:
		border = "1"
	case TableRules:
		border = "B"
	}
	s.font("B", -1)
	for i := range s.l.Columns {
		c := s.l.Columns[i]
		label := s.l.Labels.Columns[c]
		if c == 'a' && s.l.Numbers.Mark == MarkNone {
			label += " (" + s.d.Currency + ")"
		}
		s.cell(w[i], s.row+1.5, s.fit(label, w[i]), border, alignOf(c), 0)
	}
	s.pdf.Ln(-1)
}

func alignOf(c byte) string {
	if c == 'd' || c == 'u' {
		return "L"
	}
	return "R"
}

// fit shortens text to the width w (mm) at the current font.
func (s *sheet) fit(text string, w float64) string {
	for len(text) > 1 && s.pdf.GetStringWidth(s.tr(text)) > w-2 {
		r := []rune(text)
		text = string(r[:len(r)-1])
	}
	return text
}

// lines draws the table of lines, going on to another page (heading
// repeated) where the page is full.
func (s *sheet) lines() {
	w := s.widths()
	s.heading(w)
	border := ""
	if s.l.Table == TableGrid {
		border = "1"
	}
	v := vocabs[s.l.Language]
	for i, ln := range s.d.Lines {
		if s.pdf.GetY()+s.row > bottom-4 {
			s.pdf.AddPage()
			s.pdf.SetY(20)
			s.heading(w)
		}
		s.font("", -1)
		for j := range s.l.Columns {
			var text string
			switch s.l.Columns[j] {
			case 'n':
				text = fmt.Sprint(i + 1)
			case 'd':
				text = ln.Description
			case 'q':
				text = s.l.Numbers.Quantity(ln.Quantity)
			case 'u':
				text = v.units[(i+len(ln.Description))%len(v.units)]
			case 'p':
				text = s.l.Numbers.Plain(ln.UnitPrice)
			case 'r':
				text = s.l.Numbers.Rate(ln.TaxRate) + " %"
			case 'a':
				text = s.l.Numbers.Plain(ln.Net)
			}
			s.cell(w[j], s.row, s.fit(text, w[j]), border, alignOf(s.l.Columns[j]), 0)
		}
		s.pdf.Ln(-1)
	}
}

// totals draws net, tax per rate and payable at the bottom right, on a new
// page when the last one has no room left for them.
func (s *sheet) totals() {
	need := float64(len(s.d.TaxSubtotals)+2)*(s.row+1) + 30
	if s.pdf.GetY()+need > bottom {
		s.pdf.AddPage()
		s.pdf.SetY(20)
	}
	if s.l.Table == TableRules {
		y := s.pdf.GetY() + 1
		s.pdf.Line(margin, y, pageWidth-margin, y)
	}
	s.pdf.SetY(s.pdf.GetY() + 3)
	border := ""
	if s.l.Table == TableGrid {
		border = "1"
	}
	row := func(label string, v decimal.Decimal, bold bool) {
		style := ""
		if bold {
			style = "B"
		}
		s.font(style, 0)
		s.pdf.SetX(pageWidth - margin - 100)
		s.cell(60, s.row+1, label, border, "R", 0)
		s.cell(40, s.row+1, s.amount(v), border, "R", 1)
	}
	row(s.l.Labels.Net, s.d.Totals.Net, false)
	for _, st := range s.d.TaxSubtotals {
		row(fmt.Sprintf(s.l.Labels.Tax, s.l.Numbers.Rate(st.Rate)), st.Tax, false)
	}
	row(s.l.Labels.Payable, s.d.Totals.Payable, true)
}

// payment asks for payment by the due date, and names the account unless
// the footer does.
func (s *sheet) payment() {
	s.pdf.SetY(s.pdf.GetY() + 6)
	s.font("", -1)
	s.pdf.MultiCell(contentWidth, s.row, s.tr(fmt.Sprintf(s.l.Labels.PayBy, s.amount(s.d.Totals.Payable), s.date(s.d.DueDate))), "", "L", false)
	if !s.l.Footer {
		s.cell(contentWidth, s.row, s.l.Labels.IBAN+": "+s.iban(), "", "L", 1)
		s.cell(contentWidth, s.row, s.l.Labels.BIC+": "+s.d.PayeeBIC, "", "L", 1)
	}
}

// footer draws the page number and, where the layout keeps them there, the
// seller's VAT id and account.
func (s *sheet) footer() {
	s.pdf.SetY(bottom + 4)
	s.pdf.SetFont(s.l.Font, "", 7)
	if s.l.Footer {
		p := s.d.Seller
		s.pdf.Line(margin, bottom+2, pageWidth-margin, bottom+2)
		s.cell(contentWidth, 3.5, strings.Join([]string{p.Name, p.Address.Line1, p.Address.Postcode + " " + p.Address.City}, " · "), "", "C", 1)
		s.cell(contentWidth, 3.5, fmt.Sprintf("%s: %s   %s: %s   %s: %s", s.l.Labels.VAT, p.VATID, s.l.Labels.IBAN, s.iban(), s.l.Labels.BIC, s.d.PayeeBIC), "", "C", 1)
	}
	s.cell(contentWidth, 3.5, fmt.Sprintf(s.l.Labels.Page, s.pdf.PageNo()), "", "R", 1)
}
