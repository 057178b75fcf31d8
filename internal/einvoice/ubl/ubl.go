// Package ubl reads and writes UBL 2.1 invoices and credit notes (Peppol BIS Billing 3.0, EN 16931):
// Parse fills an einvoice.Document from one, Build writes one from a Document.
package ubl

import (
	"encoding/xml"
	"fmt"
	"strings"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/xmltext"
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
	// PayeeBIC is BT-86, the payee's bank of that account.
	PayeeBIC string `xml:"PayeeFinancialAccount>FinancialInstitutionBranch>ID"`
}

type ublParty struct {
	EndpointID  xmltext.IDText      `xml:"EndpointID"`
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
	TaxAmount xmltext.AmountText `xml:"TaxAmount"`
	Subtotals []ublTaxSubtotal   `xml:"TaxSubtotal"`
}

type ublTaxSubtotal struct {
	TaxableAmount xmltext.AmountText `xml:"TaxableAmount"`
	TaxAmount     xmltext.AmountText `xml:"TaxAmount"`
	Percent       string             `xml:"Percent"`
	Category      ublTaxCategory     `xml:"TaxCategory"`
}

type ublTaxCategory struct {
	ID      string `xml:"ID"`
	Percent string `xml:"Percent"`
}

type ublMonetaryTotal struct {
	LineExtensionAmount   xmltext.AmountText `xml:"LineExtensionAmount"`
	TaxExclusiveAmount    xmltext.AmountText `xml:"TaxExclusiveAmount"`
	TaxInclusiveAmount    xmltext.AmountText `xml:"TaxInclusiveAmount"`
	AllowanceTotalAmount  xmltext.AmountText `xml:"AllowanceTotalAmount"`
	ChargeTotalAmount     xmltext.AmountText `xml:"ChargeTotalAmount"`
	PrepaidAmount         xmltext.AmountText `xml:"PrepaidAmount"`
	PayableRoundingAmount xmltext.AmountText `xml:"PayableRoundingAmount"`
	PayableAmount         xmltext.AmountText `xml:"PayableAmount"`
}

type ublLine struct {
	InvoicedQuantity    xmltext.AmountText   `xml:"InvoicedQuantity"`
	CreditedQuantity    xmltext.AmountText   `xml:"CreditedQuantity"`
	LineExtensionAmount xmltext.AmountText   `xml:"LineExtensionAmount"`
	AllowanceCharges    []ublAllowanceCharge `xml:"AllowanceCharge"`
	Item                struct {
		Descriptions []string       `xml:"Description"`
		Name         string         `xml:"Name"`
		TaxCategory  ublTaxCategory `xml:"ClassifiedTaxCategory"`
	} `xml:"Item"`
	Price struct {
		PriceAmount  xmltext.AmountText `xml:"PriceAmount"`
		BaseQuantity xmltext.AmountText `xml:"BaseQuantity"`
	} `xml:"Price"`
}

type ublAllowanceCharge struct {
	ChargeIndicator string             `xml:"ChargeIndicator"`
	Amount          xmltext.AmountText `xml:"Amount"`
}

// The namespaces of the root elements of a UBL 2.1 Invoice and CreditNote.
const (
	nsUBLInvoice    = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	nsUBLCreditNote = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
)

// IsUBLRoot reports the root element of a UBL 2.1 Invoice or CreditNote.
func IsRoot(root xml.Name) bool {
	return root.Space == nsUBLInvoice && root.Local == "Invoice" || root.Space == nsUBLCreditNote && root.Local == "CreditNote"
}

// Parse extracts a UBL 2.1 Invoice or CreditNote (Peppol BIS Billing 3.0, EN 16931).
//
// The due date is cbc:DueDate; a credit note has none in UBL 2.1, so the first
// PaymentMeans/PaymentDueDate and then the first PaymentTerms/PaymentDueDate stand in. Free-text payment
// terms are never read for a date. Of several TaxTotal elements, the one whose TaxAmount is in the
// document currency is used (the other is the tax-currency total EN 16931 allows).
func Parse(data []byte) (einvoice.Document, error) {
	return ParseUntil(nil, data)
}

// ParseUntil is Parse that stops once dl has passed.
func ParseUntil(dl *einvoice.Deadline, data []byte) (einvoice.Document, error) {
	root, ok := xmltext.Root(data)
	if !ok {
		return einvoice.Document{}, einvoice.ParseErrorf(einvoice.FormatUBL, "", "no root element")
	}
	isCreditNote := root.Space == nsUBLCreditNote && root.Local == "CreditNote"
	if !IsRoot(root) {
		return einvoice.Document{}, einvoice.ParseErrorf(einvoice.FormatUBL, "", "root element {%s}%s is not a UBL Invoice or CreditNote", einvoice.ClipText(root.Space), einvoice.ClipText(root.Local))
	}
	var src ublDocument
	if err := xmltext.Decode(dl, einvoice.FormatUBL, data, &src); err != nil {
		return einvoice.Document{}, err
	}
	r := &xmltext.FieldReader{Format: einvoice.FormatUBL}

	doc := einvoice.Document{
		Format:           einvoice.FormatUBL,
		TypeCode:         xmltext.FirstText(src.InvoiceTypeCode, src.CreditNoteTypeCode),
		Number:           xmltext.Text(src.ID),
		IssueDate:        xmltext.ISODate(src.IssueDate),
		DueDate:          xmltext.ISODate(src.DueDate),
		Currency:         xmltext.Text(src.DocumentCurrencyCode),
		Seller:           src.Supplier.party(),
		Buyer:            src.Customer.party(),
		Lines:            []einvoice.Line{},
		TaxSubtotals:     []einvoice.TaxSubtotal{},
		BillingReference: firstBillingReference(src.BillingReferences),
		Specification:    xmltext.Text(src.CustomizationID),
	}
	doc.Profile = einvoice.ProfileOf(doc.Specification)
	doc.Type = einvoice.DocTypeFor(doc.TypeCode)
	if isCreditNote {
		doc.Type = einvoice.TypeCreditNote
	}
	if doc.DueDate == "" {
		doc.DueDate = firstDueDate(src.PaymentMeans, src.PaymentTerms)
	}
	for _, m := range src.PaymentMeans {
		if doc.PayeeIBAN = xmltext.Text(m.PayeeAccount); doc.PayeeIBAN != "" {
			doc.PayeeBIC = xmltext.Text(m.PayeeBIC)
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
		doc.Totals.Tax = r.Decimal("TaxTotal/TaxAmount", total.TaxAmount.Value)
		for i, s := range total.Subtotals {
			field := fmt.Sprintf("TaxTotal/TaxSubtotal[%d]", i)
			doc.TaxSubtotals = append(doc.TaxSubtotals, einvoice.TaxSubtotal{
				Category: xmltext.Text(s.Category.ID),
				Rate:     r.Decimal(field+"/TaxCategory/Percent", xmltext.FirstText(s.Category.Percent, s.Percent)),
				Taxable:  r.Decimal(field+"/TaxableAmount", s.TaxableAmount.Value),
				Tax:      r.Decimal(field+"/TaxAmount", s.TaxAmount.Value),
			})
		}
	}

	m := src.Monetary
	doc.Totals.LineTotal = r.Decimal("LegalMonetaryTotal/LineExtensionAmount", m.LineExtensionAmount.Value)
	doc.Totals.AllowanceTotal = r.Decimal("LegalMonetaryTotal/AllowanceTotalAmount", m.AllowanceTotalAmount.Value)
	doc.Totals.ChargeTotal = r.Decimal("LegalMonetaryTotal/ChargeTotalAmount", m.ChargeTotalAmount.Value)
	doc.Totals.Net = r.Decimal("LegalMonetaryTotal/TaxExclusiveAmount", m.TaxExclusiveAmount.Value)
	doc.Totals.Gross = r.Decimal("LegalMonetaryTotal/TaxInclusiveAmount", m.TaxInclusiveAmount.Value)
	doc.Totals.Prepaid = r.Decimal("LegalMonetaryTotal/PrepaidAmount", m.PrepaidAmount.Value)
	doc.Totals.Rounding = r.Decimal("LegalMonetaryTotal/PayableRoundingAmount", m.PayableRoundingAmount.Value)
	doc.Totals.Payable = r.Decimal("LegalMonetaryTotal/PayableAmount", m.PayableAmount.Value)

	if r.Err != nil {
		return einvoice.Document{}, r.Err
	}
	doc.Conformance, doc.RulesJudged = einvoice.Conformance(doc.Profile, "ubl", data)
	return doc, nil
}

func (p ublParty) party() einvoice.Party {
	party := einvoice.Party{
		// EN 16931's seller and buyer name (BT-27, BT-44) is the legal
		// registration name; PartyName is the trading name (BT-28, BT-45),
		// which does not stand in for it (BR-06, BR-07).
		Name:           xmltext.Text(p.LegalEntity.RegistrationName),
		EndpointID:     xmltext.Text(p.EndpointID.Value),
		EndpointScheme: xmltext.Text(p.EndpointID.Scheme),
		LegalID:        xmltext.Text(p.LegalEntity.CompanyID),
	}
	if party.EndpointID == "" {
		party.EndpointScheme = ""
	}
	a := p.PostalAddress
	party.Address = einvoice.PostalAddress(append([]string{a.StreetName, a.AdditionalStreetName}, a.Lines...), a.CityName, a.PostalZone, a.Country)
	for _, ts := range p.TaxSchemes {
		if strings.EqualFold(xmltext.Text(ts.TaxSchemeID), "VAT") && xmltext.Text(ts.CompanyID) != "" {
			party.VATID = xmltext.Text(ts.CompanyID)
			break
		}
	}
	return party
}

func (l ublLine) line(r *xmltext.FieldReader, field string) einvoice.Line {
	quantity := l.InvoicedQuantity.Value
	quantityField := field + "/InvoicedQuantity"
	if xmltext.Text(quantity) == "" {
		quantity, quantityField = l.CreditedQuantity.Value, field+"/CreditedQuantity"
	}
	line := einvoice.Line{
		Description:       xmltext.FirstText(append([]string{l.Item.Name}, l.Item.Descriptions...)...),
		Quantity:          r.Decimal(quantityField, quantity),
		UnitPrice:         r.Decimal(field+"/Price/PriceAmount", l.Price.PriceAmount.Value),
		PriceBaseQuantity: r.Decimal(field+"/Price/BaseQuantity", l.Price.BaseQuantity.Value),
		Net:               r.Decimal(field+"/LineExtensionAmount", l.LineExtensionAmount.Value),
		TaxRate:           r.Decimal(field+"/Item/ClassifiedTaxCategory/Percent", l.Item.TaxCategory.Percent),
		TaxCategory:       xmltext.Text(l.Item.TaxCategory.ID),
	}
	for i, ac := range l.AllowanceCharges {
		amount := r.Decimal(fmt.Sprintf("%s/AllowanceCharge[%d]/Amount", field, i), ac.Amount.Value)
		if xmltext.IsTrue(ac.ChargeIndicator) {
			line.Charges = line.Charges.Add(amount)
		} else {
			line.Allowances = line.Allowances.Add(amount)
		}
	}
	return line
}

func firstBillingReference(refs []ublBillingRef) string {
	for _, ref := range refs {
		if id := xmltext.Text(ref.InvoiceID); id != "" {
			return id
		}
	}
	return ""
}

func firstDueDate(groups ...[]ublPaymentDueDate) string {
	for _, group := range groups {
		for _, g := range group {
			if d := xmltext.ISODate(g.PaymentDueDate); d != "" {
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
		if currency != "" && strings.EqualFold(xmltext.Text(t.TaxAmount.Currency), currency) {
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
