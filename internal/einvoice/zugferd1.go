package einvoice

import (
	"fmt"
)

// nsZUGFeRD1 is the namespace of the root element of a ZUGFeRD 1.0 invoice, rsm:CrossIndustryDocument,
// and zugferd1Guideline the stem of its profiles' identifiers (":basic", ":comfort", ":extended").
const (
	nsZUGFeRD1        = "urn:ferd:CrossIndustryDocument:invoice:1p0"
	zugferd1Guideline = "urn:ferd:crossindustrydocument:invoice:1p0" // lower case: ProfileOf compares so
)

// zugferd1Document is the part of a ZUGFeRD 1.0 CrossIndustryDocument (UN/CEFACT CII D13B as the
// ZUGFeRD 1.0 schema restricts it, profiles BASIC, COMFORT and EXTENDED) this package reads. It is
// the CII of today under older names: Specified/Header prefixes on the document and the transaction,
// SupplyChainTrade instead of HeaderTrade and LineTrade, ApplicablePercent for the VAT rate and
// SpecifiedTradeSettlementMonetarySummation for the totals. Child elements are matched by local name.
type zugferd1Document struct {
	Context struct {
		Guideline string `xml:"GuidelineSpecifiedDocumentContextParameter>ID"`
	} `xml:"SpecifiedExchangedDocumentContext"`
	Header struct {
		ID        string  `xml:"ID"`
		TypeCode  string  `xml:"TypeCode"`
		IssueDate ciiDate `xml:"IssueDateTime"`
	} `xml:"HeaderExchangedDocument"`
	Transaction struct {
		Agreement struct {
			Seller ciiParty `xml:"SellerTradeParty"`
			Buyer  ciiParty `xml:"BuyerTradeParty"`
		} `xml:"ApplicableSupplyChainTradeAgreement"`
		Settlement struct {
			Currency     string        `xml:"InvoiceCurrencyCode"`
			Taxes        []zugferd1Tax `xml:"ApplicableTradeTax"`
			PaymentTerms []struct {
				DueDate ciiDate `xml:"DueDateDateTime"`
			} `xml:"SpecifiedTradePaymentTerms"`
			Summation struct {
				LineTotalAmount      string       `xml:"LineTotalAmount"`
				ChargeTotalAmount    string       `xml:"ChargeTotalAmount"`
				AllowanceTotalAmount string       `xml:"AllowanceTotalAmount"`
				TaxBasisTotalAmount  string       `xml:"TaxBasisTotalAmount"`
				TaxTotalAmounts      []amountText `xml:"TaxTotalAmount"`
				RoundingAmount       string       `xml:"RoundingAmount"`
				GrandTotalAmount     string       `xml:"GrandTotalAmount"`
				TotalPrepaidAmount   string       `xml:"TotalPrepaidAmount"`
				DuePayableAmount     string       `xml:"DuePayableAmount"`
			} `xml:"SpecifiedTradeSettlementMonetarySummation"`
			InvoiceReferences []struct {
				ID               string `xml:"ID"`
				IssuerAssignedID string `xml:"IssuerAssignedID"`
			} `xml:"InvoiceReferencedDocument"`
		} `xml:"ApplicableSupplyChainTradeSettlement"`
		Lines []zugferd1Line `xml:"IncludedSupplyChainTradeLineItem"`
	} `xml:"SpecifiedSupplyChainTradeTransaction"`
}

type zugferd1Tax struct {
	CalculatedAmount string `xml:"CalculatedAmount"`
	BasisAmount      string `xml:"BasisAmount"`
	CategoryCode     string `xml:"CategoryCode"`
	Rate             string `xml:"ApplicablePercent"`
}

type zugferd1Line struct {
	Product struct {
		Name        string `xml:"Name"`
		Description string `xml:"Description"`
	} `xml:"SpecifiedTradeProduct"`
	NetPrice struct {
		ChargeAmount  string     `xml:"ChargeAmount"`
		BasisQuantity amountText `xml:"BasisQuantity"`
	} `xml:"SpecifiedSupplyChainTradeAgreement>NetPriceProductTradePrice"`
	BilledQuantity amountText `xml:"SpecifiedSupplyChainTradeDelivery>BilledQuantity"`
	Settlement     struct {
		Tax              zugferd1Tax `xml:"ApplicableTradeTax"`
		AllowanceCharges []struct {
			ChargeIndicator string `xml:"ChargeIndicator>Indicator"`
			ActualAmount    string `xml:"ActualAmount"`
		} `xml:"SpecifiedTradeAllowanceCharge"`
		LineTotalAmount string `xml:"SpecifiedTradeSettlementMonetarySummation>LineTotalAmount"`
	} `xml:"SpecifiedSupplyChainTradeSettlement"`
}

// ParseZUGFeRD1 extracts a ZUGFeRD 1.0 invoice (rsm:CrossIndustryDocument, profiles BASIC, COMFORT and
// EXTENDED; the extra elements of the larger profiles are ignored). Dates must be in format 102
// (CCYYMMDD); the due date is the first SpecifiedTradePaymentTerms/DueDateDateTime; of several
// TaxTotalAmount elements the one in the invoice currency is used. A BASIC document's lines often
// carry no net amount per line (the profile does not require one), which Validate then reports.
func ParseZUGFeRD1(data []byte) (Document, error) {
	return parseZUGFeRD1(nil, FormatZUGFeRD1, data)
}

func parseZUGFeRD1(dl *deadline, format Format, data []byte) (Document, error) {
	root, ok := xmlRoot(data)
	if !ok {
		return Document{}, parseErrorf(format, "", "no root element")
	}
	if root.Space != nsZUGFeRD1 || root.Local != "CrossIndustryDocument" {
		return Document{}, parseErrorf(format, "", "root element {%s}%s is not a ZUGFeRD 1.0 CrossIndustryDocument", clipText(root.Space), clipText(root.Local))
	}
	var src zugferd1Document
	if err := decodeXML(dl, format, data, &src); err != nil {
		return Document{}, err
	}
	if err := checkInvoiceTypeCode(format, text(src.Header.TypeCode)); err != nil {
		return Document{}, err
	}
	r := &fieldReader{format: format}
	tx := src.Transaction
	settlement := tx.Settlement

	doc := Document{
		Format:        format,
		TypeCode:      text(src.Header.TypeCode),
		Number:        text(src.Header.ID),
		IssueDate:     r.ciiDate("HeaderExchangedDocument/IssueDateTime", src.Header.IssueDate),
		Currency:      text(settlement.Currency),
		Seller:        tx.Agreement.Seller.party(),
		Buyer:         tx.Agreement.Buyer.party(),
		Lines:         []Line{},
		TaxSubtotals:  []TaxSubtotal{},
		Specification: text(src.Context.Guideline),
	}
	doc.Profile = ProfileOf(doc.Specification)
	doc.Type = docTypeFor(doc.TypeCode)
	for i, terms := range settlement.PaymentTerms {
		if due := r.ciiDate(fmt.Sprintf("SpecifiedTradePaymentTerms[%d]/DueDateDateTime", i), terms.DueDate); due != "" {
			doc.DueDate = due
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
		field := fmt.Sprintf("IncludedSupplyChainTradeLineItem[%d]", i)
		line := Line{
			Description:       firstText(l.Product.Name, l.Product.Description),
			Quantity:          r.decimal(field+"/SpecifiedSupplyChainTradeDelivery/BilledQuantity", l.BilledQuantity.Value),
			UnitPrice:         r.decimal(field+"/NetPriceProductTradePrice/ChargeAmount", l.NetPrice.ChargeAmount),
			PriceBaseQuantity: r.decimal(field+"/NetPriceProductTradePrice/BasisQuantity", l.NetPrice.BasisQuantity.Value),
			Net:               r.decimal(field+"/SpecifiedTradeSettlementMonetarySummation/LineTotalAmount", l.Settlement.LineTotalAmount),
			TaxRate:           r.decimal(field+"/ApplicableTradeTax/ApplicablePercent", l.Settlement.Tax.Rate),
			TaxCategory:       text(l.Settlement.Tax.CategoryCode),
		}
		for j, ac := range l.Settlement.AllowanceCharges {
			amount := r.decimal(fmt.Sprintf("%s/SpecifiedTradeAllowanceCharge[%d]/ActualAmount", field, j), ac.ActualAmount)
			if isTrue(ac.ChargeIndicator) {
				line.Charges = line.Charges.Add(amount)
			} else {
				line.Allowances = line.Allowances.Add(amount)
			}
		}
		doc.Lines = append(doc.Lines, line)
	}
	for i, t := range settlement.Taxes {
		field := fmt.Sprintf("ApplicableSupplyChainTradeSettlement/ApplicableTradeTax[%d]", i)
		doc.TaxSubtotals = append(doc.TaxSubtotals, TaxSubtotal{
			Category: text(t.CategoryCode),
			Rate:     r.decimal(field+"/ApplicablePercent", t.Rate),
			Taxable:  r.decimal(field+"/BasisAmount", t.BasisAmount),
			Tax:      r.decimal(field+"/CalculatedAmount", t.CalculatedAmount),
		})
	}

	s := settlement.Summation
	const sum = "SpecifiedTradeSettlementMonetarySummation/"
	doc.Totals = Totals{
		LineTotal:      r.decimal(sum+"LineTotalAmount", s.LineTotalAmount),
		AllowanceTotal: r.decimal(sum+"AllowanceTotalAmount", s.AllowanceTotalAmount),
		ChargeTotal:    r.decimal(sum+"ChargeTotalAmount", s.ChargeTotalAmount),
		Net:            r.decimal(sum+"TaxBasisTotalAmount", s.TaxBasisTotalAmount),
		Tax:            r.decimal(sum+"TaxTotalAmount", invoiceCurrencyTax(s.TaxTotalAmounts, doc.Currency)),
		Gross:          r.decimal(sum+"GrandTotalAmount", s.GrandTotalAmount),
		Prepaid:        r.decimal(sum+"TotalPrepaidAmount", s.TotalPrepaidAmount),
		Rounding:       r.decimal(sum+"RoundingAmount", s.RoundingAmount),
		Payable:        r.decimal(sum+"DuePayableAmount", s.DuePayableAmount),
	}
	if text(s.DuePayableAmount) == "" {
		// ZUGFeRD 1.0 makes the amount due optional (BASIC has none): it is then the grand total less
		// what was paid in advance.
		doc.Totals.Payable = doc.Totals.Gross.Sub(doc.Totals.Prepaid).Add(doc.Totals.Rounding)
	}

	if r.err != nil {
		return Document{}, r.err
	}
	return doc, nil
}
