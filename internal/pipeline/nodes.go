// Package pipeline is the clerk: it reads each arriving document and files
// it for review. A run goes ingest → classify → extract → validate → queue,
// with a bounded validate → extract repair loop. The intake row is written
// at exactly two points: at ingest (received) and at queue (pending or
// flagged). The stages in between see the document's bytes and the
// extractors and nothing else: they have no handle to the queue.
package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/read"
	"greatbook/internal/intake"
	"greatbook/internal/money"
	"greatbook/internal/pagetext"
	"greatbook/internal/storable"
	"greatbook/internal/textfields"
)

// State is a pipeline run's state, recorded after every node (see buildGraph).
type State struct {
	DocumentID int64              `json:"document_id"`
	MediaType  string             `json:"media_type"`
	Format     string             `json:"format,omitempty"`
	Extractor  string             `json:"extractor,omitempty"`
	Document   *einvoice.Document `json:"document,omitempty"`
	Findings   []einvoice.Finding `json:"findings,omitempty"`
	// Unstorable are the findings of the text the extraction gave that the
	// database could not hold (Document holds it made storable).
	Unstorable []einvoice.Finding `json:"unstorable,omitempty"`
	// Conformance is the EN 16931 rules' verdict on the UBL or CII the
	// document was read from (einvoice.Document.Conformance), made storable.
	Conformance []einvoice.Finding `json:"conformance,omitempty"`
	// Judged says the official rules judged the document: their verdict,
	// empty or not, replaces the product's own reading of the same rules.
	Judged  bool   `json:"judged,omitempty"`
	Repairs int    `json:"repairs"`
	Flag    string `json:"flag,omitempty"`
	// Text and Reading are the words and fields of a document read from
	// its text, LayoutID the supplier's layout it was read by (0: none).
	Text     *pagetext.Text      `json:"text,omitempty"`
	Reading  *textfields.Reading `json:"reading,omitempty"`
	LayoutID int64               `json:"layout_id,omitempty"`
	// Notes are warnings of the text reading filed with the document
	// (pages left unread, a model that gave no answer).
	Notes []einvoice.Finding `json:"notes,omitempty"`
}

// Inputs are what the stages between ingest and queue may use: the bytes
// as they arrived, the extractors and the limits. Deliberately, no store.
type Inputs struct {
	Original      func(ctx context.Context) ([]byte, error)
	Deterministic Extractor
	Model         Extractor   // nil when no model extractor is configured
	Text          *TextReader // nil: PDFs and images without e-invoice data are not read from their text
	MaxRepairs    int
	Now           func() time.Time
}

// stage is a node before queue: it may change the state and choose the next node.
type stage func(ctx context.Context, in Inputs, s *State) (next, note string, err error)

// Node names.
const (
	nodeClassify = "classify"
	nodeExtract  = "extract"
	nodeValidate = "validate"
	nodeQueue    = "queue"
)

var stages = map[string]stage{
	nodeClassify: classify,
	nodeExtract:  extract,
	nodeValidate: validate,
}

func classify(ctx context.Context, in Inputs, s *State) (string, string, error) {
	content, err := in.Original(ctx)
	if err != nil {
		return "", "", err
	}
	// Structured never carves a PDF: extract does, once, and a PDF without an
	// embedded invoice comes back from it as no structured data.
	f, structured := read.Structured(content)
	s.Format = string(f)
	switch {
	case structured && f == einvoice.FormatUnknown:
		s.Extractor = "deterministic"
		return nodeExtract, "possibly structured: the deterministic extractor will look", nil
	case structured:
		s.Extractor = "deterministic"
		return nodeExtract, "structured " + string(f), nil
	case in.Text != nil && readable(s.MediaType):
		s.Extractor = "text"
		return nodeExtract, "no structured data; its text will be read", nil
	case in.Model != nil:
		s.Extractor = "model"
		return nodeExtract, "no structured data; the model extractor will read it", nil
	}
	s.Flag = intake.FlagNeedsManualExtraction
	return nodeQueue, "no structured data and no model extractor: a person types it in", nil
}

func (in Inputs) extractor(name string) Extractor {
	if name == "model" && in.Model != nil {
		return in.Model
	}
	return in.Deterministic
}

func extract(ctx context.Context, in Inputs, s *State) (string, string, error) {
	content, err := in.Original(ctx)
	if err != nil {
		return "", "", err
	}
	if s.Extractor == "text" {
		return textReading(ctx, in, s, content)
	}
	var hints []einvoice.Finding
	if s.Repairs > 0 {
		hints = fatalOnly(s.Findings) // what the repair is for; warnings are no reason to read again
	}
	ex := in.extractor(s.Extractor)
	doc, err := ex.Extract(ctx, content, s.MediaType, hints)
	if s.Extractor == "model" && s.Reading != nil && s.Text != nil && foundAny(*s.Reading) {
		// The model reads only what the text reading was unsure of.
		return modelFill(ctx, s, doc, err)
	}
	var parseErr *einvoice.ParseError
	var unreadable *unreadableOutput
	switch {
	case err == nil:
		// The one place an extracted document enters the run's state: what
		// the database cannot store is named, then made storable, before the
		// state is checkpointed.
		found := einvoice.StorageFindings(doc)
		doc = einvoice.MakeStorable(doc)
		s.Unstorable = cleanedAway(found, einvoice.StorageFindings(doc))
		s.Document, s.Findings = &doc, nil
		s.Conformance, s.Judged = storableFindings(doc.Conformance), doc.RulesJudged
		return nodeValidate, fmt.Sprintf("%s extraction: %s %s", ex.Name(), doc.Type, doc.Number), nil
	case isNoStructuredData(err):
		var undecoded *einvoice.EmbeddedFileError
		if errors.As(err, &undecoded) {
			// The PDF embeds a file this reader could not decode: the person
			// who types the invoice in is told which and why.
			s.Findings = []einvoice.Finding{{Code: einvoice.CodeEmbeddedFileUnreadable, Severity: einvoice.SeverityWarning,
				Field: "document", Message: undecoded.Explain()}}
		}
		if in.Text != nil && readable(s.MediaType) {
			s.Extractor = "text"
			return nodeExtract, "no structured data after all; its text will be read", nil
		}
		if in.Model != nil && s.Extractor != "model" {
			s.Extractor = "model"
			return nodeExtract, "no structured data after all; trying the model extractor", nil
		}
		s.Flag = intake.FlagNeedsManualExtraction
		return nodeQueue, "no structured data", nil
	case errors.As(err, &parseErr), errors.As(err, &unreadable):
		// A malformed document is a finding, not a fault: validate decides
		// between a repair and a flag.
		s.Document, s.Unstorable, s.Conformance, s.Judged = nil, nil, nil, false
		code, field := "unreadable", "document"
		if parseErr != nil && parseErr.Code != "" {
			// A cap or a charset: the finding says which, for the reviewer.
			code, field = parseErr.Code, parseErr.Field
		}
		s.Findings = []einvoice.Finding{{Code: code, Severity: einvoice.SeverityFatal, Field: field, Message: storable.Message(err)}}
		if code == einvoice.CodeNotAnInvoice {
			// Read well enough to know it is no invoice: no repair or
			// model reading makes it one.
			s.Flag = intake.FlagNotAnInvoice
			return nodeQueue, "not an invoice: " + err.Error(), nil
		}
		return nodeValidate, "could not read the document: " + err.Error(), nil
	}
	return "", "", err
}

func validate(_ context.Context, in Inputs, s *State) (string, string, error) {
	if s.Document != nil {
		now := time.Now()
		if in.Now != nil {
			now = in.Now()
		}
		own := einvoice.ValidateAt(*s.Document, now)
		s.Findings = append(withConformance(einvoice.Judged(own, s.Judged), einvoice.Explained(s.Conformance, own)), s.Unstorable...)
	}
	if s.Reading != nil && s.Document != nil && s.Extractor == "text" {
		return validateReading(s)
	}
	// Only a fatal finding is a verdict: warnings and infos are filed with
	// the document and shown, and change neither its status nor the run.
	if !einvoice.HasFatal(s.Findings) {
		if len(s.Findings) == 0 {
			return nodeQueue, "valid", nil
		}
		return nodeQueue, "valid, with warnings: " + summarise(s.Findings), nil
	}
	summary := summarise(fatalOnly(s.Findings))
	if in.extractor(s.Extractor).Repairable() && s.Repairs < in.MaxRepairs {
		s.Repairs++
		return nodeExtract, fmt.Sprintf("repair %d of %d: %s", s.Repairs, in.MaxRepairs, summary), nil
	}
	// A document read faithfully (the deterministic parsers) that breaks a
	// rule is an invalid e-invoice; its fields stay readable. One that breaks
	// none but has every amount zero is valid and posts nothing: it has a
	// reason of its own. One whose facts could not be read at all, or that a
	// model could not read consistently, failed extraction.
	s.Flag = intake.FlagExtractionFailed
	if in.extractor(s.Extractor).Repairable() {
		return nodeQueue, fmt.Sprintf("repairs exhausted (%d): %s", s.Repairs, summary), nil
	}
	if s.Document != nil && onlyNothingToPost(s.Findings) {
		s.Flag = intake.FlagNothingToPost
		return nodeQueue, "valid, but every amount is zero: nothing to post", nil
	}
	if s.Document != nil {
		s.Flag = intake.FlagInvalidEInvoice
	}
	return nodeQueue, "the document's own figures do not validate: " + summary, nil
}

// onlyNothingToPost reports whether fs has a fatal finding and every one
// says that the document has nothing to post.
func onlyNothingToPost(fs []einvoice.Finding) bool {
	fatal := fatalOnly(fs)
	return len(fatal) > 0 && !slices.ContainsFunc(fatal, func(f einvoice.Finding) bool { return f.Code != einvoice.CodeNothingToPost })
}

// cleanedAway are the findings of before that after no longer has: what
// MakeStorable changed, which validate cannot see any more (the rest,
// ValidateAt finds again).
func cleanedAway(before, after []einvoice.Finding) []einvoice.Finding {
	var out []einvoice.Finding
	for _, f := range before {
		if !slices.ContainsFunc(after, func(g einvoice.Finding) bool { return g.Code == f.Code && g.Field == f.Field }) {
			out = append(out, f)
		}
	}
	return out
}

// fatalOnly are the findings of fs that flag a document.
func fatalOnly(fs []einvoice.Finding) []einvoice.Finding {
	var out []einvoice.Finding
	for _, f := range fs {
		if f.Fatal() {
			out = append(out, f)
		}
	}
	return out
}

func summarise(fs []einvoice.Finding) string {
	parts := make([]string, 0, len(fs))
	for _, f := range fs {
		parts = append(parts, f.Code)
	}
	return strings.Join(parts, ", ")
}

// queue is the terminal write: it files the document from the state. It is
// the only node that gets a store.
func queue(ctx context.Context, store intake.Store, s *State) (intake.Document, error) {
	return intake.File(ctx, store, s.DocumentID, filingOf(s))
}

// filingOf turns a run's state into the queue's filing.
func filingOf(s *State) intake.Filing {
	f := intake.Filing{Format: s.Format, FlagReason: s.Flag}
	if s.Document != nil {
		d := *s.Document
		f.DocType = string(d.Type)
		f.SourceRef = d.NaturalRef()
		f.ContentKey = ContentKey(d)
		f.Fields, _ = json.Marshal(d)
		if s.Reading != nil {
			f.Fields = unreadAsNull(f.Fields, *s.Reading, d)
		}
		if d.Format != "" {
			f.Format = string(d.Format)
		}
		f.Profile = string(d.Profile)
	}
	if len(s.Findings) > 0 {
		f.Findings, _ = json.Marshal(storableFindings(s.Findings))
	}
	return f
}

// storableFindings are fs with every text made storable.
func storableFindings(fs []einvoice.Finding) []einvoice.Finding {
	if len(fs) == 0 {
		return nil
	}
	out := make([]einvoice.Finding, len(fs))
	for i, x := range fs {
		out[i] = einvoice.Finding{Code: storable.Clean(x.Code, 200), Severity: x.Severity, Field: storable.Clean(x.Field, 200), Message: storable.Clean(x.Message, storable.MaxMessage)}
	}
	return out
}

// withConformance files the EN 16931 rules' verdict beside the product's own findings. Where both name
// the same rule, the rules' finding stands: it is the official one, with the business term. A document
// that does not claim the standard (ZUGFeRD 1.0) has the standard's rules as warnings only.
func withConformance(own, conformance []einvoice.Finding) []einvoice.Finding {
	if len(conformance) == 0 {
		return own
	}
	out := slices.DeleteFunc(slices.Clone(own), func(f einvoice.Finding) bool {
		return slices.ContainsFunc(conformance, func(c einvoice.Finding) bool { return c.Code == f.Code })
	})
	out = append(out, conformance...)
	if slices.ContainsFunc(conformance, func(c einvoice.Finding) bool { return c.Code == einvoice.CodeRulesAdvisory }) {
		out = einvoice.Advisory(out)
	}
	return out
}

// ContentKey identifies an invoice by its facts rather than its number: the
// seller, type, issue date, currency and payable amount. A supplier's copy
// renumbered on re-sending shares it. Only a document with those facts to
// compare has one: documents whose extraction yielded nothing (no seller
// identity, no date, no lines) are not duplicates of each other.
func ContentKey(d einvoice.Document) string {
	seller, ok := d.SellerIdentity()
	if !ok || d.Type == "" || d.IssueDate == "" || d.Currency == "" || len(d.Lines) == 0 {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{seller, string(d.Type), d.IssueDate, d.Currency,
		money.Canonical(d.Totals.Payable)}, "\x1f")))
	return hex.EncodeToString(sum[:16])
}
