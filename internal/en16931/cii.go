package en16931

import (
	"errors"
	"strings"
)

// FromCII reads a UN/CEFACT Cross Industry Invoice (D16B, as EN 16931, Factur-X / ZUGFeRD 2 and XRechnung use
// it) into the semantic model.
func FromCII(data []byte) (*Invoice, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	if root.name != "CrossIndustryInvoice" {
		return nil, errors.New("en16931: not a CII CrossIndustryInvoice: root element " + root.name)
	}
	inv := &Invoice{Syntax: "cii"}
	doc := root.child("ExchangedDocument")
	inv.CustomizationID = root.at("ExchangedDocumentContext/GuidelineSpecifiedDocumentContextParameter/ID").txt()
	inv.ID = doc.child("ID").txt()
	inv.TypeCode = doc.child("TypeCode").txt()
	inv.IssueDate = ciiDate(doc.at("IssueDateTime/DateTimeString"))
	tx := root.child("SupplyChainTradeTransaction")
	agreement := tx.child("ApplicableHeaderTradeAgreement")
	delivery := tx.child("ApplicableHeaderTradeDelivery")
	settlement := tx.child("ApplicableHeaderTradeSettlement")
	inv.Currency = settlement.child("InvoiceCurrencyCode").txt()
	inv.TaxCurrency = settlement.child("TaxCurrencyCode").txt()
	for _, tax := range settlement.all("ApplicableTradeTax") {
		if d := tax.at("TaxPointDate/DateString"); d != nil && !inv.TaxPointDate.Present {
			inv.TaxPointDate = ciiDate(d)
		}
		if c := tax.child("DueDateTypeCode"); c != nil && !inv.Period.DescriptionCode.Present {
			inv.Period.DescriptionCode = c.txt()
		}
	}
	if p := settlement.child("BillingSpecifiedPeriod"); p != nil {
		code := inv.Period.DescriptionCode
		inv.Period = ciiPeriod(p)
		inv.Period.DescriptionCode = code
	}
	inv.Seller = ciiParty(agreement.child("SellerTradeParty"))
	inv.Buyer = ciiParty(agreement.child("BuyerTradeParty"))
	inv.Payee = ciiParty(settlement.child("PayeeTradeParty"))
	inv.TaxRep = ciiParty(agreement.child("SellerTaxRepresentativeTradeParty"))
	// In CII the party's Name is its legal name (BT-27, BT-44); the trading name of seller and buyer is
	// SpecifiedLegalOrganization/TradingBusinessName, while payee and tax representative have only Name.
	inv.Payee.Name, inv.TaxRep.Name = inv.Payee.LegalName, inv.TaxRep.LegalName
	if delivery != nil {
		inv.Delivery = Delivery{Present: true, ActualDate: ciiDate(delivery.at("ActualDeliverySupplyChainEvent/OccurrenceDateTime/DateTimeString")),
			Address: ciiAddress(delivery.at("ShipToTradeParty/PostalTradeAddress")), LocationID: ublIdentifier(delivery.at("ShipToTradeParty/GlobalID"), "schemeID")}
	}
	inv.PaymentMeans = ciiPaymentMeans(settlement)
	for _, ac := range settlement.all("SpecifiedTradeAllowanceCharge") {
		inv.Allowances = append(inv.Allowances, ciiAllowanceCharge(ac))
	}
	ciiTotals(inv, settlement)
	for _, ln := range tx.all("IncludedSupplyChainTradeLineItem") {
		inv.Lines = append(inv.Lines, ciiLine(ln))
	}
	for _, d := range agreement.all("AdditionalReferencedDocument") {
		inv.SupportingDocs = append(inv.SupportingDocs, d.child("IssuerAssignedID").txt())
	}
	root.walk(func(n *node) {
		if n.name == "AdditionalReferencedDocument" {
			if o := n.child("AttachmentBinaryObject"); o != nil {
				inv.AttachmentNames = append(inv.AttachmentNames, o.attr("filename"))
			}
		}
	})
	inv.BuyerReference = agreement.child("BuyerReference").txt()
	for _, pt := range settlement.all("SpecifiedTradePaymentTerms") {
		if d := pt.child("Description"); d != nil {
			inv.PaymentTerms = append(inv.PaymentTerms, d.txt())
		}
	}
	for _, d := range settlement.all("InvoiceReferencedDocument") {
		id := d.child("IssuerAssignedID").txt()
		if !id.Filled() {
			id.Present = false
		}
		inv.PrecedingIDs = append(inv.PrecedingIDs, id)
	}
	root.walk(func(n *node) {
		if n.name == "ID" && n.parent != nil && n.parent.name == "SpecifiedTaxRegistration" && n.attr("schemeID").Value == "VA" {
			inv.VATIdentifiers = append(inv.VATIdentifiers, n.txt())
		}
	})
	return inv, nil
}

// ciiPaymentMeans reads the payment instructions (BG-16) of the header settlement.
func ciiPaymentMeans(settlement *node) []PaymentMeans {
	var means []PaymentMeans
	for _, pm := range settlement.all("SpecifiedTradeSettlementPaymentMeans") {
		p := PaymentMeans{Code: pm.child("TypeCode").txt(), CardNumber: pm.at("ApplicableTradeSettlementFinancialCard/ID").txt(),
			CreditTransfer: pm.child("PayeePartyCreditorFinancialAccount") != nil, Card: pm.child("ApplicableTradeSettlementFinancialCard") != nil,
			// CII has no element for BG-19: KoSIT's binding takes any of its terms (BT-89, BT-90, BT-91) as the group.
			DirectDebit: settlement.at("SpecifiedTradePaymentTerms/DirectDebitMandateID") != nil || settlement.child("CreditorReferenceID") != nil ||
				pm.at("PayerPartyDebtorFinancialAccount/IBANID") != nil}
		for _, acc := range pm.all("PayeePartyCreditorFinancialAccount") {
			id := acc.child("IBANID").txt()
			if !id.Filled() {
				id = acc.child("ProprietaryID").txt()
			}
			p.PayeeAccounts = append(p.PayeeAccounts, id)
		}
		means = append(means, p)
	}
	return means
}

// ciiTotals reads the document totals (BG-22), the total VAT amounts (BT-110, BT-111) and the VAT
// breakdown (BG-23) of the header settlement into inv, whose Currency must be read already.
func ciiTotals(inv *Invoice, settlement *node) {
	var breakdowns []VATBreakdown
	for _, tax := range settlement.all("ApplicableTradeTax") {
		breakdowns = append(breakdowns, VATBreakdown{TaxableAmount: ublAmount(tax.child("BasisAmount")),
			TaxAmount: ublAmount(tax.child("CalculatedAmount")), Category: ciiTaxCategory(tax)})
	}
	if sum := settlement.child("SpecifiedTradeSettlementHeaderMonetarySummation"); sum != nil {
		inv.Totals = Totals{Present: true, LineNet: ublAmount(sum.child("LineTotalAmount")),
			AllowanceTotal: ublAmount(sum.child("AllowanceTotalAmount")), ChargeTotal: ublAmount(sum.child("ChargeTotalAmount")),
			TaxExclusive: ublAmount(sum.child("TaxBasisTotalAmount")), TaxInclusive: ublAmount(sum.child("GrandTotalAmount")),
			Prepaid: ublAmount(sum.child("TotalPrepaidAmount")), Rounding: ublAmount(sum.child("RoundingAmount")),
			Payable: ublAmount(sum.child("DuePayableAmount"))}
		for _, t := range sum.all("TaxTotalAmount") {
			inv.TaxTotals = append(inv.TaxTotals, TaxTotal{Amount: ublAmount(t)})
		}
	}
	// The VAT breakdown belongs to the total VAT in the invoice currency (BT-110); without one it stands alone.
	placed := false
	for i := range inv.TaxTotals {
		if inv.TaxTotals[i].Amount.Currency.Value == inv.Currency.Value || len(inv.TaxTotals) == 1 {
			inv.TaxTotals[i].Breakdowns = breakdowns
			placed = true
			break
		}
	}
	if !placed && len(breakdowns) > 0 {
		inv.TaxTotals = append(inv.TaxTotals, TaxTotal{Breakdowns: breakdowns})
	}
}

// ciiDate turns a date of format 102 (CCYYMMDD) into the ISO form the rules compare.
func ciiDate(n *node) Text {
	t := n.txt()
	s := strings.TrimSpace(t.Value)
	if len(s) == 8 && strings.Trim(s, "0123456789") == "" {
		t.Value = s[:4] + "-" + s[4:6] + "-" + s[6:]
	}
	return t
}

func ciiPeriod(n *node) Period {
	if n == nil {
		return Period{}
	}
	return Period{Present: true, Start: ciiDate(n.at("StartDateTime/DateTimeString")), End: ciiDate(n.at("EndDateTime/DateTimeString"))}
}

func ciiAddress(n *node) Address {
	if n == nil {
		return Address{}
	}
	return Address{Present: true, Country: n.child("CountryID").txt(), City: n.child("CityName").txt(), PostCode: n.child("PostcodeCode").txt()}
}

func ciiParty(p *node) Party {
	if p == nil {
		return Party{}
	}
	party := Party{Present: true, LegalName: p.child("Name").txt(), Name: p.at("SpecifiedLegalOrganization/TradingBusinessName").txt(),
		LegalID:           ublIdentifier(p.at("SpecifiedLegalOrganization/ID"), "schemeID"),
		ElectronicAddress: ublIdentifier(p.at("URIUniversalCommunication/URIID"), "schemeID"), Address: ciiAddress(p.child("PostalTradeAddress"))}
	if c := p.child("DefinedTradeContact"); c != nil {
		name := c.child("PersonName").txt()
		if !name.Filled() {
			name = c.child("DepartmentName").txt()
		}
		party.Contact = Contact{Present: true, Name: name, Telephone: c.at("TelephoneUniversalCommunication/CompleteNumber").txt(),
			Email: c.at("EmailURIUniversalCommunication/URIID").txt()}
	}
	for _, c := range p.children {
		if c.name == "ID" || c.name == "GlobalID" {
			party.IDs = append(party.IDs, ublIdentifier(c, "schemeID"))
		}
	}
	for _, reg := range p.every("SpecifiedTaxRegistration/ID") {
		switch reg.attr("schemeID").Value {
		case "VA":
			if !party.VATID.Present {
				party.VATID = reg.txt()
			}
		case "FC":
			if !party.TaxRegistrationID.Present {
				party.TaxRegistrationID = reg.txt()
			}
		}
	}
	return party
}

func ciiTaxCategory(n *node) TaxCategory {
	if n == nil {
		return TaxCategory{}
	}
	return TaxCategory{Present: true, IsVAT: strings.ToUpper(n.child("TypeCode").txt().Norm()) == "VAT",
		Code: n.child("CategoryCode").txt(), Rate: Amount{Text: n.child("RateApplicablePercent").txt()},
		ExemptionReason: n.child("ExemptionReason").txt(), ExemptionReasonCode: n.child("ExemptionReasonCode").txt()}
}

func ciiAllowanceCharge(n *node) AllowanceCharge {
	return AllowanceCharge{Indicator: n.at("ChargeIndicator/Indicator").txt(),
		Amount: ublAmount(n.child("ActualAmount")), BaseAmount: ublAmount(n.child("BasisAmount")),
		Reason: n.child("Reason").txt(), ReasonCode: n.child("ReasonCode").txt(),
		TaxCategory: ciiTaxCategory(n.child("CategoryTradeTax"))}
}

func ciiLine(n *node) Line {
	q := n.at("SpecifiedLineTradeDelivery/BilledQuantity")
	settlement := n.child("SpecifiedLineTradeSettlement")
	agreement := n.child("SpecifiedLineTradeAgreement")
	product := n.child("SpecifiedTradeProduct")
	l := Line{ID: n.at("AssociatedDocumentLineDocument/LineID").txt(), Quantity: ublAmount(q), UnitCode: q.attr("unitCode"),
		NetAmount: ublAmount(settlement.at("SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount")),
		Period:    ciiPeriod(settlement.child("BillingSpecifiedPeriod")), ItemName: product.child("Name").txt(),
		StandardID: ublIdentifier(product.child("GlobalID"), "schemeID"), Category: ciiTaxCategory(settlement.child("ApplicableTradeTax"))}
	for _, ac := range settlement.all("SpecifiedTradeAllowanceCharge") {
		l.AllowanceCharges = append(l.AllowanceCharges, ciiAllowanceCharge(ac))
	}
	if p := agreement.child("NetPriceProductTradePrice"); p != nil {
		l.PricePresent = true
		l.Price = ublAmount(p.child("ChargeAmount"))
	}
	if g := agreement.child("GrossPriceProductTradePrice"); g != nil {
		l.GrossPrice = ublAmount(g.child("ChargeAmount"))
		l.PriceDiscount = ublAmount(g.at("AppliedTradeAllowanceCharge/ActualAmount"))
	}
	for _, c := range product.every("DesignatedProductClassification/ClassCode") {
		l.Classifications = append(l.Classifications, ublIdentifier(c, "listID"))
	}
	for _, a := range product.all("ApplicableProductCharacteristic") {
		l.Attributes = append(l.Attributes, ItemAttribute{Name: a.child("Description").txt(), Value: a.child("Value").txt()})
	}
	return l
}
