package einvoice

import (
	"errors"
	"fmt"
)

// ErrNoStructuredData reports input that carries no machine-readable invoice: a PDF without an embedded
// CII, an image, or anything else the readers do not recognise. The pipeline flags such documents
// needs_manual_extraction rather than failed.
var ErrNoStructuredData = errors.New("einvoice: no structured invoice data")

// ParseError reports input in a recognised format that cannot be read: malformed XML or JSON, a field of
// the wrong kind, an unknown field in the project's own JSON. Field names the offending element or JSON
// field when one is to blame, as a path ("lines[2].unit_price"); it is empty otherwise.
//
// Code is the finding code the pipeline files it under when it is more specific than "unreadable":
// CodeInputCap for input over a hard cap, CodeUnsupportedCharset for XML in a charset it cannot read,
// CodeNotAnInvoice for a document of another kind.
type ParseError struct {
	Format Format
	Field  string
	Reason string
	Code   string
}

// Error implements error.
func (e *ParseError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("einvoice: parse %s: %s: %s", e.Format, e.Field, e.Reason)
	}
	return fmt.Sprintf("einvoice: parse %s: %s", e.Format, e.Reason)
}

// ParseErrorf is the ParseError of the readers for format, blaming field (or nothing, when it is empty).
func ParseErrorf(format Format, field, reason string, args ...any) *ParseError {
	return &ParseError{Format: format, Field: field, Reason: fmt.Sprintf(reason, args...)}
}

// CodeInputCap is the finding code of a document over one of the readers' hard caps on work (nesting
// depth, objects, decoded or scanned bytes, time). Field names the cap.
const CodeInputCap = "input_cap"

// CapErrorf reports input over the cap named limit.
func CapErrorf(format Format, limit, reason string, args ...any) *ParseError {
	return &ParseError{Format: format, Field: limit, Code: CodeInputCap, Reason: fmt.Sprintf(reason, args...)}
}

// CodeUnsupportedCharset is the finding code of XML whose declaration names a charset the readers
// cannot read.
const CodeUnsupportedCharset = "unsupported_charset"

// CodeNotAnInvoice is the ParseError code (and the pipeline's finding code) of a document in a syntax
// the readers know that is not an invoice or a credit note: an Order-X order, a despatch advice, a CII
// document whose type code says it is something else. Its Reason says what the document is.
const CodeNotAnInvoice = "not_an_invoice"

// CodeEmbeddedFileUnreadable is the finding code of a PDF whose embedded file could not be decoded
// (a filter the carver does not follow, damaged compressed data), so that no invoice was found in it.
const CodeEmbeddedFileUnreadable = "embedded_file_unreadable"

// EmbeddedFileError is ErrNoStructuredData with the reason: an embedded file, perhaps the invoice's
// XML, that could not be decoded. errors.Is(err, ErrNoStructuredData) holds for it.
type EmbeddedFileError struct {
	Object int    // the object number of the stream
	Name   string // the file name its file specification gives, when one does
	Reason string // what stopped the decoding, in words ("is compressed 9 times over, …")
}

// Error implements error.
func (e *EmbeddedFileError) Error() string {
	return fmt.Sprintf("%v: the embedded file %s %s", ErrNoStructuredData, e.file(), e.Reason)
}

// Is makes the error an ErrNoStructuredData: the document still has no data the readers can read.
func (e *EmbeddedFileError) Is(target error) bool { return target == ErrNoStructuredData }

// Explain is the finding's message: what could not be read, why, and what to do.
func (e *EmbeddedFileError) Explain() string {
	return fmt.Sprintf("No invoice XML could be read from this PDF: its embedded file %s %s. "+
		"Type the invoice's facts in, or ask the supplier for the XML on its own.", e.file(), e.Reason)
}

func (e *EmbeddedFileError) file() string {
	if e.Name != "" {
		return fmt.Sprintf("%q (object %d)", e.Name, e.Object)
	}
	return fmt.Sprintf("in object %d", e.Object)
}

// ClipText shortens a value the document states for quoting in an error or a finding: past 40 bytes
// it is cut, so a hostile value cannot make a message of any length.
func ClipText(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
