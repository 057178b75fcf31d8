// Package cii reads and writes UN/CEFACT Cross Industry Invoices: the CII of EN 16931 and of the
// Factur-X / ZUGFeRD 2 profiles around it, and the ZUGFeRD 1.0 CrossIndustryDocument before it. It tells
// an invoice from the other messages of the CII family (an Order-X order, a despatch advice), which it
// refuses saying what they are. Build writes the CII the typewriter embeds in the PDFs it generates.
package cii

import (
	"encoding/xml"
	"fmt"
	"strings"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/xmltext"
)

// nsCII is the namespace of the root element of a CII invoice, rsm:CrossIndustryInvoice.
const nsCII = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"

// ciiDocument is the part of a UN/CEFACT CrossIndustryInvoice (D16B, EN 16931 and the Factur-X profiles
// around it) this package reads. Child elements are matched by local name. A zugferd1Document has the
// same Go shape under the older element names, so it converts to a ciiDocument (conversion ignores
// struct tags) and both are mapped by ciiDocument.document.
type ciiDocument struct {
	Context struct {
		Guideline string `xml:"GuidelineSpecifiedDocumentContextParameter>ID"`
	} `xml:"ExchangedDocumentContext"`
	Header struct {
		ID        string  `xml:"ID"`
		TypeCode  string  `xml:"TypeCode"`
		IssueDate ciiDate `xml:"IssueDateTime"`
	} `xml:"ExchangedDocument"`
	Transaction struct {
		Lines     []ciiLine `xml:"IncludedSupplyChainTradeLineItem"`
		Agreement struct {
			Seller ciiParty `xml:"SellerTradeParty"`
			Buyer  ciiParty `xml:"BuyerTradeParty"`
		} `xml:"ApplicableHeaderTradeAgreement"`
		Settlement struct {
			Currency          string            `xml:"InvoiceCurrencyCode"`
			Taxes             []ciiTax          `xml:"ApplicableTradeTax"`
			PaymentTerms      []ciiPaymentTerms `xml:"SpecifiedTradePaymentTerms"`
			PaymentMeans      []ciiPaymentMeans `xml:"SpecifiedTradeSettlementPaymentMeans"`
			Summation         ciiSummation      `xml:"SpecifiedTradeSettlementHeaderMonetarySummation"`
			InvoiceReferences []struct {
				ID               string `xml:"-"` // ZUGFeRD 1.0 only: D16B names the invoice by IssuerAssignedID
				IssuerAssignedID string `xml:"IssuerAssignedID"`
			} `xml:"InvoiceReferencedDocument"`
		} `xml:"ApplicableHeaderTradeSettlement"`
	} `xml:"SupplyChainTradeTransaction"`
}

// ciiVocabulary names the elements whose names differ between CII D16B and ZUGFeRD 1.0, for the field
// paths a ParseError reports.
type ciiVocabulary struct {
	header        string // the exchanged document element
	settlement    string // the header trade settlement element
	summation     string // the header monetary summation element
	lineDelivery  string // a line's delivery element
	lineSummation string // a line's monetary summation element
	taxRate       string // a trade tax's rate element
}

var ciiD16B = ciiVocabulary{
	header:        "ExchangedDocument",
	settlement:    "ApplicableHeaderTradeSettlement",
	summation:     "SpecifiedTradeSettlementHeaderMonetarySummation",
	lineDelivery:  "SpecifiedLineTradeDelivery",
	lineSummation: "SpecifiedTradeSettlementLineMonetarySummation",
	taxRate:       "RateApplicablePercent",
}

type ciiDate struct {
	String struct {
		Value  string `xml:",chardata"`
		Format string `xml:"format,attr"`
	} `xml:"DateTimeString"`
}

type ciiParty struct {
	Name             string           `xml:"Name"`
	LegalOrgID       string           `xml:"SpecifiedLegalOrganization>ID"`
	URIs             []xmltext.IDText `xml:"URIUniversalCommunication>URIID"`
	TaxRegistrations []xmltext.IDText `xml:"SpecifiedTaxRegistration>ID"`
	Address          struct {
		Postcode  string `xml:"PostcodeCode"`
		LineOne   string `xml:"LineOne"`
		LineTwo   string `xml:"LineTwo"`
		LineThree string `xml:"LineThree"`
		City      string `xml:"CityName"`
		Country   string `xml:"CountryID"`
	} `xml:"PostalTradeAddress"`
}

// ciiPaymentMeans holds BT-84, the payee's account (the same element names in CII D16B and ZUGFeRD 1.0).
type ciiPaymentMeans struct {
	IBAN string `xml:"PayeePartyCreditorFinancialAccount>IBANID"`
	// BIC is BT-86, the payee's bank.
	BIC string `xml:"PayeeSpecifiedCreditorFinancialInstitution>BICID"`
}

type ciiPaymentTerms struct {
	DueDate ciiDate `xml:"DueDateDateTime"`
}

type ciiSummation struct {
	LineTotalAmount      string               `xml:"LineTotalAmount"`
	ChargeTotalAmount    string               `xml:"ChargeTotalAmount"`
	AllowanceTotalAmount string               `xml:"AllowanceTotalAmount"`
	TaxBasisTotalAmount  string               `xml:"TaxBasisTotalAmount"`
	TaxTotalAmounts      []xmltext.AmountText `xml:"TaxTotalAmount"`
	RoundingAmount       string               `xml:"RoundingAmount"`
	GrandTotalAmount     string               `xml:"GrandTotalAmount"`
	TotalPrepaidAmount   string               `xml:"TotalPrepaidAmount"`
	DuePayableAmount     string               `xml:"DuePayableAmount"`
}

type ciiProduct struct {
	Name        string `xml:"Name"`
	Description string `xml:"Description"`
}

type ciiNetPrice struct {
	ChargeAmount  string             `xml:"ChargeAmount"`
	BasisQuantity xmltext.AmountText `xml:"BasisQuantity"`
}

type ciiAllowanceCharge struct {
	ChargeIndicator string `xml:"ChargeIndicator>Indicator"`
	ActualAmount    string `xml:"ActualAmount"`
}

// ciiTax and ciiLine are aliases of unnamed struct types, not defined types, so that zugferd1Tax and
// zugferd1Line (the same fields under other element names) leave zugferd1Document convertible to
// ciiDocument.
type ciiTax = struct {
	CalculatedAmount string `xml:"CalculatedAmount"`
	BasisAmount      string `xml:"BasisAmount"`
	CategoryCode     string `xml:"CategoryCode"`
	Rate             string `xml:"RateApplicablePercent"`
}

type ciiLine = struct {
	Product        ciiProduct         `xml:"SpecifiedTradeProduct"`
	NetPrice       ciiNetPrice        `xml:"SpecifiedLineTradeAgreement>NetPriceProductTradePrice"`
	BilledQuantity xmltext.AmountText `xml:"SpecifiedLineTradeDelivery>BilledQuantity"`
	Settlement     struct {
		Tax              ciiTax               `xml:"ApplicableTradeTax"`
		AllowanceCharges []ciiAllowanceCharge `xml:"SpecifiedTradeAllowanceCharge"`
		LineTotalAmount  string               `xml:"SpecifiedTradeSettlementLineMonetarySummation>LineTotalAmount"`
	} `xml:"SpecifiedLineTradeSettlement"`
}

// Parse extracts a UN/CEFACT CrossIndustryInvoice (every Factur-X / ZUGFeRD 2.x profile and XRechnung
// CII read the same way, the extra elements of the larger ones ignored; Profile names the one the
// document states). A UN/CEFACT message that is not an invoice (an Order-X order, a type code outside
// EN 16931's invoice and credit note codes) gives a *ParseError with Code CodeNotAnInvoice. Dates must be in format 102 (CCYYMMDD). The due date is the
// first SpecifiedTradePaymentTerms/DueDateDateTime. Of several TaxTotalAmount elements, the one in the
// invoice currency is used.
func Parse(data []byte) (einvoice.Document, error) {
	return ParseUntil(nil, data)
}

// ParseUntil is Parse that stops once dl has passed.
func ParseUntil(dl *einvoice.Deadline, data []byte) (einvoice.Document, error) {
	return parseCII(dl, einvoice.FormatCII, data)
}

// ParseEmbeddedUntil reads the CII a Factur-X, ZUGFeRD 2 or ZUGFeRD 1.0 PDF carries (a CrossIndustryInvoice,
// a ZUGFeRD 1.0 CrossIndustryDocument, or another UN/CEFACT message, refused as not an invoice) as
// FormatFacturX, stopping once dl has passed.
func ParseEmbeddedUntil(dl *einvoice.Deadline, data []byte) (einvoice.Document, error) {
	if root, _ := xmltext.Root(data); root.Space == nsZUGFeRD1 {
		return parseZUGFeRD1(dl, einvoice.FormatFacturX, data)
	}
	return parseCII(dl, einvoice.FormatFacturX, data)
}

// IsInvoiceRoot reports the root element of a CII CrossIndustryInvoice.
func IsInvoiceRoot(root xml.Name) bool {
	return root.Space == nsCII && root.Local == "CrossIndustryInvoice"
}

func parseCII(dl *einvoice.Deadline, format einvoice.Format, data []byte) (einvoice.Document, error) {
	root, ok := xmltext.Root(data)
	if !ok {
		return einvoice.Document{}, einvoice.ParseErrorf(format, "", "no root element")
	}
	if IsOtherMessageRoot(root) {
		return einvoice.Document{}, notAnInvoice(dl, format, data, root)
	}
	if !IsInvoiceRoot(root) {
		return einvoice.Document{}, einvoice.ParseErrorf(format, "", "root element {%s}%s is not a CII CrossIndustryInvoice", einvoice.ClipText(root.Space), einvoice.ClipText(root.Local))
	}
	var src ciiDocument
	if err := xmltext.Decode(dl, format, data, &src); err != nil {
		return einvoice.Document{}, err
	}
	if err := checkInvoiceTypeCode(format, xmltext.Text(src.Header.TypeCode)); err != nil {
		return einvoice.Document{}, err
	}
	doc, err := src.document(format, ciiD16B)
	if err != nil {
		return einvoice.Document{}, err
	}
	doc.Conformance, doc.RulesJudged = einvoice.Conformance(doc.Profile, "cii", data)
	return doc, nil
}

// document maps a CII D16B or (converted) ZUGFeRD 1.0 document; names gives the element names its
// ParseErrors report.
func (src ciiDocument) document(format einvoice.Format, names ciiVocabulary) (einvoice.Document, error) {
	r := &ciiReader{xmltext.FieldReader{Format: format}}
	tx := src.Transaction
	settlement := tx.Settlement

	doc := einvoice.Document{
		Format:        format,
		TypeCode:      xmltext.Text(src.Header.TypeCode),
		Number:        xmltext.Text(src.Header.ID),
		IssueDate:     r.ciiDate(names.header+"/IssueDateTime", src.Header.IssueDate),
		Currency:      xmltext.Text(settlement.Currency),
		Seller:        tx.Agreement.Seller.party(),
		Buyer:         tx.Agreement.Buyer.party(),
		Lines:         []einvoice.Line{},
		TaxSubtotals:  []einvoice.TaxSubtotal{},
		Specification: xmltext.Text(src.Context.Guideline),
	}
	doc.Profile = einvoice.ProfileOf(doc.Specification)
	doc.Type = einvoice.DocTypeFor(doc.TypeCode)
	for i, terms := range settlement.PaymentTerms {
		if due := r.ciiDate(fmt.Sprintf("SpecifiedTradePaymentTerms[%d]/DueDateDateTime", i), terms.DueDate); due != "" {
			doc.DueDate = due
			break
		}
	}
	for _, m := range settlement.PaymentMeans {
		if doc.PayeeIBAN = xmltext.Text(m.IBAN); doc.PayeeIBAN != "" {
			doc.PayeeBIC = xmltext.Text(m.BIC)
			break
		}
	}
	for _, ref := range settlement.InvoiceReferences {
		if id := xmltext.FirstText(ref.ID, ref.IssuerAssignedID); id != "" {
			doc.BillingReference = id
			break
		}
	}

	for i, l := range tx.Lines {
		doc.Lines = append(doc.Lines, r.ciiLine(fmt.Sprintf("IncludedSupplyChainTradeLineItem[%d]", i), names, l))
	}
	for i, t := range settlement.Taxes {
		field := fmt.Sprintf("%s/ApplicableTradeTax[%d]", names.settlement, i)
		doc.TaxSubtotals = append(doc.TaxSubtotals, einvoice.TaxSubtotal{
			Category: xmltext.Text(t.CategoryCode),
			Rate:     r.Decimal(field+"/"+names.taxRate, t.Rate),
			Taxable:  r.Decimal(field+"/BasisAmount", t.BasisAmount),
			Tax:      r.Decimal(field+"/CalculatedAmount", t.CalculatedAmount),
		})
	}
	doc.Totals = r.ciiTotals(names.summation+"/", settlement.Summation, doc.Currency)

	if r.Err != nil {
		return einvoice.Document{}, r.Err
	}
	return doc, nil
}

// ciiReader reads the fields of a CII document.
type ciiReader struct{ xmltext.FieldReader }

// ciiTotals reads the header monetary summation; sum is the path prefix its fields are reported under.
func (r *ciiReader) ciiTotals(sum string, s ciiSummation, currency string) einvoice.Totals {
	return einvoice.Totals{
		LineTotal:      r.Decimal(sum+"LineTotalAmount", s.LineTotalAmount),
		AllowanceTotal: r.Decimal(sum+"AllowanceTotalAmount", s.AllowanceTotalAmount),
		ChargeTotal:    r.Decimal(sum+"ChargeTotalAmount", s.ChargeTotalAmount),
		Net:            r.Decimal(sum+"TaxBasisTotalAmount", s.TaxBasisTotalAmount),
		Tax:            r.Decimal(sum+"TaxTotalAmount", invoiceCurrencyTax(s.TaxTotalAmounts, currency)),
		Gross:          r.Decimal(sum+"GrandTotalAmount", s.GrandTotalAmount),
		Prepaid:        r.Decimal(sum+"TotalPrepaidAmount", s.TotalPrepaidAmount),
		Rounding:       r.Decimal(sum+"RoundingAmount", s.RoundingAmount),
		Payable:        r.Decimal(sum+"DuePayableAmount", s.DuePayableAmount),
	}
}

func (r *ciiReader) ciiDate(field string, d ciiDate) string {
	if xmltext.Text(d.String.Value) == "" {
		return ""
	}
	return r.Date102(field, d.String.Value, d.String.Format)
}

func (p ciiParty) party() einvoice.Party {
	a := p.Address
	party := einvoice.Party{Name: xmltext.Text(p.Name), LegalID: xmltext.Text(p.LegalOrgID),
		Address: einvoice.PostalAddress([]string{a.LineOne, a.LineTwo, a.LineThree}, a.City, a.Postcode, a.Country)}
	for _, id := range p.TaxRegistrations {
		if strings.EqualFold(xmltext.Text(id.Scheme), "VA") && xmltext.Text(id.Value) != "" {
			party.VATID = xmltext.Text(id.Value)
			break
		}
	}
	for _, uri := range p.URIs {
		if xmltext.Text(uri.Value) != "" {
			party.EndpointID, party.EndpointScheme = xmltext.Text(uri.Value), xmltext.Text(uri.Scheme)
			break
		}
	}
	return party
}

func (r *ciiReader) ciiLine(field string, names ciiVocabulary, l ciiLine) einvoice.Line {
	line := einvoice.Line{
		Description:       xmltext.FirstText(l.Product.Name, l.Product.Description),
		Quantity:          r.Decimal(field+"/"+names.lineDelivery+"/BilledQuantity", l.BilledQuantity.Value),
		UnitPrice:         r.Decimal(field+"/NetPriceProductTradePrice/ChargeAmount", l.NetPrice.ChargeAmount),
		PriceBaseQuantity: r.Decimal(field+"/NetPriceProductTradePrice/BasisQuantity", l.NetPrice.BasisQuantity.Value),
		Net:               r.Decimal(field+"/"+names.lineSummation+"/LineTotalAmount", l.Settlement.LineTotalAmount),
		TaxRate:           r.Decimal(field+"/ApplicableTradeTax/"+names.taxRate, l.Settlement.Tax.Rate),
		TaxCategory:       xmltext.Text(l.Settlement.Tax.CategoryCode),
	}
	for i, ac := range l.Settlement.AllowanceCharges {
		amount := r.Decimal(fmt.Sprintf("%s/SpecifiedTradeAllowanceCharge[%d]/ActualAmount", field, i), ac.ActualAmount)
		if xmltext.IsTrue(ac.ChargeIndicator) {
			line.Charges = line.Charges.Add(amount)
		} else {
			line.Allowances = line.Allowances.Add(amount)
		}
	}
	return line
}

// invoiceCurrencyTax picks the TaxTotalAmount in the invoice currency; failing a match, one without a
// currency; failing that, the first.
func invoiceCurrencyTax(amounts []xmltext.AmountText, currency string) string {
	for _, a := range amounts {
		if currency != "" && strings.EqualFold(xmltext.Text(a.Currency), currency) {
			return a.Value
		}
	}
	for _, a := range amounts {
		if xmltext.Text(a.Currency) == "" {
			return a.Value
		}
	}
	if len(amounts) > 0 {
		return amounts[0].Value
	}
	return ""
}
