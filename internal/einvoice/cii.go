package einvoice

import (
	"encoding/xml"
	"fmt"
	"strings"
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
	Name             string   `xml:"Name"`
	LegalOrgID       string   `xml:"SpecifiedLegalOrganization>ID"`
	URIs             []idText `xml:"URIUniversalCommunication>URIID"`
	TaxRegistrations []idText `xml:"SpecifiedTaxRegistration>ID"`
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
}

type ciiPaymentTerms struct {
	DueDate ciiDate `xml:"DueDateDateTime"`
}

type ciiSummation struct {
	LineTotalAmount      string       `xml:"LineTotalAmount"`
	ChargeTotalAmount    string       `xml:"ChargeTotalAmount"`
	AllowanceTotalAmount string       `xml:"AllowanceTotalAmount"`
	TaxBasisTotalAmount  string       `xml:"TaxBasisTotalAmount"`
	TaxTotalAmounts      []amountText `xml:"TaxTotalAmount"`
	RoundingAmount       string       `xml:"RoundingAmount"`
	GrandTotalAmount     string       `xml:"GrandTotalAmount"`
	TotalPrepaidAmount   string       `xml:"TotalPrepaidAmount"`
	DuePayableAmount     string       `xml:"DuePayableAmount"`
}

type ciiProduct struct {
	Name        string `xml:"Name"`
	Description string `xml:"Description"`
}

type ciiNetPrice struct {
	ChargeAmount  string     `xml:"ChargeAmount"`
	BasisQuantity amountText `xml:"BasisQuantity"`
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
	Product        ciiProduct  `xml:"SpecifiedTradeProduct"`
	NetPrice       ciiNetPrice `xml:"SpecifiedLineTradeAgreement>NetPriceProductTradePrice"`
	BilledQuantity amountText  `xml:"SpecifiedLineTradeDelivery>BilledQuantity"`
	Settlement     struct {
		Tax              ciiTax               `xml:"ApplicableTradeTax"`
		AllowanceCharges []ciiAllowanceCharge `xml:"SpecifiedTradeAllowanceCharge"`
		LineTotalAmount  string               `xml:"SpecifiedTradeSettlementLineMonetarySummation>LineTotalAmount"`
	} `xml:"SpecifiedLineTradeSettlement"`
}

// ParseCII extracts a UN/CEFACT CrossIndustryInvoice (every Factur-X / ZUGFeRD 2.x profile and XRechnung
// CII read the same way, the extra elements of the larger ones ignored; Profile names the one the
// document states). A UN/CEFACT message that is not an invoice (an Order-X order, a type code outside
// EN 16931's invoice and credit note codes) gives a *ParseError with Code CodeNotAnInvoice. Dates must be in format 102 (CCYYMMDD). The due date is the
// first SpecifiedTradePaymentTerms/DueDateDateTime. Of several TaxTotalAmount elements, the one in the
// invoice currency is used.
func ParseCII(data []byte) (Document, error) {
	return ParseCIIUntil(nil, data)
}

// ParseCIIUntil is ParseCII that stops once dl has passed.
func ParseCIIUntil(dl *Deadline, data []byte) (Document, error) {
	return parseCII(dl, FormatCII, data)
}

// ParseEmbeddedUntil reads the CII a Factur-X, ZUGFeRD 2 or ZUGFeRD 1.0 PDF carries (a CrossIndustryInvoice,
// a ZUGFeRD 1.0 CrossIndustryDocument, or another UN/CEFACT message, refused as not an invoice) as
// FormatFacturX, stopping once dl has passed.
func ParseEmbeddedUntil(dl *Deadline, data []byte) (Document, error) {
	if root, _ := XMLRoot(data); root.Space == nsZUGFeRD1 {
		return parseZUGFeRD1(dl, FormatFacturX, data)
	}
	return parseCII(dl, FormatFacturX, data)
}

// IsInvoiceRoot reports the root element of a CII CrossIndustryInvoice.
func IsInvoiceRoot(root xml.Name) bool {
	return root.Space == nsCII && root.Local == "CrossIndustryInvoice"
}

func parseCII(dl *Deadline, format Format, data []byte) (Document, error) {
	root, ok := XMLRoot(data)
	if !ok {
		return Document{}, ParseErrorf(format, "", "no root element")
	}
	if IsOtherMessageRoot(root) {
		return Document{}, notAnInvoice(dl, format, data, root)
	}
	if !IsInvoiceRoot(root) {
		return Document{}, ParseErrorf(format, "", "root element {%s}%s is not a CII CrossIndustryInvoice", ClipText(root.Space), ClipText(root.Local))
	}
	var src ciiDocument
	if err := decodeXML(dl, format, data, &src); err != nil {
		return Document{}, err
	}
	if err := checkInvoiceTypeCode(format, text(src.Header.TypeCode)); err != nil {
		return Document{}, err
	}
	doc, err := src.document(format, ciiD16B)
	if err != nil {
		return Document{}, err
	}
	doc.Conformance, doc.RulesJudged = Conformance(doc.Profile, "cii", data)
	return doc, nil
}

// document maps a CII D16B or (converted) ZUGFeRD 1.0 document; names gives the element names its
// ParseErrors report.
func (src ciiDocument) document(format Format, names ciiVocabulary) (Document, error) {
	r := &fieldReader{format: format}
	tx := src.Transaction
	settlement := tx.Settlement

	doc := Document{
		Format:        format,
		TypeCode:      text(src.Header.TypeCode),
		Number:        text(src.Header.ID),
		IssueDate:     r.ciiDate(names.header+"/IssueDateTime", src.Header.IssueDate),
		Currency:      text(settlement.Currency),
		Seller:        tx.Agreement.Seller.party(),
		Buyer:         tx.Agreement.Buyer.party(),
		Lines:         []Line{},
		TaxSubtotals:  []TaxSubtotal{},
		Specification: text(src.Context.Guideline),
	}
	doc.Profile = ProfileOf(doc.Specification)
	doc.Type = DocTypeFor(doc.TypeCode)
	for i, terms := range settlement.PaymentTerms {
		if due := r.ciiDate(fmt.Sprintf("SpecifiedTradePaymentTerms[%d]/DueDateDateTime", i), terms.DueDate); due != "" {
			doc.DueDate = due
			break
		}
	}
	for _, m := range settlement.PaymentMeans {
		if doc.PayeeIBAN = text(m.IBAN); doc.PayeeIBAN != "" {
			break
		}
	}
	for _, ref := range settlement.InvoiceReferences {
		if id := firstText(ref.ID, ref.IssuerAssignedID); id != "" {
			doc.BillingReference = id
			break
		}
	}

	for i, l := range tx.Lines {
		doc.Lines = append(doc.Lines, r.ciiLine(fmt.Sprintf("IncludedSupplyChainTradeLineItem[%d]", i), names, l))
	}
	for i, t := range settlement.Taxes {
		field := fmt.Sprintf("%s/ApplicableTradeTax[%d]", names.settlement, i)
		doc.TaxSubtotals = append(doc.TaxSubtotals, TaxSubtotal{
			Category: text(t.CategoryCode),
			Rate:     r.decimal(field+"/"+names.taxRate, t.Rate),
			Taxable:  r.decimal(field+"/BasisAmount", t.BasisAmount),
			Tax:      r.decimal(field+"/CalculatedAmount", t.CalculatedAmount),
		})
	}
	doc.Totals = r.ciiTotals(names.summation+"/", settlement.Summation, doc.Currency)

	if r.err != nil {
		return Document{}, r.err
	}
	return doc, nil
}

// ciiTotals reads the header monetary summation; sum is the path prefix its fields are reported under.
func (r *fieldReader) ciiTotals(sum string, s ciiSummation, currency string) Totals {
	return Totals{
		LineTotal:      r.decimal(sum+"LineTotalAmount", s.LineTotalAmount),
		AllowanceTotal: r.decimal(sum+"AllowanceTotalAmount", s.AllowanceTotalAmount),
		ChargeTotal:    r.decimal(sum+"ChargeTotalAmount", s.ChargeTotalAmount),
		Net:            r.decimal(sum+"TaxBasisTotalAmount", s.TaxBasisTotalAmount),
		Tax:            r.decimal(sum+"TaxTotalAmount", invoiceCurrencyTax(s.TaxTotalAmounts, currency)),
		Gross:          r.decimal(sum+"GrandTotalAmount", s.GrandTotalAmount),
		Prepaid:        r.decimal(sum+"TotalPrepaidAmount", s.TotalPrepaidAmount),
		Rounding:       r.decimal(sum+"RoundingAmount", s.RoundingAmount),
		Payable:        r.decimal(sum+"DuePayableAmount", s.DuePayableAmount),
	}
}

func (r *fieldReader) ciiDate(field string, d ciiDate) string {
	if text(d.String.Value) == "" {
		return ""
	}
	return r.date102(field, d.String.Value, d.String.Format)
}

func (p ciiParty) party() Party {
	a := p.Address
	party := Party{Name: text(p.Name), LegalID: text(p.LegalOrgID),
		Address: PostalAddress([]string{a.LineOne, a.LineTwo, a.LineThree}, a.City, a.Postcode, a.Country)}
	for _, id := range p.TaxRegistrations {
		if strings.EqualFold(text(id.Scheme), "VA") && text(id.Value) != "" {
			party.VATID = text(id.Value)
			break
		}
	}
	for _, uri := range p.URIs {
		if text(uri.Value) != "" {
			party.EndpointID, party.EndpointScheme = text(uri.Value), text(uri.Scheme)
			break
		}
	}
	return party
}

func (r *fieldReader) ciiLine(field string, names ciiVocabulary, l ciiLine) Line {
	line := Line{
		Description:       firstText(l.Product.Name, l.Product.Description),
		Quantity:          r.decimal(field+"/"+names.lineDelivery+"/BilledQuantity", l.BilledQuantity.Value),
		UnitPrice:         r.decimal(field+"/NetPriceProductTradePrice/ChargeAmount", l.NetPrice.ChargeAmount),
		PriceBaseQuantity: r.decimal(field+"/NetPriceProductTradePrice/BasisQuantity", l.NetPrice.BasisQuantity.Value),
		Net:               r.decimal(field+"/"+names.lineSummation+"/LineTotalAmount", l.Settlement.LineTotalAmount),
		TaxRate:           r.decimal(field+"/ApplicableTradeTax/"+names.taxRate, l.Settlement.Tax.Rate),
		TaxCategory:       text(l.Settlement.Tax.CategoryCode),
	}
	for i, ac := range l.Settlement.AllowanceCharges {
		amount := r.decimal(fmt.Sprintf("%s/SpecifiedTradeAllowanceCharge[%d]/ActualAmount", field, i), ac.ActualAmount)
		if isTrue(ac.ChargeIndicator) {
			line.Charges = line.Charges.Add(amount)
		} else {
			line.Allowances = line.Allowances.Add(amount)
		}
	}
	return line
}

// invoiceCurrencyTax picks the TaxTotalAmount in the invoice currency; failing a match, one without a
// currency; failing that, the first.
func invoiceCurrencyTax(amounts []amountText, currency string) string {
	for _, a := range amounts {
		if currency != "" && strings.EqualFold(text(a.Currency), currency) {
			return a.Value
		}
	}
	for _, a := range amounts {
		if text(a.Currency) == "" {
			return a.Value
		}
	}
	if len(amounts) > 0 {
		return amounts[0].Value
	}
	return ""
}
