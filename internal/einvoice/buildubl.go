package einvoice

import (
	"fmt"

	"github.com/shopspring/decimal"

	"greatbook/internal/money"
)

// The UBL 2.1 namespaces of the components BuildUBL writes, under the prefixes cac and cbc.
const (
	nsUBLAggregate = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
	nsUBLBasic     = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
)

// BuildUBL renders d as an EN 16931 UBL 2.1 Invoice, or as a CreditNote (with CreditNoteLine and
// CreditedQuantity) when d is a credit note: BuildCII's twin in the other syntax, with its elements in
// the order the UBL 2.1 schema requires. The output is deterministic and ParseUBL reads every field of
// d back.
//
// It invents what BuildCII invents and nothing more: unit code C62 on every quantity, and for a party
// with a VAT id but no address, an address holding the VAT id's country. UBL 2.1 gives a credit note
// no DueDate: its due date goes in PaymentMeans/PaymentDueDate, where EN 16931's binding reads it, when
// the document names a payee account (a payment instruction needs a means code, and only an account
// says it is a credit transfer), and in PaymentTerms/PaymentDueDate otherwise, which the binding only
// warns about (UBL-CR-463).
func BuildUBL(d Document) ([]byte, error) {
	if err := checkBuildDate("ubl", "issue_date", d.IssueDate); err != nil {
		return nil, err
	}
	if err := checkBuildDate("ubl", "due_date", d.DueDate); err != nil {
		return nil, err
	}
	root, ns, typeCode, line := "Invoice", nsUBLInvoice, "cbc:InvoiceTypeCode", ublInvoiceLine
	creditNote := d.Type == TypeCreditNote
	if creditNote {
		root, ns, typeCode, line = "CreditNote", nsUBLCreditNote, "cbc:CreditNoteTypeCode", ublCreditNoteLine
	}

	w := &ublWriter{currency: d.Currency, amount: amountFormat(d.Currency)}
	w.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.raw(`<` + root + ` xmlns="` + ns + `" xmlns:cac="` + nsUBLAggregate + `" xmlns:cbc="` + nsUBLBasic + `">` + "\n")
	w.elem("cbc:CustomizationID", enSpecification)
	w.elem("cbc:ID", d.Number)
	w.elem("cbc:IssueDate", d.IssueDate)
	if !creditNote {
		w.optional("cbc:DueDate", d.DueDate)
	}
	w.elem(typeCode, documentTypeCode(d))
	w.elem("cbc:DocumentCurrencyCode", d.Currency)
	if d.BillingReference != "" {
		w.open("cac:BillingReference")
		w.open("cac:InvoiceDocumentReference")
		w.elem("cbc:ID", d.BillingReference)
		w.close("cac:InvoiceDocumentReference")
		w.close("cac:BillingReference")
	}
	w.party("cac:AccountingSupplierParty", d.Seller)
	w.party("cac:AccountingCustomerParty", d.Buyer)
	if creditNote {
		w.payment(d.PayeeIBAN, d.DueDate)
	} else {
		w.payment(d.PayeeIBAN, "")
	}
	w.taxTotal(d.Totals.Tax, d.TaxSubtotals)
	w.monetaryTotal(d.Totals)
	for i, l := range d.Lines {
		w.line(line, i, l)
	}
	w.raw("</" + root + ">\n")
	return w.buf.Bytes(), nil
}

// ublLineElements names a line's element and its quantity's, which differ between an Invoice and a
// CreditNote.
type ublLineElements struct{ line, quantity string }

var (
	ublInvoiceLine    = ublLineElements{"cac:InvoiceLine", "cbc:InvoicedQuantity"}
	ublCreditNoteLine = ublLineElements{"cac:CreditNoteLine", "cbc:CreditedQuantity"}
)

// ublWriter is an xmlWriter that knows the document's currency, which every UBL amount states.
type ublWriter struct {
	xmlWriter
	currency string
	amount   func(decimal.Decimal) string
}

// money writes an amount in the document currency, formatted as BuildCII formats it.
func (w *ublWriter) money(name string, v decimal.Decimal) {
	w.elemAttr(name, "currencyID", w.currency, w.amount(v))
}

// exactMoney writes an amount in the document currency with the decimals it has: a unit price or a
// line allowance, which BuildCII writes so too.
func (w *ublWriter) exactMoney(name string, v decimal.Decimal) {
	w.elemAttr(name, "currencyID", w.currency, money.Canonical(v))
}

// quantity writes a quantity in unit C62 ("one"), the model keeping no unit.
func (w *ublWriter) quantity(name string, q decimal.Decimal) {
	w.elemAttr(name, "unitCode", "C62", money.Canonical(q))
}

// party writes p as the party element name (AccountingSupplierParty, AccountingCustomerParty): the name
// is the legal registration name (BT-27, BT-44), which is what ParseUBL reads.
func (w *ublWriter) party(name string, p Party) {
	w.open(name)
	w.open("cac:Party")
	if p.EndpointID != "" {
		if p.EndpointScheme != "" {
			w.elemAttr("cbc:EndpointID", "schemeID", p.EndpointScheme, p.EndpointID)
		} else {
			w.elem("cbc:EndpointID", p.EndpointID)
		}
	}
	if a, ok := addressToWrite(p); ok {
		w.open("cac:PostalAddress")
		w.optional("cbc:StreetName", a.Line1)
		w.optional("cbc:AdditionalStreetName", a.Line2)
		w.optional("cbc:CityName", a.City)
		w.optional("cbc:PostalZone", a.Postcode)
		if a.Line3 != "" {
			w.open("cac:AddressLine")
			w.elem("cbc:Line", a.Line3)
			w.close("cac:AddressLine")
		}
		if a.Country != "" {
			w.open("cac:Country")
			w.elem("cbc:IdentificationCode", a.Country)
			w.close("cac:Country")
		}
		w.close("cac:PostalAddress")
	}
	if p.VATID != "" {
		w.open("cac:PartyTaxScheme")
		w.elem("cbc:CompanyID", p.VATID)
		w.taxScheme()
		w.close("cac:PartyTaxScheme")
	}
	if p.Name != "" || p.LegalID != "" {
		w.open("cac:PartyLegalEntity")
		w.optional("cbc:RegistrationName", p.Name)
		w.optional("cbc:CompanyID", p.LegalID)
		w.close("cac:PartyLegalEntity")
	}
	w.close("cac:Party")
	w.close(name)
}

// payment writes the payee's account (BG-16: a credit transfer, code 30, to BT-84) and a credit note's
// due date (BT-9), due, where BuildUBL's comment says.
func (w *ublWriter) payment(payeeIBAN, due string) {
	if payeeIBAN != "" {
		w.open("cac:PaymentMeans")
		w.elem("cbc:PaymentMeansCode", "30")
		w.optional("cbc:PaymentDueDate", due)
		w.open("cac:PayeeFinancialAccount")
		w.elem("cbc:ID", payeeIBAN)
		w.close("cac:PayeeFinancialAccount")
		w.close("cac:PaymentMeans")
		return
	}
	if due != "" {
		w.open("cac:PaymentTerms")
		w.elem("cbc:PaymentDueDate", due)
		w.close("cac:PaymentTerms")
	}
}

// taxTotal writes the document's VAT total (BT-110) and its breakdown (BG-23).
func (w *ublWriter) taxTotal(tax decimal.Decimal, subtotals []TaxSubtotal) {
	w.open("cac:TaxTotal")
	w.money("cbc:TaxAmount", tax)
	for _, s := range subtotals {
		w.open("cac:TaxSubtotal")
		w.money("cbc:TaxableAmount", s.Taxable)
		w.money("cbc:TaxAmount", s.Tax)
		w.taxCategory("cac:TaxCategory", s.Category, s.Rate)
		w.close("cac:TaxSubtotal")
	}
	w.close("cac:TaxTotal")
}

// taxCategory writes a VAT category and rate as the element name (TaxCategory, ClassifiedTaxCategory).
func (w *ublWriter) taxCategory(name, category string, rate decimal.Decimal) {
	w.open(name)
	w.optional("cbc:ID", category)
	if statesRate(category, rate) {
		w.elem("cbc:Percent", money.Canonical(rate))
	}
	w.taxScheme()
	w.close(name)
}

func (w *ublWriter) taxScheme() {
	w.open("cac:TaxScheme")
	w.elem("cbc:ID", "VAT")
	w.close("cac:TaxScheme")
}

// monetaryTotal writes the document totals (BG-22). The four EN 16931 requires are always written, the
// others when they are not zero.
func (w *ublWriter) monetaryTotal(t Totals) {
	w.open("cac:LegalMonetaryTotal")
	w.money("cbc:LineExtensionAmount", t.LineTotal)
	w.money("cbc:TaxExclusiveAmount", t.Net)
	w.money("cbc:TaxInclusiveAmount", t.Gross)
	w.nonZeroMoney("cbc:AllowanceTotalAmount", t.AllowanceTotal)
	w.nonZeroMoney("cbc:ChargeTotalAmount", t.ChargeTotal)
	w.nonZeroMoney("cbc:PrepaidAmount", t.Prepaid)
	w.nonZeroMoney("cbc:PayableRoundingAmount", t.Rounding)
	w.money("cbc:PayableAmount", t.Payable)
	w.close("cac:LegalMonetaryTotal")
}

func (w *ublWriter) nonZeroMoney(name string, v decimal.Decimal) {
	if !v.IsZero() {
		w.money(name, v)
	}
}

// line writes l, the line at index i, as the line element names say.
func (w *ublWriter) line(names ublLineElements, i int, l Line) {
	w.open(names.line)
	w.elem("cbc:ID", fmt.Sprint(i+1))
	w.quantity(names.quantity, l.Quantity)
	w.money("cbc:LineExtensionAmount", l.Net)
	w.allowanceCharge(false, l.Allowances)
	w.allowanceCharge(true, l.Charges)
	w.open("cac:Item")
	w.elem("cbc:Name", l.Description)
	w.taxCategory("cac:ClassifiedTaxCategory", l.TaxCategory, l.TaxRate)
	w.close("cac:Item")
	w.open("cac:Price")
	w.exactMoney("cbc:PriceAmount", l.UnitPrice)
	if !l.PriceBaseQuantity.IsZero() {
		w.quantity("cbc:BaseQuantity", l.PriceBaseQuantity)
	}
	w.close("cac:Price")
	w.close(names.line)
}

// allowanceCharge writes a line's allowances (or, with charge, its charges) as one AllowanceCharge, or
// nothing when they are zero.
func (w *ublWriter) allowanceCharge(charge bool, amount decimal.Decimal) {
	if amount.IsZero() {
		return
	}
	w.open("cac:AllowanceCharge")
	w.elem("cbc:ChargeIndicator", fmt.Sprint(charge))
	w.exactMoney("cbc:Amount", amount)
	w.close("cac:AllowanceCharge")
}
