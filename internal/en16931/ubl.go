package en16931

import (
	"errors"
	"strings"
)

// FromUBL reads a UBL 2.1 Invoice or CreditNote (also a partial one, as the official unit tests hold) into the
// semantic model.
func FromUBL(data []byte) (*Invoice, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	if root.name != "Invoice" && root.name != "CreditNote" {
		return nil, errors.New("en16931: not a UBL Invoice or CreditNote: root element " + root.name)
	}
	inv := &Invoice{Syntax: "ubl", CreditNote: root.name == "CreditNote"}
	inv.CustomizationID = root.child("CustomizationID").txt()
	inv.ID = root.child("ID").txt()
	inv.IssueDate = root.child("IssueDate").txt()
	inv.TypeCode = root.child("InvoiceTypeCode").txt()
	if !inv.TypeCode.Present {
		inv.TypeCode = root.child("CreditNoteTypeCode").txt()
	}
	inv.Currency = root.child("DocumentCurrencyCode").txt()
	inv.TaxCurrency = root.child("TaxCurrencyCode").txt()
	inv.TaxPointDate = root.child("TaxPointDate").txt()
	inv.Period = ublPeriod(root.child("InvoicePeriod"))
	inv.Seller = ublParty(root.at("AccountingSupplierParty/Party"))
	inv.Buyer = ublParty(root.at("AccountingCustomerParty/Party"))
	inv.Payee = ublParty(root.child("PayeeParty"))
	inv.TaxRep = ublParty(root.child("TaxRepresentativeParty"))
	if d := root.child("Delivery"); d != nil {
		inv.Delivery = Delivery{Present: true, ActualDate: d.child("ActualDeliveryDate").txt(),
			Address: ublAddress(d.at("DeliveryLocation/Address")), LocationID: ublIdentifier(d.at("DeliveryLocation/ID"), "schemeID")}
	}
	for _, pm := range root.all("PaymentMeans") {
		p := PaymentMeans{Code: pm.child("PaymentMeansCode").txt(), CardNumber: pm.at("CardAccount/PrimaryAccountNumberID").txt(),
			CreditTransfer: pm.child("PayeeFinancialAccount") != nil, Card: pm.child("CardAccount") != nil,
			DirectDebit: pm.child("PaymentMandate") != nil}
		for _, acc := range pm.all("PayeeFinancialAccount") {
			p.PayeeAccounts = append(p.PayeeAccounts, acc.child("ID").txt())
		}
		inv.PaymentMeans = append(inv.PaymentMeans, p)
	}
	for _, ac := range root.all("AllowanceCharge") {
		inv.Allowances = append(inv.Allowances, ublAllowanceCharge(ac))
	}
	for _, tt := range root.all("TaxTotal") {
		t := TaxTotal{Amount: ublAmount(tt.child("TaxAmount"))}
		for _, st := range tt.all("TaxSubtotal") {
			t.Breakdowns = append(t.Breakdowns, VATBreakdown{TaxableAmount: ublAmount(st.child("TaxableAmount")),
				TaxAmount: ublAmount(st.child("TaxAmount")), Category: ublTaxCategory(st.child("TaxCategory"))})
		}
		inv.TaxTotals = append(inv.TaxTotals, t)
	}
	if mt := root.child("LegalMonetaryTotal"); mt != nil {
		inv.Totals = Totals{Present: true, LineNet: ublAmount(mt.child("LineExtensionAmount")),
			AllowanceTotal: ublAmount(mt.child("AllowanceTotalAmount")), ChargeTotal: ublAmount(mt.child("ChargeTotalAmount")),
			TaxExclusive: ublAmount(mt.child("TaxExclusiveAmount")), TaxInclusive: ublAmount(mt.child("TaxInclusiveAmount")),
			Prepaid: ublAmount(mt.child("PrepaidAmount")), Rounding: ublAmount(mt.child("PayableRoundingAmount")),
			Payable: ublAmount(mt.child("PayableAmount"))}
	}
	for _, ln := range root.children {
		if ln.name != "InvoiceLine" && ln.name != "CreditNoteLine" {
			continue
		}
		inv.Lines = append(inv.Lines, ublLine(ln))
	}
	for _, d := range root.all("AdditionalDocumentReference") {
		inv.SupportingDocs = append(inv.SupportingDocs, d.child("ID").txt())
		if o := d.at("Attachment/EmbeddedDocumentBinaryObject"); o != nil {
			inv.AttachmentNames = append(inv.AttachmentNames, o.attr("filename"))
		}
	}
	inv.BuyerReference = root.child("BuyerReference").txt()
	for _, pt := range root.all("PaymentTerms") {
		inv.PaymentTerms = append(inv.PaymentTerms, pt.child("Note").txt())
	}
	for _, b := range root.all("BillingReference") {
		inv.PrecedingIDs = append(inv.PrecedingIDs, b.at("InvoiceDocumentReference/ID").txt())
	}
	root.walk(func(n *node) {
		if n.name == "PartyTaxScheme" && isVATScheme(n) && n.child("CompanyID") != nil {
			inv.VATIdentifiers = append(inv.VATIdentifiers, n.child("CompanyID").txt())
		}
	})
	return inv, nil
}

func ublAmount(n *node) Amount { return Amount{Text: n.txt(), Currency: n.attr("currencyID")} }

func ublIdentifier(n *node, scheme string) Identifier {
	return Identifier{Text: n.txt(), Scheme: n.attr(scheme)}
}

func ublPeriod(n *node) Period {
	if n == nil {
		return Period{}
	}
	return Period{Present: true, Start: n.child("StartDate").txt(), End: n.child("EndDate").txt(),
		DescriptionCode: n.child("DescriptionCode").txt()}
}

func ublAddress(n *node) Address {
	if n == nil {
		return Address{}
	}
	return Address{Present: true, Country: n.at("Country/IdentificationCode").txt(), City: n.child("CityName").txt(),
		PostCode: n.child("PostalZone").txt()}
}

func isVATScheme(n *node) bool {
	return strings.ToUpper(n.at("TaxScheme/ID").txt().Norm()) == "VAT"
}

func ublParty(p *node) Party {
	if p == nil {
		return Party{}
	}
	party := Party{Present: true, Name: p.at("PartyName/Name").txt(), LegalName: p.at("PartyLegalEntity/RegistrationName").txt(),
		LegalID: ublIdentifier(p.at("PartyLegalEntity/CompanyID"), "schemeID"), ElectronicAddress: ublIdentifier(p.child("EndpointID"), "schemeID"),
		Address: ublAddress(p.child("PostalAddress"))}
	if c := p.child("Contact"); c != nil {
		party.Contact = Contact{Present: true, Name: c.child("Name").txt(), Telephone: c.child("Telephone").txt(),
			Email: c.child("ElectronicMail").txt()}
	}
	for _, id := range p.every("PartyIdentification/ID") {
		party.IDs = append(party.IDs, ublIdentifier(id, "schemeID"))
	}
	for _, ts := range p.all("PartyTaxScheme") {
		id := ts.child("CompanyID").txt()
		if !id.Present {
			continue
		}
		if isVATScheme(ts) {
			if !party.VATID.Present {
				party.VATID = id
			}
		} else if !party.TaxRegistrationID.Present {
			party.TaxRegistrationID = id
		}
	}
	return party
}

func ublTaxCategory(n *node) TaxCategory {
	if n == nil {
		return TaxCategory{}
	}
	return TaxCategory{Present: true, IsVAT: isVATScheme(n), Code: n.child("ID").txt(), Rate: Amount{Text: n.child("Percent").txt()},
		ExemptionReason: n.child("TaxExemptionReason").txt(), ExemptionReasonCode: n.child("TaxExemptionReasonCode").txt()}
}

func ublAllowanceCharge(n *node) AllowanceCharge {
	return AllowanceCharge{Indicator: n.child("ChargeIndicator").txt(),
		Amount: ublAmount(n.child("Amount")), BaseAmount: ublAmount(n.child("BaseAmount")),
		Reason: n.child("AllowanceChargeReason").txt(), ReasonCode: n.child("AllowanceChargeReasonCode").txt(),
		TaxCategory: ublTaxCategory(n.child("TaxCategory"))}
}

func ublLine(n *node) Line {
	q := n.child("InvoicedQuantity")
	if q == nil {
		q = n.child("CreditedQuantity")
	}
	l := Line{ID: n.child("ID").txt(), Quantity: ublAmount(q), UnitCode: q.attr("unitCode"),
		NetAmount: ublAmount(n.child("LineExtensionAmount")), Period: ublPeriod(n.child("InvoicePeriod")),
		ItemName: n.at("Item/Name").txt(), StandardID: ublIdentifier(n.at("Item/StandardItemIdentification/ID"), "schemeID"),
		Category: ublTaxCategory(n.at("Item/ClassifiedTaxCategory"))}
	for _, ac := range n.all("AllowanceCharge") {
		l.AllowanceCharges = append(l.AllowanceCharges, ublAllowanceCharge(ac))
	}
	if p := n.child("Price"); p != nil {
		l.PricePresent = true
		l.Price = ublAmount(p.child("PriceAmount"))
		if ac := p.child("AllowanceCharge"); ac != nil {
			l.PriceDiscount = ublAmount(ac.child("Amount"))
			l.GrossPrice = ublAmount(ac.child("BaseAmount"))
		}
	}
	for _, c := range n.every("Item/CommodityClassification/ItemClassificationCode") {
		l.Classifications = append(l.Classifications, ublIdentifier(c, "listID"))
	}
	for _, a := range n.every("Item/AdditionalItemProperty") {
		l.Attributes = append(l.Attributes, ItemAttribute{Name: a.child("Name").txt(), Value: a.child("Value").txt()})
	}
	return l
}
