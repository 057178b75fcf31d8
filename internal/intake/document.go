// Package intake holds the documents that arrive: their statuses and flag
// reasons, their natural key, and their filing, which flags a repeat as a
// duplicate of the row that holds the key and never merges or drops it. The
// Store has two implementations that enforce the same partial unique index:
// PGStore, and MemoryStore for the offline pipeline (intaketest holds their
// one conformance suite). The decisions on a document are review's, its
// bookkeeping job is jobs', and what the desk shows of it is desk's.
package intake

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Status is where a document stands.
type Status string

// The statuses of a document.
const (
	Received Status = "received" // stored; the pipeline has not filed it yet
	Pending  Status = "pending"  // filed, waiting for a reviewer
	Flagged  Status = "flagged"  // filed with a reason a person must look at
	Active   Status = "active"   // approved; the bookkeeper posts it
	Posted   Status = "posted"   // in the ledger
	Rejected Status = "rejected"
)

// Statuses are every status a document can have, as the API names them.
var Statuses = []Status{Received, Pending, Flagged, Active, Posted, Rejected}

// Flag reasons.
const (
	FlagDuplicate             = "duplicate"
	FlagExtractionFailed      = "extraction_failed"
	FlagNeedsManualExtraction = "needs_manual_extraction"
	// FlagInvalidEInvoice: the document was read, and breaks a rule (its
	// fields stay readable for the reviewer, who may type corrections in).
	FlagInvalidEInvoice = "invalid_einvoice"
	// FlagNotAnInvoice: the document is in an invoice syntax but is not an
	// invoice or a credit note (an Order-X order, a despatch advice); its
	// finding says what it is. There is nothing to type in: it is rejected.
	FlagNotAnInvoice = "not_an_invoice"
	// FlagNothingToPost: the document was read and is valid, but every
	// amount of it is zero: approving it would post nothing. A reviewer
	// closes it (review.Decisions.CloseNothingToPost).
	FlagNothingToPost = "nothing_to_post"
	// FlagUncertainReading: the document carries no e-invoice and was read
	// from its text (or by OCR), but not every key field with confidence:
	// its findings name the uncertain fields, and a person confirms or
	// corrects them before it can be approved.
	FlagUncertainReading = "uncertain_reading"
)

// FlagReasons are every reason a flagged document can carry.
var FlagReasons = []string{FlagDuplicate, FlagExtractionFailed, FlagNeedsManualExtraction, FlagInvalidEInvoice, FlagNotAnInvoice,
	FlagNothingToPost, FlagUncertainReading}

// StatusWords is a document's status as a person reads it: an active
// document is "approved" (the desk's word; the bookkeeper is posting it),
// every other status is its own word. The JSON API keeps the code.
func StatusWords(s Status) string {
	if s == Active {
		return "approved"
	}
	return string(s)
}

// FlagWords is why a document was flagged, as a person reads it (the JSON
// API keeps the code).
func FlagWords(reason string) string {
	switch reason {
	case FlagInvalidEInvoice:
		return "invalid e-invoice"
	case FlagExtractionFailed:
		return "extraction failed"
	case FlagNeedsManualExtraction:
		return "needs typing in"
	case FlagNotAnInvoice:
		return "not an invoice"
	case FlagNothingToPost:
		return "nothing to post"
	case FlagUncertainReading:
		return "check what was read"
	}
	return strings.ReplaceAll(reason, "_", " ")
}

// NeedsFields reports whether a document flagged for reason has no fields
// fit to post: it cannot be approved, and a person may type them in.
func NeedsFields(reason string) bool {
	switch reason {
	case FlagNeedsManualExtraction, FlagExtractionFailed, FlagInvalidEInvoice, FlagUncertainReading:
		return true
	}
	return false
}

// Approvable reports whether a document flagged for reason (or pending,
// with none) may be offered for approval: not when it has no fields fit to
// post, nor when it is no invoice at all, nor when it has nothing to post.
func Approvable(reason string) bool {
	return !NeedsFields(reason) && reason != FlagNotAnInvoice && reason != FlagNothingToPost
}

// Why one document was filed as a duplicate of another.
const (
	SameReference = "same_reference" // same seller and number (the natural key)
	SameContent   = "same_content"   // same seller, date, currency and total under another number
	NewerVersion  = "newer_version"  // a later version of a typewriter document
	Manual        = "manual"         // typed in by hand and matching another
)

// DuplicateClause says, after "filed" or "flagged", what a duplicate
// duplicates and why, as its reason has it: only a newer version of a
// typewriter document is called a version.
func DuplicateClause(reason string, of int64) string {
	switch reason {
	case NewerVersion:
		return fmt.Sprintf("as a newer version of document %d", of)
	case SameReference:
		return fmt.Sprintf("as a duplicate of document %d (same supplier and number)", of)
	case SameContent:
		return fmt.Sprintf("as a duplicate of document %d (same supplier, issue date, currency and total under another number)", of)
	}
	return fmt.Sprintf("as a duplicate of document %d", of)
}

// Document is an intake row.
type Document struct {
	ID              int64
	OrgID           int64
	ContentHash     string
	MediaType       string
	Filename        string
	Size            int
	Via             string
	ReceivedBy      string
	PipelineRunID   string
	Status          Status
	DocType         string
	SourceRef       string
	ContentKey      string
	Format          string
	Profile         string // the e-invoicing profile the document states (einvoice.Profile), "" for none
	Fields          json.RawMessage
	Findings        json.RawMessage
	FlagReason      string
	DuplicateOf     int64
	DuplicateReason string
	DistinctFrom    int64
	ResultEntryID   int64
	// TypewriterVersionID and VersionGroup are set for a document composed
	// in the typewriter: its version, and the typewriter document whose
	// versions form the group.
	TypewriterVersionID int64
	VersionGroup        int64
	ReceivedAt          time.Time
	QueuedAt            *time.Time
	DecidedBy           string
	DecidedAt           *time.Time
	DecisionReason      string
	UpdatedAt           time.Time
}

// Undecided reports whether a reviewer may still decide the document:
// it is pending or flagged.
func (d Document) Undecided() bool { return d.Status == Pending || d.Status == Flagged }

// Arrival is a document as it arrives.
type Arrival struct {
	OrgID     int64
	Content   []byte
	MediaType string
	Filename  string
	Via       string // upload, api, cli, typewriter, demo
	Actor     string
	// RunID is the pipeline run that will file the document, created in
	// the same transaction.
	RunID string
	// TypewriterVersionID and VersionGroup: see Document.
	TypewriterVersionID int64
	VersionGroup        int64
}

// ContentHash is the SHA-256 of a document's bytes, in hex.
func ContentHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Filing is what the queue writes: the pipeline's verdict on a document.
type Filing struct {
	DocType    string
	SourceRef  string
	ContentKey string
	Format     string
	Profile    string
	Fields     json.RawMessage
	Findings   json.RawMessage
	// FlagReason, when set, files the row flagged; otherwise pending.
	FlagReason string
	// DuplicateOf, when set, files the row as a duplicate of that row.
	DuplicateOf     int64
	DuplicateReason string
}

// NaturalKeyConflict is a filing whose natural key (org, doc type, source
// ref), or whose content key, another live row holds. Nothing was written.
type NaturalKeyConflict struct {
	DocType   string
	SourceRef string
	Incumbent int64
	// Reason is SameReference or SameContent.
	Reason string
}

func (e *NaturalKeyConflict) Error() string {
	return fmt.Sprintf("intake: %s %s is held by document %d (%s)", e.DocType, e.SourceRef, e.Incumbent, e.Reason)
}
