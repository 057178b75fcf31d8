package cii

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/xmltext"
	"greatbook/internal/money"
)

// Build renders d as an EN 16931 UN/CEFACT CrossIndustryInvoice, the XML the typewriter embeds in the
// PDFs it generates. The output is deterministic (the same document gives the same bytes) and Parse
// reads every field of d back.
//
// What the model does not hold is not invented, with two exceptions EN 16931 makes mandatory: every
// quantity gets unit code C62 ("one"), and a party with a VAT id gets a postal address whose country is
// the VAT id's prefix (EL becomes GR). The zero rate of category O (not subject to VAT) is left out, as
// EN 16931 forbids a rate there (BR-O-05 to BR-O-07). Document-level allowances and charges appear only
// as the totals in the monetary summation, since the model keeps no breakdown of them.
func Build(d einvoice.Document) ([]byte, error) {
	issue, err := ciiDateText("issue_date", d.IssueDate)
	if err != nil {
		return nil, err
	}
	due, err := ciiDateText("due_date", d.DueDate)
	if err != nil {
		return nil, err
	}
	typeCode := xmltext.DocumentTypeCode(d)
	amount := xmltext.AmountFormat(d.Currency)

	w := &ciiWriter{}
	w.Raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.Raw(`<rsm:CrossIndustryInvoice xmlns:rsm="` + nsCII + `"` +
		` xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"` +
		` xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100"` +
		` xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">` + "\n")
	w.Open("rsm:ExchangedDocumentContext")
	w.Open("ram:GuidelineSpecifiedDocumentContextParameter")
	w.Elem("ram:ID", xmltext.ENSpecification)
	w.Close("ram:GuidelineSpecifiedDocumentContextParameter")
	w.Close("rsm:ExchangedDocumentContext")

	w.Open("rsm:ExchangedDocument")
	w.Elem("ram:ID", d.Number)
	w.Elem("ram:TypeCode", typeCode)
	w.ciiDateTime("ram:IssueDateTime", issue)
	w.Close("rsm:ExchangedDocument")

	w.Open("rsm:SupplyChainTradeTransaction")
	for i, l := range d.Lines {
		w.ciiLineItem(i, l, amount)
	}

	w.Open("ram:ApplicableHeaderTradeAgreement")
	w.ciiTradeParty("ram:SellerTradeParty", d.Seller)
	w.ciiTradeParty("ram:BuyerTradeParty", d.Buyer)
	w.Close("ram:ApplicableHeaderTradeAgreement")
	w.Empty("ram:ApplicableHeaderTradeDelivery")

	w.ciiSettlement(d, due, amount)
	w.Close("rsm:SupplyChainTradeTransaction")
	w.Raw("</rsm:CrossIndustryInvoice>\n")
	return w.Bytes(), nil
}

// ciiWriter writes the elements of a CrossIndustryInvoice.
type ciiWriter struct{ xmltext.Writer }

// ciiLineItem writes l, the line at index i, as an IncludedSupplyChainTradeLineItem.
func (w *ciiWriter) ciiLineItem(i int, l einvoice.Line, amount func(decimal.Decimal) string) {
	w.Open("ram:IncludedSupplyChainTradeLineItem")
	w.Open("ram:AssociatedDocumentLineDocument")
	w.Elem("ram:LineID", fmt.Sprint(i+1))
	w.Close("ram:AssociatedDocumentLineDocument")
	w.Open("ram:SpecifiedTradeProduct")
	w.Elem("ram:Name", l.Description)
	w.Close("ram:SpecifiedTradeProduct")
	w.Open("ram:SpecifiedLineTradeAgreement")
	w.Open("ram:NetPriceProductTradePrice")
	w.Elem("ram:ChargeAmount", money.Canonical(l.UnitPrice))
	if !l.PriceBaseQuantity.IsZero() {
		w.ElemAttr("ram:BasisQuantity", "unitCode", "C62", money.Canonical(l.PriceBaseQuantity))
	}
	w.Close("ram:NetPriceProductTradePrice")
	w.Close("ram:SpecifiedLineTradeAgreement")
	w.Open("ram:SpecifiedLineTradeDelivery")
	w.ElemAttr("ram:BilledQuantity", "unitCode", "C62", money.Canonical(l.Quantity))
	w.Close("ram:SpecifiedLineTradeDelivery")
	w.Open("ram:SpecifiedLineTradeSettlement")
	w.Open("ram:ApplicableTradeTax")
	w.Elem("ram:TypeCode", "VAT")
	w.Optional("ram:CategoryCode", l.TaxCategory)
	if xmltext.StatesRate(l.TaxCategory, l.TaxRate) {
		w.Elem("ram:RateApplicablePercent", money.Canonical(l.TaxRate))
	}
	w.Close("ram:ApplicableTradeTax")
	w.ciiAllowanceCharge(false, l.Allowances)
	w.ciiAllowanceCharge(true, l.Charges)
	w.Open("ram:SpecifiedTradeSettlementLineMonetarySummation")
	w.Elem("ram:LineTotalAmount", amount(l.Net))
	w.Close("ram:SpecifiedTradeSettlementLineMonetarySummation")
	w.Close("ram:SpecifiedLineTradeSettlement")
	w.Close("ram:IncludedSupplyChainTradeLineItem")
}

// ciiSettlement writes the ApplicableHeaderTradeSettlement: currency, the payee's account, tax subtotals, payment terms
// (due is the due date in format 102, or empty), the monetary summation and the billing reference.
func (w *ciiWriter) ciiSettlement(d einvoice.Document, due string, amount func(decimal.Decimal) string) {
	w.Open("ram:ApplicableHeaderTradeSettlement")
	w.Elem("ram:InvoiceCurrencyCode", d.Currency)
	if d.PayeeIBAN != "" {
		// BG-16: a credit transfer (UNTDID 4461 code 30) to the payee's account, BT-84.
		w.Open("ram:SpecifiedTradeSettlementPaymentMeans")
		w.Elem("ram:TypeCode", "30")
		w.Open("ram:PayeePartyCreditorFinancialAccount")
		w.Elem("ram:IBANID", d.PayeeIBAN)
		w.Close("ram:PayeePartyCreditorFinancialAccount")
		if d.PayeeBIC != "" {
			// BT-86, the payee's bank; CII orders it after the account.
			w.Open("ram:PayeeSpecifiedCreditorFinancialInstitution")
			w.Elem("ram:BICID", d.PayeeBIC)
			w.Close("ram:PayeeSpecifiedCreditorFinancialInstitution")
		}
		w.Close("ram:SpecifiedTradeSettlementPaymentMeans")
	}
	for _, s := range d.TaxSubtotals {
		w.Open("ram:ApplicableTradeTax")
		w.Elem("ram:CalculatedAmount", amount(s.Tax))
		w.Elem("ram:TypeCode", "VAT")
		w.Elem("ram:BasisAmount", amount(s.Taxable))
		w.Optional("ram:CategoryCode", s.Category)
		if xmltext.StatesRate(s.Category, s.Rate) {
			w.Elem("ram:RateApplicablePercent", money.Canonical(s.Rate))
		}
		w.Close("ram:ApplicableTradeTax")
	}
	if due != "" {
		w.Open("ram:SpecifiedTradePaymentTerms")
		w.ciiDateTime("ram:DueDateDateTime", due)
		w.Close("ram:SpecifiedTradePaymentTerms")
	}
	t := d.Totals
	w.Open("ram:SpecifiedTradeSettlementHeaderMonetarySummation")
	w.Elem("ram:LineTotalAmount", amount(t.LineTotal))
	w.Elem("ram:ChargeTotalAmount", amount(t.ChargeTotal))
	w.Elem("ram:AllowanceTotalAmount", amount(t.AllowanceTotal))
	w.Elem("ram:TaxBasisTotalAmount", amount(t.Net))
	w.ElemAttr("ram:TaxTotalAmount", "currencyID", d.Currency, amount(t.Tax))
	if !t.Rounding.IsZero() {
		w.Elem("ram:RoundingAmount", amount(t.Rounding))
	}
	w.Elem("ram:GrandTotalAmount", amount(t.Gross))
	w.Elem("ram:TotalPrepaidAmount", amount(t.Prepaid))
	w.Elem("ram:DuePayableAmount", amount(t.Payable))
	w.Close("ram:SpecifiedTradeSettlementHeaderMonetarySummation")
	if d.BillingReference != "" {
		w.Open("ram:InvoiceReferencedDocument")
		w.Elem("ram:IssuerAssignedID", d.BillingReference)
		w.Close("ram:InvoiceReferencedDocument")
	}
	w.Close("ram:ApplicableHeaderTradeSettlement")
}

// ciiDateText turns YYYY-MM-DD into format 102 (CCYYMMDD); an empty date stays empty.
func ciiDateText(field, date string) (string, error) {
	if err := xmltext.CheckBuildDate("cii", field, date); err != nil {
		return "", err
	}
	return strings.ReplaceAll(date, "-", ""), nil
}

// ciiDateTime writes a date-time element holding date102, a date in format 102.
func (w *ciiWriter) ciiDateTime(name, date102 string) {
	w.Open(name)
	w.ElemAttr("udt:DateTimeString", "format", "102", date102)
	w.Close(name)
}

// ciiAllowanceCharge writes a line's allowances (or, with charge, its charges) as one
// SpecifiedTradeAllowanceCharge, or nothing when they are zero.
func (w *ciiWriter) ciiAllowanceCharge(charge bool, amount decimal.Decimal) {
	if amount.IsZero() {
		return
	}
	w.Open("ram:SpecifiedTradeAllowanceCharge")
	w.Open("ram:ChargeIndicator")
	w.Elem("udt:Indicator", fmt.Sprint(charge))
	w.Close("ram:ChargeIndicator")
	w.Elem("ram:ActualAmount", money.Canonical(amount))
	w.Close("ram:SpecifiedTradeAllowanceCharge")
}

// ciiTradeParty writes p as the trade party element name.
func (w *ciiWriter) ciiTradeParty(name string, p einvoice.Party) {
	w.Open(name)
	w.Optional("ram:Name", p.Name)
	if p.LegalID != "" {
		w.Open("ram:SpecifiedLegalOrganization")
		w.Elem("ram:ID", p.LegalID)
		w.Close("ram:SpecifiedLegalOrganization")
	}
	if a, ok := xmltext.AddressToWrite(p); ok {
		w.Open("ram:PostalTradeAddress")
		w.Optional("ram:PostcodeCode", a.Postcode)
		w.Optional("ram:LineOne", a.Line1)
		w.Optional("ram:LineTwo", a.Line2)
		w.Optional("ram:LineThree", a.Line3)
		w.Optional("ram:CityName", a.City)
		w.Optional("ram:CountryID", a.Country)
		w.Close("ram:PostalTradeAddress")
	}
	if p.EndpointID != "" {
		w.Open("ram:URIUniversalCommunication")
		w.ElemAttr("ram:URIID", "schemeID", p.EndpointScheme, p.EndpointID)
		w.Close("ram:URIUniversalCommunication")
	}
	if p.VATID != "" {
		w.Open("ram:SpecifiedTaxRegistration")
		w.ElemAttr("ram:ID", "schemeID", "VA", p.VATID)
		w.Close("ram:SpecifiedTaxRegistration")
	}
	w.Close(name)
}
