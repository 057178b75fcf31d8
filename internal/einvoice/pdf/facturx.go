// Package pdf reads the e-invoice a PDF carries: it carves the embedded files out of a Factur-X,
// ZUGFeRD 2 or ZUGFeRD 1.0 PDF without interpreting the document, within caps on the work and memory a
// hostile PDF may cost, and hands the CII among them to the CII reader.
package pdf

import (
	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/cii"
	"greatbook/internal/einvoice/xmltext"
)

// ParseUntil extracts the CII invoice a Factur-X, ZUGFeRD 2 or ZUGFeRD 1.0 PDF carries as an embedded
// file. The first embedded file whose XML root is a CII CrossIndustryInvoice or a ZUGFeRD 1.0
// CrossIndustryDocument is used, whatever its name; failing one, the first other UN/CEFACT message (an
// Order-X order), which is refused with Code CodeNotAnInvoice. A PDF without one
// gives ErrNoStructuredData (the pipeline then asks a person), as an *EmbeddedFileError saying why when
// an embedded file could not be decoded, unless carving stopped at a cap before finding one, which gives
// a *ParseError with Code CodeInputCap; an embedded CII that cannot be read gives a *ParseError for
// FormatFacturX. It stops once dl has passed.
func ParseUntil(dl *einvoice.Deadline, data []byte) (einvoice.Document, error) {
	xmlData, err := carveCII(dl, data)
	if err != nil {
		return einvoice.Document{}, err
	}
	if xmlData == nil {
		return einvoice.Document{}, einvoice.ErrNoStructuredData
	}
	return cii.ParseEmbeddedUntil(dl, xmlData)
}

// EmbedsCII reports whether a PDF embeds a CII CrossIndustryInvoice or a ZUGFeRD 1.0
// CrossIndustryDocument, decoding no more attachments than it needs to, or failing one another UN/CEFACT
// message (an Order-X order), for ParseUntil to say what it is.
func EmbedsCII(pdf []byte) bool {
	found, _ := carveCII(nil, pdf)
	return found != nil
}

// carveCII finds the CII EmbedsCII looks for, and reports why nothing was found: the carving stopped
// at a cap (a *ParseError), or an embedded file could not be decoded (an *EmbeddedFileError); it stops
// once dl has passed.
func carveCII(dl *einvoice.Deadline, pdf []byte) ([]byte, error) {
	var found, other []byte
	c := carvePDF(dl, pdf)
	c.eachAttachment(func(a attachment) bool {
		root, ok := xmltext.Root(a.Data)
		switch {
		case !ok:
		case cii.IsInvoiceRoot(root), cii.IsZUGFeRD1Root(root):
			found = a.Data
			return false
		case other == nil && cii.IsOtherMessageRoot(root):
			other = a.Data
		}
		return true
	})
	if found == nil {
		found = other
	}
	if found != nil {
		return found, nil
	}
	if capErr := c.capError(); capErr != nil {
		return nil, capErr
	}
	if c.undecoded != nil {
		return nil, c.undecoded
	}
	return nil, nil
}
