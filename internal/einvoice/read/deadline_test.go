package read

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
)

// lookingCtx is a context whose time runs out at a chosen look at its Done channel: the parsers look at
// it every so many units of work, so this stops them at a known point of their work, without a clock.
type lookingCtx struct {
	context.Context
	cancel  context.CancelCauseFunc
	looks   int
	expires int // the look at which the time is up; 0 never
}

func (c *lookingCtx) Done() <-chan struct{} {
	c.looks++
	if c.looks == c.expires {
		c.cancel(einvoice.ErrTimeUp)
	}
	return c.Context.Done()
}

func newLookingCtx(t *testing.T, expires int) *lookingCtx {
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	return &lookingCtx{Context: ctx, cancel: cancel, expires: expires}
}

func readHostile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(einvoicetest.HostileDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A time limit that has passed stops every parser, and the document gets an input_cap error on "time"
// that names the limit.
func TestTimeLimitIsAnInputCapNamingIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file   string
		format einvoice.Format
	}{
		{"ubl-invoice-multirate.xml", einvoice.FormatUBL},
		{"cii-invoice.xml", einvoice.FormatCII},
		{"json-invoice-with-totals.json", einvoice.FormatJSON},
		{"facturx-invoice.pdf", einvoice.FormatFacturX},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := einvoicetest.ReadTestdata(t, tc.file)
			if _, err := ParseWithin(context.Background(), data, time.Minute); err != nil {
				t.Fatalf("within a minute: %v", err)
			}
			ctx := newLookingCtx(t, 1)
			const limit = 10 * time.Second
			_, err := parseUntil(einvoice.NewDeadline(ctx, limit), data)
			var pe *einvoice.ParseError
			if !errors.As(err, &pe) || pe.Code != einvoice.CodeInputCap || pe.Field != "time" || pe.Format != tc.format {
				t.Fatalf("got %#v, want an input_cap error on time for %s", err, tc.format)
			}
			if !strings.Contains(pe.Error(), "time limit of 10s") {
				t.Fatalf("the message does not name the limit: %v", pe)
			}
			// The exported way in: a limit that has already passed.
			if _, err := ParseWithin(context.Background(), data, -time.Second); !einvoicetest.IsCapError(err, "time") {
				t.Fatalf("ParseWithin with a spent limit: %v", err)
			}
		})
	}
}

// The parsers look at the clock as they work, not only on entry: stopped at the third look, each has
// done a small part of the looks a whole parse makes and makes no more. A parser that ignored the clock
// in its loops would run to the end.
func TestTimeLimitStopsTheWorkMidway(t *testing.T) {
	t.Parallel()
	const stopAt = 2
	for _, tc := range []struct {
		name string
		data func(t *testing.T) []byte
	}{
		{"many XML elements", func(t *testing.T) []byte { return withinUBL(t, strings.Repeat("<a/>", 20_000)) }},
		{"many JSON values", func(t *testing.T) []byte {
			return []byte(`{"notes": [` + strings.Repeat(`"x", `, 20_000) + `"x"]}`)
		}},
		{"many PDF objects", func(t *testing.T) []byte {
			return []byte("%PDF-1.7\n" + strings.Repeat("1 0 obj\n<< /Type /Filespec >>\nendobj\n", 2_000) + "%%EOF\n")
		}},
		// The hostile corpus's quadratic object stream, small: each object scans a megabyte.
		{"a quadratic object stream", func(t *testing.T) []byte { return einvoicetest.QuadraticObjectStreamPDF(2_000, 1<<20) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data(t)
			whole := newLookingCtx(t, 0)
			_, wholeErr := parseUntil(einvoice.NewDeadline(whole, time.Hour), data)
			if einvoicetest.IsCapError(wholeErr, "time") {
				t.Fatalf("a whole parse ran out of time: %v", wholeErr)
			}
			if whole.looks < 3*stopAt {
				t.Fatalf("a whole parse looks at the clock %d times; too few for this test", whole.looks)
			}
			stopped := newLookingCtx(t, stopAt)
			_, err := parseUntil(einvoice.NewDeadline(stopped, time.Hour), data)
			if !einvoicetest.IsCapError(err, "time") {
				t.Fatalf("got %v, want an input_cap error on time", err)
			}
			if stopped.looks > stopAt+2 {
				t.Fatalf("went on after its time: %d looks at the clock, the time was up at %d (a whole parse: %d)", stopped.looks, stopAt, whole.looks)
			}
			t.Logf("a whole parse: %d looks at the clock; stopped at %d after %d", whole.looks, stopAt, stopped.looks)
		})
	}
}

// The caller's cancellation is not the document's fault: it comes back as the context's error, for the
// caller to retry, never as an input_cap finding.
func TestCancellationIsNotATimeCap(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ParseWithin(ctx, readHostile(t, "quadratic-objstm-17k.pdf"), time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
