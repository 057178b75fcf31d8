// Package read turns the bytes of a supplier's document into an einvoice.Document, whatever syntax they
// are in: Detect names the format from the content alone, and Parse (ParseWithin, under a time limit)
// hands the bytes to the reader of that syntax. It is the one way in for bytes of unknown kind; a caller
// that knows the syntax (the project's own JSON, say) may ask that syntax's reader directly.
package read

import (
	"bytes"
	"context"
	"time"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/cii"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/einvoice/pdf"
	"greatbook/internal/einvoice/ubl"
	"greatbook/internal/einvoice/xmltext"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// pdfHeaderWindow is how far into a file Detect looks for the PDF header; readers accept leading junk
// within the first kilobyte.
const pdfHeaderWindow = 1024

// Detect names the format of data from its content alone; a declared media type is never trusted.
// A PDF is facturx only when it embeds a CII invoice (a ZUGFeRD 1.0 one too, or another UN/CEFACT
// message, which Parse then refuses as not an invoice), and unknown otherwise. Any UN/CEFACT message
// (an Order-X order, a despatch advice) is cii: the syntax is CII's, and Parse says what it is instead.
func Detect(data []byte) einvoice.Format {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")
	switch {
	case isPDF(trimmed):
		if pdf.EmbedsCII(data) {
			return einvoice.FormatFacturX
		}
		return einvoice.FormatUnknown
	case len(trimmed) > 0 && trimmed[0] == '{':
		return einvoice.FormatJSON
	case len(trimmed) > 0 && trimmed[0] == '<':
		root, ok := xmltext.Root(data)
		if !ok {
			return einvoice.FormatUnknown
		}
		switch {
		case ubl.IsRoot(root):
			return einvoice.FormatUBL
		case cii.IsInvoiceRoot(root), cii.IsOtherMessageRoot(root):
			return einvoice.FormatCII
		case cii.IsZUGFeRD1Root(root):
			return einvoice.FormatZUGFeRD1
		}
	}
	return einvoice.FormatUnknown
}

// Parse extracts a document from data in whichever format Detect finds. It returns a *ParseError for
// malformed input in a recognised format and ErrNoStructuredData for anything else. It never panics.
func Parse(data []byte) (einvoice.Document, error) {
	return parse(nil, data)
}

// ParseWithin is Parse under a time limit: the parsers and the PDF carver look at the clock as they go
// and stop once limit has passed since the call (a limit of zero or less has passed already). A document
// that needs longer gives a *ParseError with Code CodeInputCap and Field "time" naming the limit: like
// any cap it is a property of the document, and trying again gives the same answer. When ctx ends first,
// the parse stops too and returns ctx's error, which is the caller's to retry.
func ParseWithin(ctx context.Context, data []byte, limit time.Duration) (einvoice.Document, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, limit, einvoice.ErrTimeUp)
	defer cancel()
	return parseUntil(einvoice.NewDeadline(ctx, limit), data)
}

// parseUntil parses data until dl passes.
func parseUntil(dl *einvoice.Deadline, data []byte) (einvoice.Document, error) {
	doc, err := parse(dl, data)
	if dl.Expired() {
		// Whatever the parse returned was cut short.
		return einvoice.Document{}, dl.Err(formatOf(data))
	}
	return doc, err
}

// formatOf names the format a parse of data reads it as, without carving a PDF.
func formatOf(data []byte) einvoice.Format {
	if isPDF(bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")) {
		return einvoice.FormatFacturX
	}
	return Detect(data)
}

// parse is Parse that stops once dl has passed.
func parse(dl *einvoice.Deadline, data []byte) (einvoice.Document, error) {
	if isPDF(bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")) {
		return pdf.ParseUntil(dl, data)
	}
	if err := xmltext.UnreadableCharset(data); err != nil {
		return einvoice.Document{}, err
	}
	switch Detect(data) {
	case einvoice.FormatUBL:
		return ubl.ParseUntil(dl, data)
	case einvoice.FormatCII:
		return cii.ParseUntil(dl, data)
	case einvoice.FormatZUGFeRD1:
		return cii.ParseZUGFeRD1Until(dl, data)
	case einvoice.FormatJSON:
		return ownjson.ParseUntil(dl, data)
	}
	return einvoice.Document{}, einvoice.ErrNoStructuredData
}

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
func Structured(data []byte) (einvoice.Format, bool) {
	if isPDF(bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")) {
		return einvoice.FormatUnknown, true
	}
	if f := Detect(data); f != einvoice.FormatUnknown {
		return f, true
	}
	return einvoice.FormatUnknown, xmltext.UnreadableCharset(data) != nil
}
