package einvoice

import (
	"errors"
	"fmt"
)

// ErrNoStructuredData reports input that carries no machine-readable invoice: a PDF without an embedded
// CII, an image, or anything else Detect does not recognise. The pipeline flags such documents
// needs_manual_extraction rather than failed.
var ErrNoStructuredData = errors.New("einvoice: no structured invoice data")

// ParseError reports input in a recognised format that cannot be read: malformed XML or JSON, a field of
// the wrong kind, an unknown field in the project's own JSON. Field names the offending element or JSON
// field when one is to blame, as a path ("lines[2].unit_price"); it is empty otherwise.
//
// Code is the finding code the pipeline files it under when it is more specific than "unreadable":
// CodeInputCap for input over a hard cap, CodeUnsupportedCharset for XML in a charset it cannot read.
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

func parseErrorf(format Format, field, reason string, args ...any) *ParseError {
	return &ParseError{Format: format, Field: field, Reason: fmt.Sprintf(reason, args...)}
}

// CodeInputCap is the finding code of a document over one of the package's hard caps on work (nesting
// depth, objects, decoded or scanned bytes). Field names the cap.
const CodeInputCap = "input_cap"

// capErrorf reports input over the cap named limit.
func capErrorf(format Format, limit, reason string, args ...any) *ParseError {
	return &ParseError{Format: format, Field: limit, Code: CodeInputCap, Reason: fmt.Sprintf(reason, args...)}
}

// isCapError reports a ParseError for the cap named limit.
func isCapError(err error, limit string) bool {
	var pe *ParseError
	return errors.As(err, &pe) && pe.Code == CodeInputCap && pe.Field == limit
}
