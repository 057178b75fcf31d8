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

// ErrTimeUp is the cause a document's own time limit gives its deadline's context, to tell it from the
// caller's cancellation.
var ErrTimeUp = errors.New("einvoice: the document's time limit passed")

// Deadline is the end of one document's extraction: the readers and the PDF carver look at it as they
// go and stop once it has passed. The nil *Deadline never passes (the readers called without a time
// limit have none). It belongs to one goroutine: the extraction it times.
type Deadline struct {
	ctx   context.Context
	limit time.Duration
	ticks int
	up    bool // the clock was seen past the deadline; it stays so
}

// NewDeadline is the deadline of an extraction allowed limit: it passes when ctx ends. A ctx that ends
// with the cause ErrTimeUp means the document took longer than limit (see Err).
func NewDeadline(ctx context.Context, limit time.Duration) *Deadline {
	return &Deadline{ctx: ctx, limit: limit}
}

// Tick counts a unit of work and reports whether the deadline has passed, looking at the clock on the
// first unit and every deadlineEvery after.
func (d *Deadline) Tick() bool {
	if d == nil {
		return false
	}
	d.ticks++
	if !d.up && (d.ticks-1)%deadlineEvery != 0 {
		return false
	}
	return d.Passed()
}

// Passed looks at the clock now.
func (d *Deadline) Passed() bool {
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

// Expired reports whether a look at the clock found the deadline passed, without looking again:
// whatever the work returned since was cut short.
func (d *Deadline) Expired() bool { return d != nil && d.up }

// Err is what an extraction stopped by d returns: an input_cap finding when its own limit passed, the
// context's error when the caller ended it.
func (d *Deadline) Err(format Format) error {
	if errors.Is(context.Cause(d.ctx), ErrTimeUp) {
		return d.CapError(format)
	}
	return d.ctx.Err()
}

// CapError is the input_cap error of an extraction that ran out of time, naming the limit.
func (d *Deadline) CapError(format Format) *ParseError {
	return CapErrorf(format, capTime, "extraction took longer than its time limit of %s", d.limit)
}

// Reader reads data until the deadline passes, looking at the clock on every read.
func (d *Deadline) Reader(data []byte) io.Reader {
	if d == nil {
		return bytes.NewReader(data)
	}
	return &deadlineReader{d: d, r: bytes.NewReader(data)}
}

type deadlineReader struct {
	d *Deadline
	r *bytes.Reader
}

func (r *deadlineReader) Read(p []byte) (int, error) {
	if r.d.Passed() {
		return 0, ErrTimeUp
	}
	if len(p) > deadlineReadBytes {
		p = p[:deadlineReadBytes]
	}
	return r.r.Read(p)
}
