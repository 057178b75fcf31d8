package einvoice

import (
	"bytes"
	"encoding/xml"
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
// the VAT id's prefix (EL becomes GR). Document-level allowances and charges appear only as the totals in
// the monetary summation, since the model keeps no breakdown of them.
func BuildCII(d Document) ([]byte, error) {
	issue, err := ciiDateText("issue_date", d.IssueDate)
	if err != nil {
		return nil, err
	}
	due, err := ciiDateText("due_date", d.DueDate)
	if err != nil {
		return nil, err
	}
	typeCode := ciiTypeCode(d)
	amount := ciiAmountFormat(d.Currency)

	w := &xmlWriter{}
	w.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.raw(`<rsm:CrossIndustryInvoice xmlns:rsm="` + nsCII + `"` +
		` xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"` +
		` xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100"` +
		` xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">` + "\n")
	w.open("rsm:ExchangedDocumentContext")
	w.open("ram:GuidelineSpecifiedDocumentContextParameter")
	w.elem("ram:ID", "urn:cen.eu:en16931:2017")
	w.close("ram:GuidelineSpecifiedDocumentContextParameter")
	w.close("rsm:ExchangedDocumentContext")

	w.open("rsm:ExchangedDocument")
	w.elem("ram:ID", d.Number)
	w.elem("ram:TypeCode", typeCode)
	w.date("ram:IssueDateTime", issue)
	w.close("rsm:ExchangedDocument")

	w.open("rsm:SupplyChainTradeTransaction")
	for i, l := range d.Lines {
		w.ciiLineItem(i, l, amount)
	}

	w.open("ram:ApplicableHeaderTradeAgreement")
	w.party("ram:SellerTradeParty", d.Seller)
	w.party("ram:BuyerTradeParty", d.Buyer)
	w.close("ram:ApplicableHeaderTradeAgreement")
	w.empty("ram:ApplicableHeaderTradeDelivery")

	w.ciiSettlement(d, due, amount)
	w.close("rsm:SupplyChainTradeTransaction")
	w.raw("</rsm:CrossIndustryInvoice>\n")
	return w.buf.Bytes(), nil
}

// ciiTypeCode is the TypeCode BuildCII writes. CII carries the type only in its code: a code that does
// not say the document's type (none, or one that contradicts it) becomes the type's standard code, 380
// or 381.
func ciiTypeCode(d Document) string {
	typeCode := d.TypeCode
	if typeCode == "" || docTypeFor(typeCode) != d.Type {
		typeCode = "380"
		if d.Type == TypeCreditNote {
			typeCode = "381"
		}
	}
	return typeCode
}

// ciiAmountFormat formats amounts in currency with its minor units, or in full where they have more
// decimals than that.
func ciiAmountFormat(currency string) func(decimal.Decimal) string {
	minor := minorUnitsOf(currency)
	return func(v decimal.Decimal) string {
		if v.Round(minor).Equal(v) {
			return money.Format(v, minor)
		}
		return money.Canonical(v)
	}
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
	w.elem("ram:RateApplicablePercent", money.Canonical(l.TaxRate))
	w.close("ram:ApplicableTradeTax")
	w.allowanceCharge(false, l.Allowances)
	w.allowanceCharge(true, l.Charges)
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
		w.elem("ram:RateApplicablePercent", money.Canonical(s.Rate))
		w.close("ram:ApplicableTradeTax")
	}
	if due != "" {
		w.open("ram:SpecifiedTradePaymentTerms")
		w.date("ram:DueDateDateTime", due)
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
	if date == "" {
		return "", nil
	}
	if !isDateShape(date) {
		return "", fmt.Errorf("einvoice: build cii: %s %q is not YYYY-MM-DD", field, clipText(date))
	}
	return strings.ReplaceAll(date, "-", ""), nil
}

// countryOfVATID returns the ISO 3166 country a VAT id's prefix names, or "" when it has none.
func countryOfVATID(vatID string) string {
	id := normaliseID(vatID, ".-")
	if len(id) < 2 || id[0] < 'A' || id[0] > 'Z' || id[1] < 'A' || id[1] > 'Z' {
		return ""
	}
	switch id[:2] {
	case "EL":
		return "GR"
	case "XI":
		return "GB"
	}
	return id[:2]
}

// xmlWriter writes indented XML with escaped text.
type xmlWriter struct {
	buf   bytes.Buffer
	depth int
}

func (w *xmlWriter) raw(s string) { w.buf.WriteString(s) }

func (w *xmlWriter) indent() { w.buf.WriteString(strings.Repeat("  ", w.depth+1)) }

func (w *xmlWriter) open(name string) {
	w.indent()
	w.buf.WriteString("<" + name + ">\n")
	w.depth++
}

func (w *xmlWriter) close(name string) {
	w.depth--
	w.indent()
	w.buf.WriteString("</" + name + ">\n")
}

func (w *xmlWriter) empty(name string) {
	w.indent()
	w.buf.WriteString("<" + name + "/>\n")
}

func (w *xmlWriter) elem(name, value string) {
	w.indent()
	w.buf.WriteString("<" + name + ">")
	xml.EscapeText(&w.buf, []byte(value)) //nolint:errcheck // bytes.Buffer does not fail
	w.buf.WriteString("</" + name + ">\n")
}

func (w *xmlWriter) optional(name, value string) {
	if value != "" {
		w.elem(name, value)
	}
}

func (w *xmlWriter) elemAttr(name, attr, attrValue, value string) {
	w.indent()
	w.buf.WriteString("<" + name + " " + attr + `="`)
	xml.EscapeText(&w.buf, []byte(attrValue)) //nolint:errcheck // bytes.Buffer does not fail
	w.buf.WriteString(`">`)
	xml.EscapeText(&w.buf, []byte(value)) //nolint:errcheck // bytes.Buffer does not fail
	w.buf.WriteString("</" + name + ">\n")
}

func (w *xmlWriter) date(name, date102 string) {
	w.open(name)
	w.elemAttr("udt:DateTimeString", "format", "102", date102)
	w.close(name)
}

func (w *xmlWriter) allowanceCharge(charge bool, amount decimal.Decimal) {
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

func (w *xmlWriter) party(name string, p Party) {
	w.open(name)
	w.optional("ram:Name", p.Name)
	if p.LegalID != "" {
		w.open("ram:SpecifiedLegalOrganization")
		w.elem("ram:ID", p.LegalID)
		w.close("ram:SpecifiedLegalOrganization")
	}
	if a := p.Address; a != (Address{}) {
		// The address as the party states it, and nothing made up: a
		// parsed document built again reads the same.
		w.open("ram:PostalTradeAddress")
		w.optional("ram:PostcodeCode", a.Postcode)
		w.optional("ram:LineOne", a.Line1)
		w.optional("ram:LineTwo", a.Line2)
		w.optional("ram:LineThree", a.Line3)
		w.optional("ram:CityName", a.City)
		w.optional("ram:CountryID", a.Country)
		w.close("ram:PostalTradeAddress")
	} else if country := countryOfVATID(p.VATID); country != "" {
		w.open("ram:PostalTradeAddress")
		w.elem("ram:CountryID", country)
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
