package einvoice

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"greatbook/internal/money"
)

// BuildCII renders d as an EN 16931 UN/CEFACT CrossIndustryInvoice, the XML the typewriter embeds in the
// PDFs it generates. The output is deterministic (the same document gives the same bytes) and ParseCII
// reads every field of d back.
//
// What the model does not hold is not invented, with two exceptions EN 16931 makes mandatory: every
// quantity gets unit code C62 ("one"), and a party with a VAT id gets a postal address whose country is
// the VAT id's prefix (EL becomes GR). The zero rate of category O (not subject to VAT) is left out, as
// EN 16931 forbids a rate there (BR-O-05 to BR-O-07). Document-level allowances and charges appear only
// as the totals in the monetary summation, since the model keeps no breakdown of them.
func BuildCII(d Document) ([]byte, error) {
	issue, err := ciiDateText("issue_date", d.IssueDate)
	if err != nil {
		return nil, err
	}
	due, err := ciiDateText("due_date", d.DueDate)
	if err != nil {
		return nil, err
	}
	typeCode := documentTypeCode(d)
	amount := amountFormat(d.Currency)

	w := &xmlWriter{}
	w.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.raw(`<rsm:CrossIndustryInvoice xmlns:rsm="` + nsCII + `"` +
		` xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"` +
		` xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100"` +
		` xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">` + "\n")
	w.open("rsm:ExchangedDocumentContext")
	w.open("ram:GuidelineSpecifiedDocumentContextParameter")
	w.elem("ram:ID", enSpecification)
	w.close("ram:GuidelineSpecifiedDocumentContextParameter")
	w.close("rsm:ExchangedDocumentContext")

	w.open("rsm:ExchangedDocument")
	w.elem("ram:ID", d.Number)
	w.elem("ram:TypeCode", typeCode)
	w.ciiDateTime("ram:IssueDateTime", issue)
	w.close("rsm:ExchangedDocument")

	w.open("rsm:SupplyChainTradeTransaction")
	for i, l := range d.Lines {
		w.ciiLineItem(i, l, amount)
	}

	w.open("ram:ApplicableHeaderTradeAgreement")
	w.ciiTradeParty("ram:SellerTradeParty", d.Seller)
	w.ciiTradeParty("ram:BuyerTradeParty", d.Buyer)
	w.close("ram:ApplicableHeaderTradeAgreement")
	w.empty("ram:ApplicableHeaderTradeDelivery")

	w.ciiSettlement(d, due, amount)
	w.close("rsm:SupplyChainTradeTransaction")
	w.raw("</rsm:CrossIndustryInvoice>\n")
	return w.buf.Bytes(), nil
}

// ciiLineItem writes l, the line at index i, as an IncludedSupplyChainTradeLineItem.
func (w *xmlWriter) ciiLineItem(i int, l Line, amount func(decimal.Decimal) string) {
	w.open("ram:IncludedSupplyChainTradeLineItem")
	w.open("ram:AssociatedDocumentLineDocument")
	w.elem("ram:LineID", fmt.Sprint(i+1))
	w.close("ram:AssociatedDocumentLineDocument")
	w.open("ram:SpecifiedTradeProduct")
	w.elem("ram:Name", l.Description)
	w.close("ram:SpecifiedTradeProduct")
	w.open("ram:SpecifiedLineTradeAgreement")
	w.open("ram:NetPriceProductTradePrice")
	w.elem("ram:ChargeAmount", money.Canonical(l.UnitPrice))
	if !l.PriceBaseQuantity.IsZero() {
		w.elemAttr("ram:BasisQuantity", "unitCode", "C62", money.Canonical(l.PriceBaseQuantity))
	}
	w.close("ram:NetPriceProductTradePrice")
	w.close("ram:SpecifiedLineTradeAgreement")
	w.open("ram:SpecifiedLineTradeDelivery")
	w.elemAttr("ram:BilledQuantity", "unitCode", "C62", money.Canonical(l.Quantity))
	w.close("ram:SpecifiedLineTradeDelivery")
	w.open("ram:SpecifiedLineTradeSettlement")
	w.open("ram:ApplicableTradeTax")
	w.elem("ram:TypeCode", "VAT")
	w.optional("ram:CategoryCode", l.TaxCategory)
	if statesRate(l.TaxCategory, l.TaxRate) {
		w.elem("ram:RateApplicablePercent", money.Canonical(l.TaxRate))
	}
	w.close("ram:ApplicableTradeTax")
	w.ciiAllowanceCharge(false, l.Allowances)
	w.ciiAllowanceCharge(true, l.Charges)
	w.open("ram:SpecifiedTradeSettlementLineMonetarySummation")
	w.elem("ram:LineTotalAmount", amount(l.Net))
	w.close("ram:SpecifiedTradeSettlementLineMonetarySummation")
	w.close("ram:SpecifiedLineTradeSettlement")
	w.close("ram:IncludedSupplyChainTradeLineItem")
}

// ciiSettlement writes the ApplicableHeaderTradeSettlement: currency, the payee's account, tax subtotals, payment terms
// (due is the due date in format 102, or empty), the monetary summation and the billing reference.
func (w *xmlWriter) ciiSettlement(d Document, due string, amount func(decimal.Decimal) string) {
	w.open("ram:ApplicableHeaderTradeSettlement")
	w.elem("ram:InvoiceCurrencyCode", d.Currency)
	if d.PayeeIBAN != "" {
		// BG-16: a credit transfer (UNTDID 4461 code 30) to the payee's account, BT-84.
		w.open("ram:SpecifiedTradeSettlementPaymentMeans")
		w.elem("ram:TypeCode", "30")
		w.open("ram:PayeePartyCreditorFinancialAccount")
		w.elem("ram:IBANID", d.PayeeIBAN)
		w.close("ram:PayeePartyCreditorFinancialAccount")
		w.close("ram:SpecifiedTradeSettlementPaymentMeans")
	}
	for _, s := range d.TaxSubtotals {
		w.open("ram:ApplicableTradeTax")
		w.elem("ram:CalculatedAmount", amount(s.Tax))
		w.elem("ram:TypeCode", "VAT")
		w.elem("ram:BasisAmount", amount(s.Taxable))
		w.optional("ram:CategoryCode", s.Category)
		if statesRate(s.Category, s.Rate) {
			w.elem("ram:RateApplicablePercent", money.Canonical(s.Rate))
		}
		w.close("ram:ApplicableTradeTax")
	}
	if due != "" {
		w.open("ram:SpecifiedTradePaymentTerms")
		w.ciiDateTime("ram:DueDateDateTime", due)
		w.close("ram:SpecifiedTradePaymentTerms")
	}
	t := d.Totals
	w.open("ram:SpecifiedTradeSettlementHeaderMonetarySummation")
	w.elem("ram:LineTotalAmount", amount(t.LineTotal))
	w.elem("ram:ChargeTotalAmount", amount(t.ChargeTotal))
	w.elem("ram:AllowanceTotalAmount", amount(t.AllowanceTotal))
	w.elem("ram:TaxBasisTotalAmount", amount(t.Net))
	w.elemAttr("ram:TaxTotalAmount", "currencyID", d.Currency, amount(t.Tax))
	if !t.Rounding.IsZero() {
		w.elem("ram:RoundingAmount", amount(t.Rounding))
	}
	w.elem("ram:GrandTotalAmount", amount(t.Gross))
	w.elem("ram:TotalPrepaidAmount", amount(t.Prepaid))
	w.elem("ram:DuePayableAmount", amount(t.Payable))
	w.close("ram:SpecifiedTradeSettlementHeaderMonetarySummation")
	if d.BillingReference != "" {
		w.open("ram:InvoiceReferencedDocument")
		w.elem("ram:IssuerAssignedID", d.BillingReference)
		w.close("ram:InvoiceReferencedDocument")
	}
	w.close("ram:ApplicableHeaderTradeSettlement")
}

// ciiDateText turns YYYY-MM-DD into format 102 (CCYYMMDD); an empty date stays empty.
func ciiDateText(field, date string) (string, error) {
	if err := checkBuildDate("cii", field, date); err != nil {
		return "", err
	}
	return strings.ReplaceAll(date, "-", ""), nil
}

// ciiDateTime writes a date-time element holding date102, a date in format 102.
func (w *xmlWriter) ciiDateTime(name, date102 string) {
	w.open(name)
	w.elemAttr("udt:DateTimeString", "format", "102", date102)
	w.close(name)
}

// ciiAllowanceCharge writes a line's allowances (or, with charge, its charges) as one
// SpecifiedTradeAllowanceCharge, or nothing when they are zero.
func (w *xmlWriter) ciiAllowanceCharge(charge bool, amount decimal.Decimal) {
	if amount.IsZero() {
		return
	}
	w.open("ram:SpecifiedTradeAllowanceCharge")
	w.open("ram:ChargeIndicator")
	w.elem("udt:Indicator", fmt.Sprint(charge))
	w.close("ram:ChargeIndicator")
	w.elem("ram:ActualAmount", money.Canonical(amount))
	w.close("ram:SpecifiedTradeAllowanceCharge")
}

// ciiTradeParty writes p as the trade party element name.
func (w *xmlWriter) ciiTradeParty(name string, p Party) {
	w.open(name)
	w.optional("ram:Name", p.Name)
	if p.LegalID != "" {
		w.open("ram:SpecifiedLegalOrganization")
		w.elem("ram:ID", p.LegalID)
		w.close("ram:SpecifiedLegalOrganization")
	}
	if a, ok := addressToWrite(p); ok {
		w.open("ram:PostalTradeAddress")
		w.optional("ram:PostcodeCode", a.Postcode)
		w.optional("ram:LineOne", a.Line1)
		w.optional("ram:LineTwo", a.Line2)
		w.optional("ram:LineThree", a.Line3)
		w.optional("ram:CityName", a.City)
		w.optional("ram:CountryID", a.Country)
		w.close("ram:PostalTradeAddress")
	}
	if p.EndpointID != "" {
		w.open("ram:URIUniversalCommunication")
		w.elemAttr("ram:URIID", "schemeID", p.EndpointScheme, p.EndpointID)
		w.close("ram:URIUniversalCommunication")
	}
	if p.VATID != "" {
		w.open("ram:SpecifiedTaxRegistration")
		w.elemAttr("ram:ID", "schemeID", "VA", p.VATID)
		w.close("ram:SpecifiedTaxRegistration")
	}
	w.close(name)
}
