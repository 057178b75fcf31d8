package pipeline

import (
	"bytes"
	"errors"
	"mime"
	"net/http"
	"strings"

	"greatbook/internal/apperr"
	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/ownjson"
)

// DefaultMaxBytes is the largest document accepted unless configured.
const DefaultMaxBytes = 20 << 20

// Accepted media types. Images and PDFs without embedded XML are accepted
// and flagged needs_manual_extraction (unless a model extractor reads them).
var accepted = map[string]string{
	"application/xml":  "xml",
	"text/xml":         "xml",
	"application/pdf":  "pdf",
	"application/json": "json",
	"image/png":        "image",
	"image/jpeg":       "image",
	"image/tiff":       "image",
}

// CheckArrival refuses what must not be written: too large (413), empty
// (422), a type we do not take or a body that is not what it claims
// (415). An empty declared type is sniffed from the content. It returns the
// normalised media type.
func CheckArrival(declared string, content []byte, maxBytes int64) (string, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if int64(len(content)) > maxBytes {
		return "", apperr.New(apperr.TooLarge, "the document is larger than the limit of %d bytes", maxBytes)
	}
	if len(content) == 0 {
		return "", apperr.New(apperr.Invalid, "the document is empty")
	}
	mt := ""
	if declared != "" && declared != "application/octet-stream" {
		parsed, _, err := mime.ParseMediaType(declared)
		if err != nil {
			return "", apperr.New(apperr.UnsupportedMediaType, "%q is not a media type", declared)
		}
		mt = parsed
	} else {
		mt = Sniff(content)
	}
	family, ok := accepted[mt]
	if !ok {
		return "", apperr.New(apperr.UnsupportedMediaType,
			"%s documents are not accepted; send XML (UBL, CII), PDF (Factur-X, ZUGFeRD or a scan), JSON or an image", orUnknown(mt))
	}
	if got := accepted[Sniff(content)]; got != family {
		return "", apperr.New(apperr.UnsupportedMediaType, "the document was declared %s but its content is not %s", mt, family)
	}
	if family == "json" {
		// The project's own format is refused at the door when it does not
		// parse (an unknown field, money as a number), so that a typo never
		// passes silently. One that parses but does not add up is filed
		// flagged, like any other format.
		if _, err := ownjson.Parse(content); err != nil {
			var pe *einvoice.ParseError
			field := "document"
			if errors.As(err, &pe) && pe.Field != "" {
				field = pe.Field
			}
			return "", apperr.Wrap(err, apperr.Invalid, "the JSON document is not valid: %v", err).
				With("reasons", []map[string]string{{"field": field, "message": err.Error()}})
		}
	}
	return mt, nil
}

// Sniff guesses a media type from content.
func Sniff(content []byte) string {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(content, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case bytes.HasPrefix(content, []byte("%PDF-")):
		return "application/pdf"
	case bytes.HasPrefix(trimmed, []byte("<")):
		return "application/xml"
	case bytes.HasPrefix(trimmed, []byte("{")):
		return "application/json"
	}
	t := http.DetectContentType(content)
	t, _, _ = strings.Cut(t, ";")
	return t
}

func orUnknown(mt string) string {
	if mt == "" {
		return "unrecognised"
	}
	return mt
}
