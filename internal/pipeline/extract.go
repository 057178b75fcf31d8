package pipeline

import (
	"context"
	"errors"
	"time"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/read"
)

// Extractor turns a document's bytes into fields. hints are the findings
// of the previous attempt (the repair loop), nil on the first.
type Extractor interface {
	Name() string
	Extract(ctx context.Context, content []byte, mediaType string, hints []einvoice.Finding) (einvoice.Document, error)
	// Repairable reports whether another attempt with hints can give a
	// different answer. A deterministic parser cannot.
	Repairable() bool
}

// Deterministic reads the structured formats: UBL, CII, Factur-X and the
// project's JSON.
type Deterministic struct {
	// TimeLimit bounds the extraction of one document; zero means
	// DefaultExtractTimeLimit. Over it the document is unreadable with an
	// input_cap finding on "time", not an error to retry.
	TimeLimit time.Duration
}

// Name implements Extractor.
func (Deterministic) Name() string { return "deterministic" }

// Repairable implements Extractor: the same bytes always parse the same.
func (Deterministic) Repairable() bool { return false }

// Extract implements Extractor.
func (d Deterministic) Extract(ctx context.Context, content []byte, _ string, _ []einvoice.Finding) (einvoice.Document, error) {
	limit := d.TimeLimit
	if limit == 0 {
		limit = DefaultExtractTimeLimit
	}
	return read.ParseWithin(ctx, content, limit)
}

// errNoStructuredData is einvoice's: the document has no data we can read.
var errNoStructuredData = einvoice.ErrNoStructuredData

func isNoStructuredData(err error) bool { return errors.Is(err, errNoStructuredData) }
