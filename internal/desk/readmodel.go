package desk

import (
	"context"
	"encoding/json"
	"strings"

	"greatbook/internal/apchecks"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/ledger"
	"greatbook/internal/review"
)

// Reader is who reads a document: the read model decides from it what the
// page offers them.
type Reader struct {
	OrgID int64
	Admin bool
	// Label is how the reader's decisions are recorded (decided_by): the
	// page's group watch does not report the reader's own decisions.
	Label string
}

// DocumentPage is what a reviewer's page of one document shows, and what
// it lets them do there.
type DocumentPage struct {
	Document intake.Document
	// Fields are the document's fields as filed; nil where none are.
	Fields *einvoice.Document
	// Findings are the pipeline's findings, fatal ones first.
	Findings []einvoice.Finding
	Verdict  review.Verdict
	Group    []review.Member
	// Signature identifies the group as read, for the page's watch.
	Signature  string
	Comparison Comparison
	History    []HistoryItem
	// Pretty is the original rendered for reading: an e-invoice's XML or
	// JSON, not a PDF or an image (the page shows those as they are).
	Pretty   string
	Decision DecisionPanel
	// CanTypeIn: the document is flagged for want of fields fit to post, so
	// a person may type them in.
	CanTypeIn bool
	// Payable is what the AP desk's checks found (CheckPayable).
	Payable apchecks.Report
}

// Comparison is a document beside another member of its group (With is 0
// when there is none to compare with).
type Comparison struct {
	DocumentID int64
	With       int64
	Members    []review.Member
	Rows       []einvoice.FieldPair
}

// DecisionPanel is what a reader may decide on a document now.
type DecisionPanel struct {
	Document intake.Document
	Verdict  review.Verdict
	// Job is the document's bookkeeping job, if it was approved.
	Job *jobs.Job
	// Blocking is the accepted member of the group that would refuse an
	// approve, said before anyone presses approve; nil when there is none.
	Blocking *review.Blocking
	// CanMarkDistinct: an admin may take a suspected duplicate out of its group.
	CanMarkDistinct bool
	// CanRetry: an admin may retry a failed or abandoned bookkeeping job.
	CanRetry bool
	// CanCloseNothingToPost: the document is valid but every amount is
	// zero, so approve refuses it; a reviewer closes it in one step
	// (review.Decisions.CloseNothingToPost).
	CanCloseNothingToPost bool
	// SeesDeadLetters: the reader may open the dead-letter page (an admin);
	// a reviewer is told whom to ask instead of a link that answers 403.
	SeesDeadLetters bool
	// Reversal is the entry that reversed a posted document's entry in the
	// ledger since; nil while it stands. The document stays posted (its
	// status is intake's); the ledger's link says it was reversed.
	Reversal *ledger.Entry
	// Approval is where an undecided document stands towards the org's
	// approval policy for this reader: the approvals given, how many it
	// needs, and why approve would refuse the reader's; nil once decided.
	Approval *review.Standing
}

// ReadDocument gathers a document's page for a reader of its org.
func ReadDocument(ctx context.Context, q database.Executor, r Reader, id int64) (DocumentPage, error) {
	doc, err := intake.GetDocument(ctx, q, r.OrgID, id)
	if err != nil {
		return DocumentPage{}, err
	}
	p := DocumentPage{Document: doc, Fields: fieldsOf(doc), Verdict: review.VerdictOf(doc),
		CanTypeIn: doc.Status == intake.Flagged && intake.NeedsFields(doc.FlagReason)}
	_ = json.Unmarshal(doc.Findings, &p.Findings)
	p.Findings = einvoice.BySeverity(p.Findings)
	if p.Group, err = review.Group(ctx, q, r.OrgID, id); err != nil {
		return p, err
	}
	p.Signature = GroupSignature(p.Group, id, r.Label)
	if p.Comparison, err = compare(ctx, q, doc, p.Group, compareWith(doc, p.Group)); err != nil {
		return p, err
	}
	if p.History, err = history(ctx, q, r.OrgID, id); err != nil {
		return p, err
	}
	if doc.MediaType != "application/pdf" && !strings.HasPrefix(doc.MediaType, "image/") {
		raw, err := intake.Original(ctx, q, r.OrgID, id)
		if err != nil {
			return p, err
		}
		// Capped while it is built: a deeply nested original must not cost more than its page.
		p.Pretty = einvoice.PrettyLimit(raw, einvoice.PrettyCap)
	}
	if p.Payable, err = CheckPayable(ctx, q, doc); err != nil {
		return p, err
	}
	p.Decision, err = decisionPanel(ctx, q, r, doc, p.Group)
	return p, err
}

// ReadDecision gathers a document's decision panel for a reader of its org.
func ReadDecision(ctx context.Context, q database.Executor, r Reader, id int64) (DecisionPanel, error) {
	doc, err := intake.GetDocument(ctx, q, r.OrgID, id)
	if err != nil {
		return DecisionPanel{}, err
	}
	var group []review.Member
	if doc.Undecided() {
		if group, err = review.Group(ctx, q, r.OrgID, id); err != nil {
			return DecisionPanel{}, err
		}
	}
	return decisionPanel(ctx, q, r, doc, group)
}

// decisionPanel decides what r may do on doc; group is doc's duplicate
// group, read only when doc is undecided.
func decisionPanel(ctx context.Context, q database.Executor, r Reader, doc intake.Document, group []review.Member) (DecisionPanel, error) {
	v := DecisionPanel{Document: doc, Verdict: review.VerdictOf(doc), CanMarkDistinct: r.Admin && doc.Undecided() && doc.DuplicateOf != 0,
		SeesDeadLetters: r.Admin}
	if doc.Undecided() {
		if b, blocked := review.BlockedBy(group, doc.ID); blocked {
			v.Blocking = &b
		}
		for _, m := range group {
			v.CanCloseNothingToPost = v.CanCloseNothingToPost || (m.ID == doc.ID && review.Closable(m) == nil)
		}
		st, err := review.StandingOf(ctx, q, r.OrgID, doc.ID, r.Label)
		if err != nil {
			return v, err
		}
		v.Approval = &st
	}
	if doc.Status == intake.Posted && doc.ResultEntryID != 0 {
		rev, reversed, err := ledger.ReversalOf(ctx, q, r.OrgID, doc.ResultEntryID)
		if err != nil {
			return v, err
		}
		if reversed {
			v.Reversal = &rev
		}
	}
	job, ok, err := jobs.ForDocument(ctx, q, r.OrgID, doc.ID)
	if err != nil {
		return v, err
	}
	if ok {
		v.Job = &job
		v.CanRetry = r.Admin && (job.Status == jobs.Abandoned || job.Status == jobs.Failed)
	}
	return v, nil
}

// compareWith is the member of group a document's page first sets beside
// it: the one it was filed as a duplicate of, else the first other member;
// 0 when it is alone.
func compareWith(doc intake.Document, group []review.Member) int64 {
	if len(group) < 2 {
		return 0
	}
	if doc.DuplicateOf != 0 {
		return doc.DuplicateOf
	}
	for _, m := range group {
		if m.ID != doc.ID {
			return m.ID
		}
	}
	return 0
}

// ReadComparison sets document id beside member with of its group; a with
// outside the group compares with nothing.
func ReadComparison(ctx context.Context, q database.Executor, r Reader, id, with int64) (Comparison, error) {
	return readGroup(ctx, q, r, id, with, false)
}

// ReadGroup is document id's group as its page shows it: the members, and
// the document beside member with (the page's first choice, compareWith,
// when with is 0).
func ReadGroup(ctx context.Context, q database.Executor, r Reader, id, with int64) (Comparison, error) {
	return readGroup(ctx, q, r, id, with, true)
}

func readGroup(ctx context.Context, q database.Executor, r Reader, id, with int64, firstChoice bool) (Comparison, error) {
	doc, err := intake.GetDocument(ctx, q, r.OrgID, id)
	if err != nil {
		return Comparison{}, err
	}
	group, err := review.Group(ctx, q, r.OrgID, id)
	if err != nil {
		return Comparison{}, err
	}
	if with == 0 && firstChoice {
		with = compareWith(doc, group)
	}
	return compare(ctx, q, doc, group, with)
}

func compare(ctx context.Context, q database.Executor, doc intake.Document, group []review.Member, with int64) (Comparison, error) {
	v := Comparison{DocumentID: doc.ID, Members: group}
	inGroup := false
	for _, m := range group {
		inGroup = inGroup || (m.ID == with && with != doc.ID)
	}
	if !inGroup {
		return v, nil
	}
	other, err := intake.GetDocument(ctx, q, doc.OrgID, with)
	if err != nil {
		return v, err
	}
	a, b := fieldsOf(doc), fieldsOf(other)
	if a == nil {
		a = &einvoice.Document{}
	}
	if b == nil {
		b = &einvoice.Document{}
	}
	v.With, v.Rows = with, einvoice.SideBySide(*a, *b)
	return v, nil
}

// fieldsOf is a document's fields as filed, or nil.
func fieldsOf(doc intake.Document) *einvoice.Document {
	if len(doc.Fields) == 0 {
		return nil
	}
	var f einvoice.Document
	if json.Unmarshal(doc.Fields, &f) != nil {
		return nil
	}
	return &f
}
