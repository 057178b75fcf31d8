package cii

import (
	"encoding/xml"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/xmltext"
)

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
	Product        ciiProduct         `xml:"SpecifiedTradeProduct"`
	NetPrice       ciiNetPrice        `xml:"SpecifiedSupplyChainTradeAgreement>NetPriceProductTradePrice"`
	BilledQuantity xmltext.AmountText `xml:"SpecifiedSupplyChainTradeDelivery>BilledQuantity"`
	Settlement     struct {
		Tax              zugferd1Tax          `xml:"ApplicableTradeTax"`
		AllowanceCharges []ciiAllowanceCharge `xml:"SpecifiedTradeAllowanceCharge"`
		LineTotalAmount  string               `xml:"SpecifiedTradeSettlementMonetarySummation>LineTotalAmount"`
	} `xml:"SpecifiedSupplyChainTradeSettlement"`
}

// ParseZUGFeRD1Until extracts a ZUGFeRD 1.0 invoice (rsm:CrossIndustryDocument, profiles BASIC, COMFORT and
// EXTENDED; the extra elements of the larger profiles are ignored). Dates must be in format 102
// (CCYYMMDD); the due date is the first SpecifiedTradePaymentTerms/DueDateDateTime; of several
// TaxTotalAmount elements the one in the invoice currency is used. A BASIC document's lines often
// carry no net amount per line (the profile does not require one), which Validate then reports.
// ZUGFeRD 1.0 predates EN 16931 and never claims it: its Conformance says so (CodeRulesAdvisory), and
// the standard's rules count for it as warnings (Advisory). It stops once dl has passed.
func ParseZUGFeRD1Until(dl *einvoice.Deadline, data []byte) (einvoice.Document, error) {
	return parseZUGFeRD1(dl, einvoice.FormatZUGFeRD1, data)
}

// IsZUGFeRD1Root reports the root element of a ZUGFeRD 1.0 CrossIndustryDocument.
func IsZUGFeRD1Root(root xml.Name) bool {
	return root.Space == nsZUGFeRD1 && root.Local == "CrossIndustryDocument"
}

func parseZUGFeRD1(dl *einvoice.Deadline, format einvoice.Format, data []byte) (einvoice.Document, error) {
	root, ok := xmltext.Root(data)
	if !ok {
		return einvoice.Document{}, einvoice.ParseErrorf(format, "", "no root element")
	}
	if !IsZUGFeRD1Root(root) {
		return einvoice.Document{}, einvoice.ParseErrorf(format, "", "root element {%s}%s is not a ZUGFeRD 1.0 CrossIndustryDocument", einvoice.ClipText(root.Space), einvoice.ClipText(root.Local))
	}
	var src zugferd1Document
	if err := xmltext.Decode(dl, format, data, &src); err != nil {
		return einvoice.Document{}, err
	}
	if err := checkInvoiceTypeCode(format, xmltext.Text(src.Header.TypeCode)); err != nil {
		return einvoice.Document{}, err
	}
	doc, err := ciiDocument(src).document(format, zugferd1Vocabulary)
	if err != nil {
		return einvoice.Document{}, err
	}
	if xmltext.Text(src.Transaction.Settlement.Summation.DuePayableAmount) == "" {
		// ZUGFeRD 1.0 makes the amount due optional (BASIC has none): it is then the grand total less
		// what was paid in advance.
		doc.Totals.Payable = doc.Totals.Gross.Sub(doc.Totals.Prepaid).Add(doc.Totals.Rounding)
	}
	doc.Conformance = zugferd1Advisory()
	return doc, nil
}

// zugferd1Advisory is the conformance of a ZUGFeRD 1.0 document: not judged by EN 16931, only advised.
func zugferd1Advisory() []einvoice.Finding {
	return []einvoice.Finding{{Code: einvoice.CodeRulesAdvisory, Severity: einvoice.SeverityInfo, Field: "profile",
		Message: "ZUGFeRD 1.0 predates EN 16931; its rules are shown as warnings"}}
}
