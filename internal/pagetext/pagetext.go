// Package pagetext gets the words of a PDF or an image, with their places
// on the page: from the PDF's text layer where it has one (poppler's
// pdftotext), else by OCR (poppler's pdftoppm, then tesseract). Each tool
// runs as a separate process capped in time, memory and pages, so a hostile
// file costs a bounded amount of work and never stalls a worker.
//
// A PDF: pdfinfo counts its pages and gives their sizes; pdftotext
// -bbox-layout gives the words of the first MaxPages in its reading order
// (flow, block, line, word). A page whose text layer has fewer than three
// words is rendered by pdftoppm at Limits.DPI, lowered so that the page
// stays within MaxPixels however large its MediaBox, and OCRed unless it is
// blank.
//
// An image (PNG, JPEG, TIFF): its header alone is read first, and an image
// over MaxPixels is refused before anything decodes it. It is read at the
// resolution its header states (PNG's pHYs, JPEG's JFIF, TIFF's
// XResolution), or at 300 dpi when it states none or one no scan of paper
// has. An image stated under 150 dpi, or a small one stating nothing, is
// scaled to twice its width and height (Catmull-Rom, in grey) before OCR,
// since tesseract misses letters under about ten pixels high. A TIFF's
// first image only is read.
//
// Boxes are on the page as RenderPage shows it: a PDF page turned by its
// /Rotate, an image's pixels as stored (a JPEG's EXIF orientation is not
// applied).
//
// OCR is tesseract's LSTM with the English, German, French and Dutch
// models and automatic page segmentation (--psm 3). tesseract reads a page
// turned a quarter by itself; a read that looks poor (few words, or a mean
// confidence under 0.6) is checked with its orientation detection (--psm
// 0), read again turned as it says, and the better of the two reads kept,
// its boxes turned back onto the page as given. Small skew is left to
// tesseract.
//
// Bounds: each tool runs under prlimit (address space MaxMemory, CPU
// seconds to the deadline) as the leader of its own process group, which is
// killed whole when the document's Timeout passes; its output is read
// through a cap, and tesseract runs on one thread (OMP_THREAD_LIMIT=1).
// Each read works in its own temporary directory, removed when it ends.
// What is decoded in process (a TIFF, an image scaled up or turned, a page
// looked at for blankness) is decoded only once its size is known to be
// within MaxPixels (four times that for a scaling), so it costs a bounded
// amount of memory too.
package pagetext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"mime"
	"os"
	"path/filepath"
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
// "time", "memory", "pixels" or "words" (more than MaxWordsPerPage on a
// page, or more output than that many words make). It is the document's
// fault, not a fault to retry.
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

// UnreadableError says a document is not one the tools can read: a PDF
// that is malformed or encrypted, an image in an unknown format or with a
// broken header. It is the document's fault, not a fault to retry.
type UnreadableError struct {
	Reason string
}

func (e *UnreadableError) Error() string {
	return "pagetext: the document cannot be read: " + e.Reason
}

// The limits a zero field of Limits stands for.
const (
	DefaultMaxPages  = 20
	DefaultTimeout   = 60 * time.Second
	DefaultMaxMemory = 1 << 30
	DefaultMaxPixels = 40_000_000
	DefaultDPI       = 300
)

func (l Limits) withDefaults() Limits {
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultMaxMemory
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultMaxPixels
	}
	if l.DPI <= 0 {
		l.DPI = DefaultDPI
	}
	return l
}

// reader is one document's read: its deadline, its limits and the
// temporary directory its tools work in.
type reader struct {
	ctx context.Context
	lim Limits
	dir string
}

// open starts a read of content: the document's deadline and a temporary
// directory, holding content as in.pdf when it is a PDF. done ends it.
func open(ctx context.Context, content []byte, mediaType string, lim Limits) (r *reader, kind string, done func(), err error) {
	lim = lim.withDefaults()
	mt, _, _ := mime.ParseMediaType(mediaType)
	switch mt {
	case "application/pdf":
		kind = "pdf"
	case "image/png", "image/jpeg", "image/tiff":
		kind = "image"
	default:
		return nil, "", nil, &UnreadableError{Reason: fmt.Sprintf("media type %q is not a PDF or a PNG, JPEG or TIFF image", mediaType)}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, lim.Timeout, errTimeLimit)
	dir, err := os.MkdirTemp("", "pagetext-")
	if err != nil {
		cancel()
		return nil, "", nil, fmt.Errorf("pagetext: %w", err)
	}
	done = func() { cancel(); os.RemoveAll(dir) }
	if kind == "pdf" {
		err = os.WriteFile(filepath.Join(dir, "in.pdf"), content, 0o600)
	}
	if err != nil {
		done()
		return nil, "", nil, fmt.Errorf("pagetext: %w", err)
	}
	return &reader{ctx: ctx, lim: lim, dir: dir}, kind, done, nil
}

// Read returns the words of content, a PDF or a PNG, JPEG or TIFF image
// (mediaType says which). A PDF page with (almost) no text layer is OCRed.
// A document past a limit gives a *LimitError, one the tools cannot read an
// *UnreadableError, and a missing tool ErrToolMissing.
func Read(ctx context.Context, content []byte, mediaType string, lim Limits) (Text, error) {
	r, kind, done, err := open(ctx, content, mediaType, lim)
	if err != nil {
		return Text{}, err
	}
	defer done()
	if kind == "image" {
		return r.readImage(content)
	}
	return r.readPDF()
}

func (r *reader) readPDF() (Text, error) {
	count, sizes, err := r.pdfInfo(1, r.lim.MaxPages)
	if err != nil {
		return Text{}, err
	}
	pages, err := r.textLayer(min(count, r.lim.MaxPages), sizes)
	if err != nil {
		return Text{}, err
	}
	for i, p := range pages {
		if len(p.Words) >= minTextWords {
			continue
		}
		size, ok := sizes[p.Number]
		if !ok {
			size = pdfPage{width: p.Width, height: p.Height}
		}
		img, dpi, err := r.rasterise(p.Number, size, r.lim.DPI, true)
		if err != nil {
			return Text{}, err
		}
		words := []Word{}
		if !blank(img) {
			file := fmt.Sprintf("page-%d.png", p.Number)
			if err := os.WriteFile(filepath.Join(r.dir, file), img, 0o600); err != nil {
				return Text{}, fmt.Errorf("pagetext: %w", err)
			}
			cfg, _ := png.DecodeConfig(bytes.NewReader(img))
			if words, err = r.ocr(file, dpi, cfg.Width, cfg.Height, p.Number); err != nil {
				return Text{}, err
			}
		}
		// A stamp's worth of text layer is kept when OCR finds less.
		if len(words) >= len(p.Words) {
			pages[i].Source, pages[i].Words = OCR, words
		}
	}
	return Text{Pages: pages, PagesInDocument: count}, nil
}

func (r *reader) readImage(content []byte) (Text, error) {
	info, err := r.checkImage(content)
	if err != nil {
		return Text{}, err
	}
	file, w, h, dpi := "in."+info.format, info.width, info.height, info.dpi
	// An image stated under 150 dpi, or a small one stating nothing (a page
	// at under about 130 dpi), is read at twice its size.
	lowResolution := info.stated && dpi < 150 || !info.stated && max(w, h) < 1500
	switch {
	case lowResolution && 4*int64(w)*int64(h) <= r.lim.MaxPixels:
		if content, err = upscaled(content); err != nil {
			return Text{}, err
		}
		file, w, h = "in.png", 2*w, 2*h
		if info.stated {
			dpi *= 2
		}
	case info.format == "tiff":
		// tesseract would read every image of a TIFF; only the first,
		// whose size was checked, is read.
		if content, err = reencodePNG(content); err != nil {
			return Text{}, err
		}
		file = "in.png"
	}
	if err := os.WriteFile(filepath.Join(r.dir, file), content, 0o600); err != nil {
		return Text{}, fmt.Errorf("pagetext: %w", err)
	}
	words, err := r.ocr(file, dpi, w, h, 1)
	if err != nil {
		return Text{}, err
	}
	page := Page{
		Number: 1,
		Source: OCR,
		Width:  float64(info.width) * 72 / float64(info.dpi),
		Height: float64(info.height) * 72 / float64(info.dpi),
		Words:  words,
	}
	return Text{Pages: []Page{page}, PagesInDocument: 1}, nil
}

// reencodePNG decodes an image whose size has been checked and encodes it
// as a PNG.
func reencodePNG(content []byte) ([]byte, error) {
	img, _, err := image.Decode(bytes.NewReader(content))
	if err != nil {
		return nil, &UnreadableError{Reason: "the image: " + err.Error()}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("pagetext: %w", err)
	}
	return buf.Bytes(), nil
}

// RenderPage returns page n (1-based) of content as a PNG at dpi, under the
// same limits: the picture a reviewer sees the read places on. The dpi is
// lowered to keep the picture within MaxPixels; a page past MaxPages, which
// Read leaves unread, is a *LimitError. An image's only page is the image.
func RenderPage(ctx context.Context, content []byte, mediaType string, n, dpi int, lim Limits) ([]byte, error) {
	r, kind, done, err := open(ctx, content, mediaType, lim)
	if err != nil {
		return nil, err
	}
	defer done()
	if n < 1 {
		return nil, fmt.Errorf("pagetext: no page %d: pages count from 1", n)
	}
	if n > r.lim.MaxPages {
		return nil, &LimitError{What: "pages", Limit: fmt.Sprintf("page %d of at most %d", n, r.lim.MaxPages)}
	}
	if kind == "image" {
		if n != 1 {
			return nil, &UnreadableError{Reason: fmt.Sprintf("an image has no page %d", n)}
		}
		if _, err := r.checkImage(content); err != nil {
			return nil, err
		}
		return reencodePNG(content)
	}
	count, sizes, err := r.pdfInfo(n, n)
	if err != nil {
		return nil, err
	}
	if n > count {
		return nil, &UnreadableError{Reason: fmt.Sprintf("the PDF has %d pages, not %d", count, n)}
	}
	if dpi <= 0 {
		dpi = r.lim.DPI
	}
	img, _, err := r.rasterise(n, sizes[n], dpi, false)
	return img, err
}
