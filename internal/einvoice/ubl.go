package einvoice

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// ublDocument is the part of a UBL 2.1 Invoice or CreditNote this package reads. Child elements are
// matched by local name: the root's namespace is checked, the prefixes inside are not.
type ublDocument struct {
	CustomizationID      string              `xml:"CustomizationID"`
	ID                   string              `xml:"ID"`
	IssueDate            string              `xml:"IssueDate"`
	DueDate              string              `xml:"DueDate"`
	InvoiceTypeCode      string              `xml:"InvoiceTypeCode"`
	CreditNoteTypeCode   string              `xml:"CreditNoteTypeCode"`
	DocumentCurrencyCode string              `xml:"DocumentCurrencyCode"`
	BillingReferences    []ublBillingRef     `xml:"BillingReference"`
	Supplier             ublParty            `xml:"AccountingSupplierParty>Party"`
	Customer             ublParty            `xml:"AccountingCustomerParty>Party"`
	PaymentMeans         []ublPaymentDueDate `xml:"PaymentMeans"`
	PaymentTerms         []ublPaymentDueDate `xml:"PaymentTerms"`
	TaxTotals            []ublTaxTotal       `xml:"TaxTotal"`
	Monetary             ublMonetaryTotal    `xml:"LegalMonetaryTotal"`
	InvoiceLines         []ublLine           `xml:"InvoiceLine"`
	CreditNoteLines      []ublLine           `xml:"CreditNoteLine"`
}

type ublBillingRef struct {
	InvoiceID string `xml:"InvoiceDocumentReference>ID"`
}

type ublPaymentDueDate struct {
	PaymentDueDate string `xml:"PaymentDueDate"`
	// PayeeAccount is BT-84 (PaymentMeans only; PaymentTerms has none).
	PayeeAccount string `xml:"PayeeFinancialAccount>ID"`
}

type ublParty struct {
	EndpointID  idText              `xml:"EndpointID"`
	PartyNames  []string            `xml:"PartyName>Name"`
	TaxSchemes  []ublPartyTaxScheme `xml:"PartyTaxScheme"`
	LegalEntity struct {
		RegistrationName string `xml:"RegistrationName"`
		CompanyID        string `xml:"CompanyID"`
	} `xml:"PartyLegalEntity"`
	PostalAddress struct {
		StreetName           string   `xml:"StreetName"`
		AdditionalStreetName string   `xml:"AdditionalStreetName"`
		Lines                []string `xml:"AddressLine>Line"`
		CityName             string   `xml:"CityName"`
		PostalZone           string   `xml:"PostalZone"`
		Country              string   `xml:"Country>IdentificationCode"`
	} `xml:"PostalAddress"`
}

type ublPartyTaxScheme struct {
	CompanyID   string `xml:"CompanyID"`
	TaxSchemeID string `xml:"TaxScheme>ID"`
}

type ublTaxTotal struct {
	TaxAmount amountText       `xml:"TaxAmount"`
	Subtotals []ublTaxSubtotal `xml:"TaxSubtotal"`
}

type ublTaxSubtotal struct {
	TaxableAmount amountText     `xml:"TaxableAmount"`
	TaxAmount     amountText     `xml:"TaxAmount"`
	Percent       string         `xml:"Percent"`
	Category      ublTaxCategory `xml:"TaxCategory"`
}

type ublTaxCategory struct {
	ID      string `xml:"ID"`
	Percent string `xml:"Percent"`
}

type ublMonetaryTotal struct {
	LineExtensionAmount   amountText `xml:"LineExtensionAmount"`
	TaxExclusiveAmount    amountText `xml:"TaxExclusiveAmount"`
	TaxInclusiveAmount    amountText `xml:"TaxInclusiveAmount"`
	AllowanceTotalAmount  amountText `xml:"AllowanceTotalAmount"`
	ChargeTotalAmount     amountText `xml:"ChargeTotalAmount"`
	PrepaidAmount         amountText `xml:"PrepaidAmount"`
	PayableRoundingAmount amountText `xml:"PayableRoundingAmount"`
	PayableAmount         amountText `xml:"PayableAmount"`
}

type ublLine struct {
	InvoicedQuantity    amountText           `xml:"InvoicedQuantity"`
	CreditedQuantity    amountText           `xml:"CreditedQuantity"`
	LineExtensionAmount amountText           `xml:"LineExtensionAmount"`
	AllowanceCharges    []ublAllowanceCharge `xml:"AllowanceCharge"`
	Item                struct {
		Descriptions []string       `xml:"Description"`
		Name         string         `xml:"Name"`
		TaxCategory  ublTaxCategory `xml:"ClassifiedTaxCategory"`
	} `xml:"Item"`
	Price struct {
		PriceAmount  amountText `xml:"PriceAmount"`
		BaseQuantity amountText `xml:"BaseQuantity"`
	} `xml:"Price"`
}

type ublAllowanceCharge struct {
	ChargeIndicator string     `xml:"ChargeIndicator"`
	Amount          amountText `xml:"Amount"`
}

// The namespaces of the root elements of a UBL 2.1 Invoice and CreditNote.
const (
	nsUBLInvoice    = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	nsUBLCreditNote = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
)

// IsUBLRoot reports the root element of a UBL 2.1 Invoice or CreditNote.
func IsUBLRoot(root xml.Name) bool {
	return root.Space == nsUBLInvoice && root.Local == "Invoice" || root.Space == nsUBLCreditNote && root.Local == "CreditNote"
}

// ParseUBL extracts a UBL 2.1 Invoice or CreditNote (Peppol BIS Billing 3.0, EN 16931).
//
// The due date is cbc:DueDate; a credit note has none in UBL 2.1, so the first
// PaymentMeans/PaymentDueDate and then the first PaymentTerms/PaymentDueDate stand in. Free-text payment
// terms are never read for a date. Of several TaxTotal elements, the one whose TaxAmount is in the
// document currency is used (the other is the tax-currency total EN 16931 allows).
func ParseUBL(data []byte) (Document, error) {
	return ParseUBLUntil(nil, data)
}

// ParseUBLUntil is ParseUBL that stops once dl has passed.
func ParseUBLUntil(dl *Deadline, data []byte) (Document, error) {
	root, ok := XMLRoot(data)
	if !ok {
		return Document{}, ParseErrorf(FormatUBL, "", "no root element")
	}
	isCreditNote := root.Space == nsUBLCreditNote && root.Local == "CreditNote"
	if !IsUBLRoot(root) {
		return Document{}, ParseErrorf(FormatUBL, "", "root element {%s}%s is not a UBL Invoice or CreditNote", ClipText(root.Space), ClipText(root.Local))
	}
	var src ublDocument
	if err := decodeXML(dl, FormatUBL, data, &src); err != nil {
		return Document{}, err
	}
	r := &fieldReader{format: FormatUBL}

	doc := Document{
		Format:           FormatUBL,
		TypeCode:         firstText(src.InvoiceTypeCode, src.CreditNoteTypeCode),
		Number:           text(src.ID),
		IssueDate:        isoDate(src.IssueDate),
		DueDate:          isoDate(src.DueDate),
		Currency:         text(src.DocumentCurrencyCode),
		Seller:           src.Supplier.party(),
		Buyer:            src.Customer.party(),
		Lines:            []Line{},
		TaxSubtotals:     []TaxSubtotal{},
		BillingReference: firstBillingReference(src.BillingReferences),
		Specification:    text(src.CustomizationID),
	}
	doc.Profile = ProfileOf(doc.Specification)
	doc.Type = DocTypeFor(doc.TypeCode)
	if isCreditNote {
		doc.Type = TypeCreditNote
	}
	if doc.DueDate == "" {
		doc.DueDate = firstDueDate(src.PaymentMeans, src.PaymentTerms)
	}
	for _, m := range src.PaymentMeans {
		if doc.PayeeIBAN = text(m.PayeeAccount); doc.PayeeIBAN != "" {
			break
		}
	}

	lines := src.InvoiceLines
	lineElement := "InvoiceLine"
	if isCreditNote || len(lines) == 0 {
		lines, lineElement = src.CreditNoteLines, "CreditNoteLine"
	}
	for i, l := range lines {
		doc.Lines = append(doc.Lines, l.line(r, fmt.Sprintf("%s[%d]", lineElement, i)))
	}

	if total, ok := documentTaxTotal(src.TaxTotals, doc.Currency); ok {
		doc.Totals.Tax = r.decimal("TaxTotal/TaxAmount", total.TaxAmount.Value)
		for i, s := range total.Subtotals {
			field := fmt.Sprintf("TaxTotal/TaxSubtotal[%d]", i)
			doc.TaxSubtotals = append(doc.TaxSubtotals, TaxSubtotal{
				Category: text(s.Category.ID),
				Rate:     r.decimal(field+"/TaxCategory/Percent", firstText(s.Category.Percent, s.Percent)),
				Taxable:  r.decimal(field+"/TaxableAmount", s.TaxableAmount.Value),
				Tax:      r.decimal(field+"/TaxAmount", s.TaxAmount.Value),
			})
		}
	}

	m := src.Monetary
	doc.Totals.LineTotal = r.decimal("LegalMonetaryTotal/LineExtensionAmount", m.LineExtensionAmount.Value)
	doc.Totals.AllowanceTotal = r.decimal("LegalMonetaryTotal/AllowanceTotalAmount", m.AllowanceTotalAmount.Value)
	doc.Totals.ChargeTotal = r.decimal("LegalMonetaryTotal/ChargeTotalAmount", m.ChargeTotalAmount.Value)
	doc.Totals.Net = r.decimal("LegalMonetaryTotal/TaxExclusiveAmount", m.TaxExclusiveAmount.Value)
	doc.Totals.Gross = r.decimal("LegalMonetaryTotal/TaxInclusiveAmount", m.TaxInclusiveAmount.Value)
	doc.Totals.Prepaid = r.decimal("LegalMonetaryTotal/PrepaidAmount", m.PrepaidAmount.Value)
	doc.Totals.Rounding = r.decimal("LegalMonetaryTotal/PayableRoundingAmount", m.PayableRoundingAmount.Value)
	doc.Totals.Payable = r.decimal("LegalMonetaryTotal/PayableAmount", m.PayableAmount.Value)

	if r.err != nil {
		return Document{}, r.err
	}
	doc.Conformance, doc.RulesJudged = Conformance(doc.Profile, "ubl", data)
	return doc, nil
}

func (p ublParty) party() Party {
	party := Party{
		// EN 16931's seller and buyer name (BT-27, BT-44) is the legal
		// registration name; PartyName is the trading name (BT-28, BT-45),
		// which does not stand in for it (BR-06, BR-07).
		Name:           text(p.LegalEntity.RegistrationName),
		EndpointID:     text(p.EndpointID.Value),
		EndpointScheme: text(p.EndpointID.Scheme),
		LegalID:        text(p.LegalEntity.CompanyID),
	}
	if party.EndpointID == "" {
		party.EndpointScheme = ""
	}
	a := p.PostalAddress
	party.Address = PostalAddress(append([]string{a.StreetName, a.AdditionalStreetName}, a.Lines...), a.CityName, a.PostalZone, a.Country)
	for _, ts := range p.TaxSchemes {
		if strings.EqualFold(text(ts.TaxSchemeID), "VAT") && text(ts.CompanyID) != "" {
			party.VATID = text(ts.CompanyID)
			break
		}
	}
	return party
}

func (l ublLine) line(r *fieldReader, field string) Line {
	quantity := l.InvoicedQuantity.Value
	quantityField := field + "/InvoicedQuantity"
	if text(quantity) == "" {
		quantity, quantityField = l.CreditedQuantity.Value, field+"/CreditedQuantity"
	}
	line := Line{
		Description:       firstText(append([]string{l.Item.Name}, l.Item.Descriptions...)...),
		Quantity:          r.decimal(quantityField, quantity),
		UnitPrice:         r.decimal(field+"/Price/PriceAmount", l.Price.PriceAmount.Value),
		PriceBaseQuantity: r.decimal(field+"/Price/BaseQuantity", l.Price.BaseQuantity.Value),
		Net:               r.decimal(field+"/LineExtensionAmount", l.LineExtensionAmount.Value),
		TaxRate:           r.decimal(field+"/Item/ClassifiedTaxCategory/Percent", l.Item.TaxCategory.Percent),
		TaxCategory:       text(l.Item.TaxCategory.ID),
	}
	for i, ac := range l.AllowanceCharges {
		amount := r.decimal(fmt.Sprintf("%s/AllowanceCharge[%d]/Amount", field, i), ac.Amount.Value)
		if isTrue(ac.ChargeIndicator) {
			line.Charges = line.Charges.Add(amount)
		} else {
			line.Allowances = line.Allowances.Add(amount)
		}
	}
	return line
}

func firstBillingReference(refs []ublBillingRef) string {
	for _, ref := range refs {
		if id := text(ref.InvoiceID); id != "" {
			return id
		}
	}
	return ""
}

func firstDueDate(groups ...[]ublPaymentDueDate) string {
	for _, group := range groups {
		for _, g := range group {
			if d := isoDate(g.PaymentDueDate); d != "" {
				return d
			}
		}
	}
	return ""
}

// documentTaxTotal picks the TaxTotal in the document currency; failing a currency match, the first one
// with subtotals; failing that, the first.
func documentTaxTotal(totals []ublTaxTotal, currency string) (ublTaxTotal, bool) {
	if len(totals) == 0 {
		return ublTaxTotal{}, false
	}
	for _, t := range totals {
		if currency != "" && strings.EqualFold(text(t.TaxAmount.Currency), currency) {
			return t, true
		}
	}
	for _, t := range totals {
		if len(t.Subtotals) > 0 {
			return t, true
		}
	}
	return totals[0], true
}
