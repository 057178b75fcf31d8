// Package typewriter composes documents inside the product — a bill typed
// in from paper, a self-billed invoice — renders each version to a PDF that
// carries its data as embedded CII, and submits versions to the intake
// pipeline. Versions are immutable: a revision is a new version that
// supersedes the one before, and the versions of a document form its version
// group, which the intake queue files as one duplicate group.
package typewriter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/pipeline"
)

// Version is one immutable version of a composed document.
type Version struct {
	ID           int64
	DocumentID   int64
	Number       int
	SupersedesID int64
	Body         einvoice.Document
	PDFSHA256    string
	CreatedBy    string
	CreatedAt    time.Time
	// Intake is the row filed from this version, if it was submitted.
	Intake *IntakeRow
}

// IntakeRow is what the typewriter shows of a version's intake row.
type IntakeRow struct {
	ID          int64
	Status      intake.Status
	DuplicateOf int64
	// DuplicateReason says why it is a duplicate of DuplicateOf: a newer
	// version, or a collision with another document (intake's reasons).
	DuplicateReason string
	FlagReason      string
}

// Document is a composed document and its versions, oldest first.
type Document struct {
	ID        int64
	CreatedBy string
	CreatedAt time.Time
	Versions  []Version
}

// Latest returns the newest version.
func (d Document) Latest() Version { return d.Versions[len(d.Versions)-1] }

// Live returns the version whose intake row is the group's incumbent:
// submitted, not rejected, not filed as a duplicate (or, failing that, the
// newest submitted and not rejected).
func (d Document) Live() *Version {
	var fallback *Version
	for i := len(d.Versions) - 1; i >= 0; i-- {
		v := &d.Versions[i]
		if v.Intake == nil || v.Intake.Status == intake.Rejected || v.Intake.Status == intake.Received {
			continue
		}
		if v.Intake.DuplicateOf == 0 {
			return v
		}
		if fallback == nil {
			fallback = v
		}
	}
	return fallback
}

// Service composes, revises and submits documents.
type Service struct {
	Pool     database.Executor
	Pipeline *pipeline.Pipeline
}

// Prepare checks a document before it becomes a version: it must validate
// (its lines, totals and dates add up) and have a seller and a number.
func Prepare(d einvoice.Document) (einvoice.Document, error) {
	d.Format = ""
	if fs := einvoice.ValidateAt(d, time.Now()); len(fs) > 0 {
		reasons := make([]map[string]string, 0, len(fs))
		for _, f := range fs {
			reasons = append(reasons, map[string]string{"field": f.Field, "message": f.Message})
		}
		return d, apperr.New(apperr.Invalid, "the document does not validate: %s", fs[0].Message).With("reasons", reasons)
	}
	return d, nil
}

// Compose creates a document with its first version.
func (s *Service) Compose(ctx context.Context, orgID int64, d einvoice.Document, actor audit.Actor) (Document, error) {
	d, err := Prepare(d)
	if err != nil {
		return Document{}, err
	}
	id, err := database.WithTxV(ctx, s.Pool, func(tx pgx.Tx) (int64, error) {
		var id int64
		if err := tx.QueryRow(ctx, insertDocumentSQL, orgID, actor.Label).Scan(&id); err != nil {
			return 0, err
		}
		if _, err := insertVersion(ctx, tx, orgID, id, 1, 0, d, actor); err != nil {
			return 0, err
		}
		return id, nil
	})
	if err != nil {
		return Document{}, err
	}
	return s.Get(ctx, orgID, id)
}

// Revise creates the next version of a document, superseding the newest.
func (s *Service) Revise(ctx context.Context, orgID, documentID int64, d einvoice.Document, actor audit.Actor) (Version, error) {
	d, err := Prepare(d)
	if err != nil {
		return Version{}, err
	}
	id, err := database.WithTxV(ctx, s.Pool, func(tx pgx.Tx) (int64, error) {
		// One revision at a time per document: lock it, then read its newest version.
		var found int64
		if err := tx.QueryRow(ctx, lockDocumentSQL, documentID, orgID).Scan(&found); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return 0, apperr.New(apperr.NotFound, "no typewriter document %d", documentID)
			}
			return 0, err
		}
		var latestID int64
		var latest int
		if err := tx.QueryRow(ctx, newestVersionSQL, documentID).Scan(&latestID, &latest); err != nil {
			return 0, err
		}
		return insertVersion(ctx, tx, orgID, documentID, latest+1, latestID, d, actor)
	})
	if err != nil {
		return Version{}, err
	}
	return s.Version(ctx, orgID, id)
}

func insertVersion(ctx context.Context, tx pgx.Tx, orgID, documentID int64, number int, supersedes int64, d einvoice.Document, actor audit.Actor) (int64, error) {
	pdf, err := Render(d)
	if err != nil {
		return 0, err
	}
	body, err := json.Marshal(d)
	if err != nil {
		return 0, err
	}
	sum := sha256.Sum256(pdf)
	var id int64
	err = tx.QueryRow(ctx, insertVersionSQL,
		documentID, orgID, number, supersedes, body, pdf, hex.EncodeToString(sum[:]), actor.Label).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("typewriter: save version: %w", err)
	}
	return id, audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "typewriter_version", SubjectType: "typewriter",
		SubjectID: documentID, Detail: map[string]any{"version_id": id, "number": number, "supersedes_id": supersedes}})
}

func scanVersion(row pgx.Row) (Version, error) {
	var v Version
	var body []byte
	var iid *int64
	var status *string
	var dup int64
	var reason, flag string
	if err := row.Scan(&v.ID, &v.DocumentID, &v.Number, &v.SupersedesID, &body, &v.PDFSHA256, &v.CreatedBy, &v.CreatedAt,
		&iid, &status, &dup, &reason, &flag); err != nil {
		return v, err
	}
	if err := json.Unmarshal(body, &v.Body); err != nil {
		return v, err
	}
	if iid != nil {
		v.Intake = &IntakeRow{ID: *iid, Status: intake.Status(*status), DuplicateOf: dup, DuplicateReason: reason, FlagReason: flag}
	}
	return v, nil
}

// Version returns one version of an org.
func (s *Service) Version(ctx context.Context, orgID, id int64) (Version, error) {
	v, err := scanVersion(s.Pool.QueryRow(ctx, versionSQL, id, orgID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Version{}, apperr.New(apperr.NotFound, "no typewriter version %d", id)
	}
	return v, err
}

// PDF returns a version's rendered PDF.
func (s *Service) PDF(ctx context.Context, orgID, id int64) ([]byte, error) {
	var pdf []byte
	err := s.Pool.QueryRow(ctx, versionPDFSQL, id, orgID).Scan(&pdf)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, apperr.New(apperr.NotFound, "no typewriter version %d", id)
	}
	return pdf, err
}

// Get returns a document with its versions.
func (s *Service) Get(ctx context.Context, orgID, id int64) (Document, error) {
	var d Document
	err := s.Pool.QueryRow(ctx, documentSQL, id, orgID).
		Scan(&d.ID, &d.CreatedBy, &d.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Document{}, apperr.New(apperr.NotFound, "no typewriter document %d", id)
	}
	if err != nil {
		return Document{}, err
	}
	rows, err := s.Pool.Query(ctx, versionsOfDocumentSQL, id)
	if err != nil {
		return Document{}, err
	}
	d.Versions, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Version, error) { return scanVersion(r) })
	return d, err
}

// List returns an org's composed documents, newest first, with their versions.
func (s *Service) List(ctx context.Context, orgID int64) ([]Document, error) {
	rows, err := s.Pool.Query(ctx, listDocumentsSQL, orgID)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	out := make([]Document, 0, len(ids))
	for _, id := range ids {
		d, err := s.Get(ctx, orgID, id)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// Submit sends a version's PDF through the intake pipeline and waits for it
// to be filed. The queue files it against the live incumbent of its version
// group, if there is one.
func (s *Service) Submit(ctx context.Context, orgID, versionID int64, actor audit.Actor) (intake.Document, error) {
	v, err := s.Version(ctx, orgID, versionID)
	if err != nil {
		return intake.Document{}, err
	}
	pdf, err := s.PDF(ctx, orgID, versionID)
	if err != nil {
		return intake.Document{}, err
	}
	res, err := s.Pipeline.Ingest(ctx, intake.Arrival{OrgID: orgID, Content: pdf, MediaType: "application/pdf",
		Filename: fmt.Sprintf("%s-v%d.pdf", v.Body.Number, v.Number), Via: "typewriter", Actor: actor.Label,
		TypewriterVersionID: v.ID, VersionGroup: v.DocumentID})
	if err != nil {
		return intake.Document{}, err
	}
	doc := res.Document
	for deadline := time.Now().Add(time.Minute); doc.Status == intake.Received && time.Now().Before(deadline); {
		if err := s.Pipeline.Process(ctx, res.RunID); err != nil {
			return intake.Document{}, err
		}
		if doc, err = intake.GetDocument(ctx, s.Pool, orgID, doc.ID); err != nil {
			return intake.Document{}, err
		}
		if doc.Status == intake.Received {
			select { // another worker holds the run: wait for it
			case <-ctx.Done():
				return intake.Document{}, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return doc, nil
}

// FieldDiff is one field whose values differ between two versions.
type FieldDiff struct {
	Field string
	A, B  string
}

// Diff lists the fields two versions disagree on.
func Diff(a, b einvoice.Document) []FieldDiff {
	var out []FieldDiff
	for _, p := range einvoice.SideBySide(a, b) {
		if !p.Same {
			out = append(out, FieldDiff{Field: p.Field, A: p.A, B: p.B})
		}
	}
	return out
}
