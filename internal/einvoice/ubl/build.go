package ubl

import (
	"fmt"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/xmltext"
	"greatbook/internal/money"
)

// The UBL 2.1 namespaces of the components Build writes, under the prefixes cac and cbc.
const (
	nsUBLAggregate = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
	nsUBLBasic     = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
)

// Build renders d as an EN 16931 UBL 2.1 Invoice, or as a CreditNote (with CreditNoteLine and
// CreditedQuantity) when d is a credit note: cii.Build's twin in the other syntax, with its elements in
// the order the UBL 2.1 schema requires. The output is deterministic and Parse reads every field of
// d back.
//
// It invents what cii.Build invents and nothing more: unit code C62 on every quantity, and for a party
// with a VAT id but no address, an address holding the VAT id's country. UBL 2.1 gives a credit note
// no DueDate: its due date goes in PaymentMeans/PaymentDueDate, where EN 16931's binding reads it, when
// the document names a payee account (a payment instruction needs a means code, and only an account
// says it is a credit transfer), and in PaymentTerms/PaymentDueDate otherwise, which the binding only
// warns about (UBL-CR-463).
func Build(d einvoice.Document) ([]byte, error) {
	if err := xmltext.CheckBuildDate("ubl", "issue_date", d.IssueDate); err != nil {
		return nil, err
	}
	if err := xmltext.CheckBuildDate("ubl", "due_date", d.DueDate); err != nil {
		return nil, err
	}
	root, ns, typeCode, line := "Invoice", nsUBLInvoice, "cbc:InvoiceTypeCode", ublInvoiceLine
	creditNote := d.Type == einvoice.TypeCreditNote
	if creditNote {
		root, ns, typeCode, line = "CreditNote", nsUBLCreditNote, "cbc:CreditNoteTypeCode", ublCreditNoteLine
	}

	w := &ublWriter{currency: d.Currency, amount: xmltext.AmountFormat(d.Currency)}
	w.Raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.Raw(`<` + root + ` xmlns="` + ns + `" xmlns:cac="` + nsUBLAggregate + `" xmlns:cbc="` + nsUBLBasic + `">` + "\n")
	w.Elem("cbc:CustomizationID", xmltext.ENSpecification)
	w.Elem("cbc:ID", d.Number)
	w.Elem("cbc:IssueDate", d.IssueDate)
	if !creditNote {
		w.Optional("cbc:DueDate", d.DueDate)
	}
	w.Elem(typeCode, xmltext.DocumentTypeCode(d))
	w.Elem("cbc:DocumentCurrencyCode", d.Currency)
	if d.BillingReference != "" {
		w.Open("cac:BillingReference")
		w.Open("cac:InvoiceDocumentReference")
		w.Elem("cbc:ID", d.BillingReference)
		w.Close("cac:InvoiceDocumentReference")
		w.Close("cac:BillingReference")
	}
	w.party("cac:AccountingSupplierParty", d.Seller)
	w.party("cac:AccountingCustomerParty", d.Buyer)
	if creditNote {
		w.payment(d.PayeeIBAN, d.PayeeBIC, d.DueDate)
	} else {
		w.payment(d.PayeeIBAN, d.PayeeBIC, "")
	}
	w.taxTotal(d.Totals.Tax, d.TaxSubtotals)
	w.monetaryTotal(d.Totals)
	for i, l := range d.Lines {
		w.line(line, i, l)
	}
	w.Raw("</" + root + ">\n")
	return w.Bytes(), nil
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
	xmltext.Writer
	currency string
	amount   func(decimal.Decimal) string
}

// money writes an amount in the document currency, formatted as cii.Build formats it.
func (w *ublWriter) money(name string, v decimal.Decimal) {
	w.ElemAttr(name, "currencyID", w.currency, w.amount(v))
}

// exactMoney writes an amount in the document currency with the decimals it has: a unit price or a
// line allowance, which cii.Build writes so too.
func (w *ublWriter) exactMoney(name string, v decimal.Decimal) {
	w.ElemAttr(name, "currencyID", w.currency, money.Canonical(v))
}

// quantity writes a quantity in unit C62 ("one"), the model keeping no unit.
func (w *ublWriter) quantity(name string, q decimal.Decimal) {
	w.ElemAttr(name, "unitCode", "C62", money.Canonical(q))
}

// party writes p as the party element name (AccountingSupplierParty, AccountingCustomerParty): the name
// is the legal registration name (BT-27, BT-44), which is what Parse reads.
func (w *ublWriter) party(name string, p einvoice.Party) {
	w.Open(name)
	w.Open("cac:Party")
	if p.EndpointID != "" {
		if p.EndpointScheme != "" {
			w.ElemAttr("cbc:EndpointID", "schemeID", p.EndpointScheme, p.EndpointID)
		} else {
			w.Elem("cbc:EndpointID", p.EndpointID)
		}
	}
	if a, ok := xmltext.AddressToWrite(p); ok {
		w.Open("cac:PostalAddress")
		w.Optional("cbc:StreetName", a.Line1)
		w.Optional("cbc:AdditionalStreetName", a.Line2)
		w.Optional("cbc:CityName", a.City)
		w.Optional("cbc:PostalZone", a.Postcode)
		if a.Line3 != "" {
			w.Open("cac:AddressLine")
			w.Elem("cbc:Line", a.Line3)
			w.Close("cac:AddressLine")
		}
		if a.Country != "" {
			w.Open("cac:Country")
			w.Elem("cbc:IdentificationCode", a.Country)
			w.Close("cac:Country")
		}
		w.Close("cac:PostalAddress")
	}
	if p.VATID != "" {
		w.Open("cac:PartyTaxScheme")
		w.Elem("cbc:CompanyID", p.VATID)
		w.taxScheme()
		w.Close("cac:PartyTaxScheme")
	}
	if p.Name != "" || p.LegalID != "" {
		w.Open("cac:PartyLegalEntity")
		w.Optional("cbc:RegistrationName", p.Name)
		w.Optional("cbc:CompanyID", p.LegalID)
		w.Close("cac:PartyLegalEntity")
	}
	w.Close("cac:Party")
	w.Close(name)
}

// payment writes the payee's account (BG-16: a credit transfer, code 30, to BT-84) and a credit note's
// due date (BT-9), due, where Build's comment says. The payee's bank (BT-86) is written only with an
// account, as UBL nests it in the account.
func (w *ublWriter) payment(payeeIBAN, payeeBIC, due string) {
	if payeeIBAN != "" {
		w.Open("cac:PaymentMeans")
		w.Elem("cbc:PaymentMeansCode", "30")
		w.Optional("cbc:PaymentDueDate", due)
		w.Open("cac:PayeeFinancialAccount")
		w.Elem("cbc:ID", payeeIBAN)
		if payeeBIC != "" {
			w.Open("cac:FinancialInstitutionBranch")
			w.Elem("cbc:ID", payeeBIC)
			w.Close("cac:FinancialInstitutionBranch")
		}
		w.Close("cac:PayeeFinancialAccount")
		w.Close("cac:PaymentMeans")
		return
	}
	if due != "" {
		w.Open("cac:PaymentTerms")
		w.Elem("cbc:PaymentDueDate", due)
		w.Close("cac:PaymentTerms")
	}
}

// taxTotal writes the document's VAT total (BT-110) and its breakdown (BG-23).
func (w *ublWriter) taxTotal(tax decimal.Decimal, subtotals []einvoice.TaxSubtotal) {
	w.Open("cac:TaxTotal")
	w.money("cbc:TaxAmount", tax)
	for _, s := range subtotals {
		w.Open("cac:TaxSubtotal")
		w.money("cbc:TaxableAmount", s.Taxable)
		w.money("cbc:TaxAmount", s.Tax)
		w.taxCategory("cac:TaxCategory", s.Category, s.Rate)
		w.Close("cac:TaxSubtotal")
	}
	w.Close("cac:TaxTotal")
}

// taxCategory writes a VAT category and rate as the element name (TaxCategory, ClassifiedTaxCategory).
func (w *ublWriter) taxCategory(name, category string, rate decimal.Decimal) {
	w.Open(name)
	w.Optional("cbc:ID", category)
	if xmltext.StatesRate(category, rate) {
		w.Elem("cbc:Percent", money.Canonical(rate))
	}
	w.taxScheme()
	w.Close(name)
}

func (w *ublWriter) taxScheme() {
	w.Open("cac:TaxScheme")
	w.Elem("cbc:ID", "VAT")
	w.Close("cac:TaxScheme")
}

// monetaryTotal writes the document totals (BG-22). The four EN 16931 requires are always written, the
// others when they are not zero.
func (w *ublWriter) monetaryTotal(t einvoice.Totals) {
	w.Open("cac:LegalMonetaryTotal")
	w.money("cbc:LineExtensionAmount", t.LineTotal)
	w.money("cbc:TaxExclusiveAmount", t.Net)
	w.money("cbc:TaxInclusiveAmount", t.Gross)
	w.nonZeroMoney("cbc:AllowanceTotalAmount", t.AllowanceTotal)
	w.nonZeroMoney("cbc:ChargeTotalAmount", t.ChargeTotal)
	w.nonZeroMoney("cbc:PrepaidAmount", t.Prepaid)
	w.nonZeroMoney("cbc:PayableRoundingAmount", t.Rounding)
	w.money("cbc:PayableAmount", t.Payable)
	w.Close("cac:LegalMonetaryTotal")
}

func (w *ublWriter) nonZeroMoney(name string, v decimal.Decimal) {
	if !v.IsZero() {
		w.money(name, v)
	}
}

// line writes l, the line at index i, as the line element names say.
func (w *ublWriter) line(names ublLineElements, i int, l einvoice.Line) {
	w.Open(names.line)
	w.Elem("cbc:ID", fmt.Sprint(i+1))
	w.quantity(names.quantity, l.Quantity)
	w.money("cbc:LineExtensionAmount", l.Net)
	w.allowanceCharge(false, l.Allowances)
	w.allowanceCharge(true, l.Charges)
	w.Open("cac:Item")
	w.Elem("cbc:Name", l.Description)
	w.taxCategory("cac:ClassifiedTaxCategory", l.TaxCategory, l.TaxRate)
	w.Close("cac:Item")
	w.Open("cac:Price")
	w.exactMoney("cbc:PriceAmount", l.UnitPrice)
	if !l.PriceBaseQuantity.IsZero() {
		w.quantity("cbc:BaseQuantity", l.PriceBaseQuantity)
	}
	w.Close("cac:Price")
	w.Close(names.line)
}

// allowanceCharge writes a line's allowances (or, with charge, its charges) as one AllowanceCharge, or
// nothing when they are zero.
func (w *ublWriter) allowanceCharge(charge bool, amount decimal.Decimal) {
	if amount.IsZero() {
		return
	}
	w.Open("cac:AllowanceCharge")
	w.Elem("cbc:ChargeIndicator", fmt.Sprint(charge))
	w.exactMoney("cbc:Amount", amount)
	w.Close("cac:AllowanceCharge")
}
