package intake

import (
	"context"
	"errors"
)

// Store keeps intake rows. Both stores (PostgreSQL and the in-memory one
// for offline pipeline tests) enforce the same partial unique natural key
// and pass the same conformance suite (intaketest.Exercise).
type Store interface {
	// Ingest writes the row at received with its bytes, idempotent on
	// (org, content hash): the same bytes again return the existing row
	// and created=false.
	Ingest(ctx context.Context, a Arrival) (doc Document, created bool, err error)
	// Queue files a received row. When the filing's natural key or content
	// key is held by another live row it returns *NaturalKeyConflict and
	// writes nothing. A row filed as a duplicate never holds a key.
	Queue(ctx context.Context, id int64, f Filing) (Document, error)
	// Refile files again a row flagged needs_manual_extraction or
	// extraction_failed or invalid_einvoice, with fields a person typed in: the same rules as
	// Queue.
	Refile(ctx context.Context, id int64, f Filing) (Document, error)
	// Get returns a row of an org.
	Get(ctx context.Context, orgID, id int64) (Document, error)
}

// File is the queue's filing: it files f, and when another row holds the
// natural key it files the row flagged as a duplicate of that incumbent
// instead. A document is never merged and never dropped.
func File(ctx context.Context, s Store, id int64, f Filing) (Document, error) {
	doc, err := s.Queue(ctx, id, f)
	var nk *NaturalKeyConflict
	if !errors.As(err, &nk) {
		return doc, err
	}
	f.FlagReason = FlagDuplicate
	f.DuplicateOf = nk.Incumbent
	f.DuplicateReason = nk.Reason
	return s.Queue(ctx, id, f)
}

// FileTyped files a flagged row again with fields a person typed in; a
// collision with another row files it flagged as a duplicate of that row,
// typed by hand.
func FileTyped(ctx context.Context, s Store, id int64, f Filing) (Document, error) {
	doc, err := s.Refile(ctx, id, f)
	var nk *NaturalKeyConflict
	if !errors.As(err, &nk) {
		return doc, err
	}
	f.FlagReason = FlagDuplicate
	f.DuplicateOf = nk.Incumbent
	f.DuplicateReason = Manual
	return s.Refile(ctx, id, f)
}

// ErrNotReceived is a Queue of a row that is filed already.
var ErrNotReceived = errors.New("intake: the document is filed already")

// ErrNotRefileable is a Refile of a row that is not waiting for typed-in fields.
var ErrNotRefileable = errors.New("intake: only a document flagged needs_manual_extraction, extraction_failed, invalid_einvoice or uncertain_reading can be typed in")
