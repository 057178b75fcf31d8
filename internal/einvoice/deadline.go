package einvoice

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"
)

// capTime is the input_cap field of a document whose extraction ran out of time.
const capTime = "time"

// deadlineEvery is how many units of work (PDF objects, XML and JSON tokens) pass between two looks at
// the clock; the decoders' reads look at it on every read of at most deadlineReadBytes.
const (
	deadlineEvery     = 64
	deadlineReadBytes = 32 << 10
)

// errTimeUp is the cause ParseWithin gives its own deadline, to tell it from the caller's cancellation.
var errTimeUp = errors.New("einvoice: the document's time limit passed")

// ParseWithin is Parse under a time limit: the parsers and the PDF carver look at the clock as they go
// and stop once limit has passed since the call (a limit of zero or less has passed already). A document
// that needs longer gives a *ParseError with Code CodeInputCap and Field "time" naming the limit: like
// any cap it is a property of the document, and trying again gives the same answer. When ctx ends first,
// the parse stops too and returns ctx's error, which is the caller's to retry.
func ParseWithin(ctx context.Context, data []byte, limit time.Duration) (Document, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, limit, errTimeUp)
	defer cancel()
	return (&deadline{ctx: ctx, limit: limit}).parse(data)
}

// parse parses data until d passes.
func (d *deadline) parse(data []byte) (Document, error) {
	doc, err := parse(d, data)
	if d.up {
		// Whatever the parse returned was cut short.
		return Document{}, d.err(formatOf(data))
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

// deadline is the end of one document's extraction. The nil *deadline never passes (Parse and the other
// exported parsers have none). It belongs to one goroutine: the parse it times.
type deadline struct {
	ctx   context.Context
	limit time.Duration
	ticks int
	up    bool // the clock was seen past the deadline; it stays so
}

// tick counts a unit of work and reports whether the deadline has passed, looking at the clock on the
// first unit and every deadlineEvery after.
func (d *deadline) tick() bool {
	if d == nil {
		return false
	}
	d.ticks++
	if !d.up && (d.ticks-1)%deadlineEvery != 0 {
		return false
	}
	return d.passed()
}

// passed looks at the clock now.
func (d *deadline) passed() bool {
	if d == nil {
		return false
	}
	if !d.up {
		select {
		case <-d.ctx.Done():
			d.up = true
		default:
		}
	}
	return d.up
}

// err is what a parse stopped by d returns: an input_cap finding when its own limit passed, the
// context's error when the caller ended it.
func (d *deadline) err(format Format) error {
	if errors.Is(context.Cause(d.ctx), errTimeUp) {
		return d.capError(format)
	}
	return d.ctx.Err()
}

// capError is the input_cap error of a parse that ran out of time, naming the limit.
func (d *deadline) capError(format Format) *ParseError {
	return capErrorf(format, capTime, "extraction took longer than its time limit of %s", d.limit)
}

// reader reads data until the deadline passes, looking at the clock on every read.
func (d *deadline) reader(data []byte) io.Reader {
	if d == nil {
		return bytes.NewReader(data)
	}
	return &deadlineReader{d: d, r: bytes.NewReader(data)}
}

type deadlineReader struct {
	d *deadline
	r *bytes.Reader
}

func (r *deadlineReader) Read(p []byte) (int, error) {
	if r.d.passed() {
		return 0, errTimeUp
	}
	if len(p) > deadlineReadBytes {
		p = p[:deadlineReadBytes]
	}
	return r.r.Read(p)
}
