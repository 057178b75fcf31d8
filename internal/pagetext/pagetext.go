// Package pagetext gets the words of a PDF or an image, with their places
// on the page: from the PDF's text layer where it has one (poppler's
// pdftotext), else by OCR (poppler's pdftoppm, then tesseract). Each tool
// runs as a separate process capped in time, memory and pages, so a hostile
// file costs a bounded amount of work and never stalls a worker.
package pagetext

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Source says how a page's words were read.
type Source string

// The sources of a page's words.
const (
	TextLayer Source = "text_layer"
	OCR       Source = "ocr"
)

// Box is a rectangle on a page in fractions of the page's width and height
// (0..1), origin top left, so that a text layer (points) and OCR (pixels)
// describe the same place alike.
type Box struct {
	X0 float64 `json:"x0"`
	Y0 float64 `json:"y0"`
	X1 float64 `json:"x1"`
	Y1 float64 `json:"y1"`
}

// Word is one word on a page. Conf is the OCR's confidence (0..1); a text
// layer's words have 1.
type Word struct {
	Text string  `json:"t"`
	Page int     `json:"p"` // 1-based
	Box  Box     `json:"b"`
	Conf float64 `json:"c"`
}

// Page is one page's words in reading order (by block, line, then word).
// Width and Height are the page's size in PDF points (an image's at 72 dpi
// for its stated resolution).
type Page struct {
	Number int     `json:"number"`
	Source Source  `json:"source"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Words  []Word  `json:"words"`
}

// Text is a document's pages as read. PagesInDocument counts every page
// the file has; Pages holds the first Limits.MaxPages of them.
type Text struct {
	Pages           []Page `json:"pages"`
	PagesInDocument int    `json:"pages_in_document"`
}

// Truncated reports whether pages were left unread by the page cap.
func (t Text) Truncated() bool { return t.PagesInDocument > len(t.Pages) }

// Limits bound the reading of one document.
type Limits struct {
	MaxPages  int           // pages read (the first ones); default 20
	Timeout   time.Duration // per document, all tools together; default 60 s
	MaxMemory int64         // bytes of address space per tool process; default 1 GiB
	MaxPixels int64         // pixels per page image for OCR; default 40 million
	DPI       int           // rasterisation for OCR; default 300
}

// LimitError says a document went past one of its limits. What is "pages",
// "time", "memory" or "pixels". It is the document's fault, not a fault to
// retry.
type LimitError struct {
	What  string
	Limit string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("pagetext: the document goes past the %s limit (%s)", e.What, e.Limit)
}

// ErrToolMissing says a reading tool (pdftotext, pdftoppm, tesseract) is not
// installed: an operator's fault, not the document's.
var ErrToolMissing = errors.New("pagetext: a reading tool is not installed")

// Read returns the words of content, a PDF or a PNG, JPEG or TIFF image
// (mediaType says which). A PDF page with (almost) no text layer is OCRed.
func Read(ctx context.Context, content []byte, mediaType string, lim Limits) (Text, error) {
	return Text{}, errors.New("pagetext: not built yet")
}

// RenderPage returns page n (1-based) of content as a PNG at dpi, under the
// same limits: the picture a reviewer sees the read places on.
func RenderPage(ctx context.Context, content []byte, mediaType string, n, dpi int, lim Limits) ([]byte, error) {
	return nil, errors.New("pagetext: not built yet")
}

// UnreadableError says a tool could not read the document (a malformed or
// encrypted PDF, an image it cannot decode): the document's fault, not a
// fault to retry.
type UnreadableError struct {
	Tool   string
	Reason string
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("pagetext: %s could not read the document: %s", e.Tool, e.Reason)
}
