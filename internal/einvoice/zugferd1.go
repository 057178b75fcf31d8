package einvoice

import "encoding/xml"

// nsZUGFeRD1 is the namespace of the root element of a ZUGFeRD 1.0 invoice, rsm:CrossIndustryDocument.
const nsZUGFeRD1 = "urn:ferd:CrossIndustryDocument:invoice:1p0"

// zugferd1Document is the part of a ZUGFeRD 1.0 CrossIndustryDocument (UN/CEFACT CII D13B as the
// ZUGFeRD 1.0 schema restricts it, profiles BASIC, COMFORT and EXTENDED) this package reads. It is
// the CII of today under older names: Specified/Header prefixes on the document and the transaction,
// SupplyChainTrade instead of HeaderTrade and LineTrade, ApplicablePercent for the VAT rate and
// SpecifiedTradeSettlementMonetarySummation for the totals. Child elements are matched by local name.
// Its Go shape is ciiDocument's field for field (only the tags differ), so it converts to one.
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
		Lines     []zugferd1Line `xml:"IncludedSupplyChainTradeLineItem"`
		Agreement struct {
			Seller ciiParty `xml:"SellerTradeParty"`
			Buyer  ciiParty `xml:"BuyerTradeParty"`
		} `xml:"ApplicableSupplyChainTradeAgreement"`
		Settlement struct {
			Currency          string            `xml:"InvoiceCurrencyCode"`
			Taxes             []zugferd1Tax     `xml:"ApplicableTradeTax"`
			PaymentTerms      []ciiPaymentTerms `xml:"SpecifiedTradePaymentTerms"`
			PaymentMeans      []ciiPaymentMeans `xml:"SpecifiedTradeSettlementPaymentMeans"`
			Summation         ciiSummation      `xml:"SpecifiedTradeSettlementMonetarySummation"`
			InvoiceReferences []struct {
				ID               string `xml:"ID"`
				IssuerAssignedID string `xml:"IssuerAssignedID"`
			} `xml:"InvoiceReferencedDocument"`
		} `xml:"ApplicableSupplyChainTradeSettlement"`
	} `xml:"SpecifiedSupplyChainTradeTransaction"`
}

var zugferd1Vocabulary = ciiVocabulary{
	header:        "HeaderExchangedDocument",
	settlement:    "ApplicableSupplyChainTradeSettlement",
	summation:     "SpecifiedTradeSettlementMonetarySummation",
	lineDelivery:  "SpecifiedSupplyChainTradeDelivery",
	lineSummation: "SpecifiedTradeSettlementMonetarySummation",
	taxRate:       "ApplicablePercent",
}

type zugferd1Tax = struct {
	CalculatedAmount string `xml:"CalculatedAmount"`
	BasisAmount      string `xml:"BasisAmount"`
	CategoryCode     string `xml:"CategoryCode"`
	Rate             string `xml:"ApplicablePercent"`
}

type zugferd1Line = struct {
	Product        ciiProduct  `xml:"SpecifiedTradeProduct"`
	NetPrice       ciiNetPrice `xml:"SpecifiedSupplyChainTradeAgreement>NetPriceProductTradePrice"`
	BilledQuantity amountText  `xml:"SpecifiedSupplyChainTradeDelivery>BilledQuantity"`
	Settlement     struct {
		Tax              zugferd1Tax          `xml:"ApplicableTradeTax"`
		AllowanceCharges []ciiAllowanceCharge `xml:"SpecifiedTradeAllowanceCharge"`
		LineTotalAmount  string               `xml:"SpecifiedTradeSettlementMonetarySummation>LineTotalAmount"`
	} `xml:"SpecifiedSupplyChainTradeSettlement"`
}

// ParseZUGFeRD1 extracts a ZUGFeRD 1.0 invoice (rsm:CrossIndustryDocument, profiles BASIC, COMFORT and
// EXTENDED; the extra elements of the larger profiles are ignored). Dates must be in format 102
// (CCYYMMDD); the due date is the first SpecifiedTradePaymentTerms/DueDateDateTime; of several
// TaxTotalAmount elements the one in the invoice currency is used. A BASIC document's lines often
// carry no net amount per line (the profile does not require one), which Validate then reports.
// ZUGFeRD 1.0 predates EN 16931 and never claims it: its Conformance says so (CodeRulesAdvisory), and
// the standard's rules count for it as warnings (Advisory).
func ParseZUGFeRD1(data []byte) (Document, error) {
	return ParseZUGFeRD1Until(nil, data)
}

// ParseZUGFeRD1Until is ParseZUGFeRD1 that stops once dl has passed.
func ParseZUGFeRD1Until(dl *Deadline, data []byte) (Document, error) {
	return parseZUGFeRD1(dl, FormatZUGFeRD1, data)
}

// IsZUGFeRD1Root reports the root element of a ZUGFeRD 1.0 CrossIndustryDocument.
func IsZUGFeRD1Root(root xml.Name) bool {
	return root.Space == nsZUGFeRD1 && root.Local == "CrossIndustryDocument"
}

func parseZUGFeRD1(dl *Deadline, format Format, data []byte) (Document, error) {
	root, ok := XMLRoot(data)
	if !ok {
		return Document{}, ParseErrorf(format, "", "no root element")
	}
	if !IsZUGFeRD1Root(root) {
		return Document{}, ParseErrorf(format, "", "root element {%s}%s is not a ZUGFeRD 1.0 CrossIndustryDocument", ClipText(root.Space), ClipText(root.Local))
	}
	var src zugferd1Document
	if err := decodeXML(dl, format, data, &src); err != nil {
		return Document{}, err
	}
	if err := checkInvoiceTypeCode(format, text(src.Header.TypeCode)); err != nil {
		return Document{}, err
	}
	doc, err := ciiDocument(src).document(format, zugferd1Vocabulary)
	if err != nil {
		return Document{}, err
	}
	if text(src.Transaction.Settlement.Summation.DuePayableAmount) == "" {
		// ZUGFeRD 1.0 makes the amount due optional (BASIC has none): it is then the grand total less
		// what was paid in advance.
		doc.Totals.Payable = doc.Totals.Gross.Sub(doc.Totals.Prepaid).Add(doc.Totals.Rounding)
	}
	doc.Conformance = zugferd1Advisory()
	return doc, nil
}

// zugferd1Advisory is the conformance of a ZUGFeRD 1.0 document: not judged by EN 16931, only advised.
func zugferd1Advisory() []Finding {
	return []Finding{{Code: CodeRulesAdvisory, Severity: SeverityInfo, Field: "profile",
		Message: "ZUGFeRD 1.0 predates EN 16931; its rules are shown as warnings"}}
}
