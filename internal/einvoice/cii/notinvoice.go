package cii

import (
	"encoding/xml"
	"strings"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/xmltext"
)

// nsUNCEFACT is the stem of the namespaces of UN/CEFACT's messages: CII's and its family's
// (urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100, ...:CrossIndustryDespatchAdvice:3) and
// Order-X's, which has no "standard" (urn:un:unece:uncefact:data:SCRDMCCBDACIOMessageStructure:100).
// Published messages spell it in more than one case ("Standard"), so it is compared without case.
const nsUNCEFACT = "urn:un:unece:uncefact:data:"

// invoiceTypeCodes are the UNTDID 1001 codes a CII or ZUGFeRD 1.0 document may carry and still be read
// as an invoice or a credit note: those of EN 16931's code list for BT-3 (BR-CL-01, CII binding),
// which the Factur-X and XRechnung lists are subsets of. Any other code is a document of another kind.
var invoiceTypeCodes = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`71 80 81 82 83 84 102 130 202 203 204 211 218 219 261 262 295 296 308
		325 326 331 380 381 382 383 384 385 386 387 388 389 390 393 394 395 396 420 456 457 458 471 472 473
		500 501 502 503 527 532 553 575 623 633 751 780 817 870 875 876 877 935`) {
		m[c] = true
	}
	return m
}()

// otherDocumentNames name the UNTDID 1001 codes of the documents most often sent by mistake where an
// invoice was expected.
var otherDocumentNames = map[string]string{
	"105": "a purchase order",
	"220": "an order",
	"221": "a blanket order",
	"224": "a rush order",
	"226": "a call-off order",
	"227": "a consignment order",
	"230": "an order change",
	"231": "an order response",
	"245": "a delivery release",
	"250": "a delivery just-in-time",
	"270": "a delivery note",
	"351": "a despatch advice",
	"352": "a despatch advice",
	"632": "a goods receipt",
}

// checkInvoiceTypeCode refuses a document whose type code (UNTDID 1001) is a number outside
// invoiceTypeCodes, saying what it is. A code that is not a number at all is left to Validate, which
// reports it as a malformed code of an invoice.
func checkInvoiceTypeCode(format einvoice.Format, code string) *einvoice.ParseError {
	if code == "" || !xmltext.AllDigits(code) || len(code) > 3 || invoiceTypeCodes[code] {
		return nil
	}
	what := otherDocumentNames[code]
	if what == "" {
		what = "a document"
	}
	return &einvoice.ParseError{Format: format, Field: "type_code", Code: einvoice.CodeNotAnInvoice,
		Reason: what + " (UNTDID 1001 type code " + code + "), not an invoice or a credit note"}
}

// IsOtherMessageRoot reports a root element of a UN/CEFACT message that is not a
// CrossIndustryInvoice: an Order-X order, a CrossIndustryDespatchAdvice, and the like, in whichever
// version of their namespaces.
func IsOtherMessageRoot(root xml.Name) bool {
	return len(root.Space) >= len(nsUNCEFACT) && strings.EqualFold(root.Space[:len(nsUNCEFACT)], nsUNCEFACT) &&
		root.Local != "" && !IsInvoiceRoot(root)
}

// orderXRoot is the root element of an Order-X message (an order, an order change or an order
// response, as its type code says): the SCRDM cross-industry order message structure.
const orderXRoot = "SCRDMCCBDACIOMessageStructure"

// uncefactMessageNames name the messages of the CII family by their root elements.
var uncefactMessageNames = map[string]string{
	"CrossIndustryOrder":            "order",
	"CrossIndustryOrderResponse":    "order response",
	"CrossIndustryOrderChange":      "order change",
	"CrossIndustryDespatchAdvice":   "despatch advice",
	"CrossIndustryDeliveryNote":     "delivery note",
	"CrossIndustryReceivingAdvice":  "receiving advice",
	"CrossIndustryRemittanceAdvice": "remittance advice",
}

// orderXDocument is what notAnInvoice reads of an Order-X message.
type orderXDocument struct {
	Guideline string `xml:"ExchangedDocumentContext>GuidelineSpecifiedDocumentContextParameter>ID"`
	TypeCode  string `xml:"ExchangedDocument>TypeCode"`
}

// notAnInvoice is the refusal of a UN/CEFACT message that is not an invoice, naming it: for Order-X
// the kind of order its type code says. It reads the message under the same caps as an invoice.
func notAnInvoice(dl *einvoice.Deadline, format einvoice.Format, data []byte, root xml.Name) error {
	what := "a UN/CEFACT " + einvoice.ClipText(root.Local) + " message"
	if name, ok := uncefactMessageNames[root.Local]; ok {
		what = "a UN/CEFACT " + name
	}
	if root.Local == orderXRoot {
		var src orderXDocument
		if err := xmltext.Decode(dl, format, data, &src); err != nil {
			return err
		}
		kind := "order"
		switch xmltext.Text(src.TypeCode) {
		case "230":
			kind = "order change"
		case "231":
			kind = "order response"
		}
		what = "an Order-X " + kind
		if code := xmltext.Text(src.TypeCode); code != "" {
			what += " (type code " + einvoice.ClipText(code) + ")"
		}
	}
	return &einvoice.ParseError{Format: format, Field: "document", Code: einvoice.CodeNotAnInvoice, Reason: what + ", not an invoice or a credit note"}
}
