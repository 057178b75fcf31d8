package einvoice

import (
	"bytes"
	"context"
	"time"
)

// XML namespaces of the root elements Detect recognises.
const (
	nsUBLInvoice    = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	nsUBLCreditNote = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
	nsCII           = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
)

// pdfHeaderWindow is how far into a file Detect looks for the PDF header; readers accept leading junk
// within the first kilobyte.
const pdfHeaderWindow = 1024

// Detect names the format of data from its content alone; a declared media type is never trusted.
// A PDF is facturx only when it embeds a CII invoice (a ZUGFeRD 1.0 one too, or another UN/CEFACT
// message, which Parse then refuses as not an invoice), and unknown otherwise. Any UN/CEFACT message
// (an Order-X order, a despatch advice) is cii: the syntax is CII's, and Parse says what it is instead.
func Detect(data []byte) Format {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")
	switch {
	case isPDF(trimmed):
		if _, ok := findEmbeddedCII(data); ok {
			return FormatFacturX
		}
		return FormatUnknown
	case len(trimmed) > 0 && trimmed[0] == '{':
		return FormatJSON
	case len(trimmed) > 0 && trimmed[0] == '<':
		root, ok := xmlRoot(data)
		if !ok {
			return FormatUnknown
		}
		switch {
		case root.Space == nsUBLInvoice && root.Local == "Invoice",
			root.Space == nsUBLCreditNote && root.Local == "CreditNote":
			return FormatUBL
		case root.Space == nsCII && root.Local == "CrossIndustryInvoice", isOtherUNCEFACTMessage(root):
			return FormatCII
		case root.Space == nsZUGFeRD1 && root.Local == "CrossIndustryDocument":
			return FormatZUGFeRD1
		}
	}
	return FormatUnknown
}

// Parse extracts a document from data in whichever format Detect finds. It returns a *ParseError for
// malformed input in a recognised format and ErrNoStructuredData for anything else. It never panics.
func Parse(data []byte) (Document, error) {
	return parse(nil, data)
}

// ParseWithin is Parse under a time limit: the parsers and the PDF carver look at the clock as they go
// and stop once limit has passed since the call (a limit of zero or less has passed already). A document
// that needs longer gives a *ParseError with Code CodeInputCap and Field "time" naming the limit: like
// any cap it is a property of the document, and trying again gives the same answer. When ctx ends first,
// the parse stops too and returns ctx's error, which is the caller's to retry.
func ParseWithin(ctx context.Context, data []byte, limit time.Duration) (Document, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, limit, ErrTimeUp)
	defer cancel()
	return parseUntil(NewDeadline(ctx, limit), data)
}

// parseUntil parses data until dl passes.
func parseUntil(dl *Deadline, data []byte) (Document, error) {
	doc, err := parse(dl, data)
	if dl.Expired() {
		// Whatever the parse returned was cut short.
		return Document{}, dl.Err(formatOf(data))
	}
	return doc, err
}

// formatOf names the format a parse of data reads it as, without carving a PDF.
func formatOf(data []byte) Format {
	if isPDF(bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")) {
		return FormatFacturX
	}
	return Detect(data)
}

// parse is Parse that stops once dl has passed.
func parse(dl *Deadline, data []byte) (Document, error) {
	if isPDF(bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")) {
		return parseFacturX(dl, data)
	}
	if err := unreadableCharset(data); err != nil {
		return Document{}, err
	}
	switch Detect(data) {
	case FormatUBL:
		return parseUBL(dl, data)
	case FormatCII:
		return parseCII(dl, FormatCII, data)
	case FormatZUGFeRD1:
		return parseZUGFeRD1(dl, FormatZUGFeRD1, data)
	case FormatJSON:
		return parseJSON(dl, data)
	}
	return Document{}, ErrNoStructuredData
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// isPDF reports a PDF header near the start of data. JSON and XML are recognised by their first byte,
// so a "%PDF-" inside them never counts.
func isPDF(data []byte) bool {
	if len(data) > 0 && (data[0] == '{' || data[0] == '<') {
		return false
	}
	window := data
	if len(window) > pdfHeaderWindow {
		window = window[:pdfHeaderWindow]
	}
	return bytes.Contains(window, []byte("%PDF-"))
}

// Structured names the format of data as far as it can be told without extracting anything, and reports
// whether Parse should be asked for it: a recognised XML or JSON document, any PDF (Parse carves it, once,
// to find an embedded invoice) and XML in an unreadable charset (Parse says why). Unlike Detect it never
// carves a PDF, so a caller that goes on to Parse does the carving once.
func Structured(data []byte) (Format, bool) {
	if isPDF(bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")) {
		return FormatUnknown, true
	}
	if f := Detect(data); f != FormatUnknown {
		return f, true
	}
	return FormatUnknown, unreadableCharset(data) != nil
}
