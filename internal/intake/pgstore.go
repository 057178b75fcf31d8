package intake

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
)

// PGStore is the PostgreSQL store.
type PGStore struct {
	db database.Executor
	// guardLock replaces holdGuardLock only in the mutation tests, which
	// set a wrong one from export_test.go to prove the product's; nil in
	// the product.
	guardLock guardLocker
	// afterIncumbentRead, set only from export_test.go, runs between a
	// guard's read and its filing (tests interleave two filings there).
	afterIncumbentRead func(ctx context.Context)
}

// guardLocker starts the critical section of a guard in tx; release ends
// it before the transaction does (the product's never does).
type guardLocker func(ctx context.Context, tx pgx.Tx, namespace int32, key string) (release func() error, err error)

// guardSection starts the critical section of a guard: the incumbent read
// and the filing that follows it, under a namespaced advisory lock held
// until the filing commits (holdGuardLock).
func (s *PGStore) guardSection(ctx context.Context, tx pgx.Tx, namespace int32, key string) (func() error, error) {
	if s.guardLock != nil {
		return s.guardLock(ctx, tx, namespace, key)
	}
	return holdGuardLock(ctx, tx, namespace, key)
}

// holdGuardLock takes the guard's advisory lock until tx ends: release does
// nothing.
func holdGuardLock(ctx context.Context, tx pgx.Tx, namespace int32, key string) (func() error, error) {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, namespace, key)
	return func() error { return nil }, err
}

// readIncumbent ends a guard's read: the tests' hook runs here, between the
// read and the filing.
func (s *PGStore) readIncumbent(ctx context.Context, release func() error) error {
	if err := release(); err != nil {
		return err
	}
	if s.afterIncumbentRead != nil {
		s.afterIncumbentRead(ctx)
	}
	return nil
}

// NewPGStore returns a store over a pool or a transaction.
func NewPGStore(db database.Executor) *PGStore { return &PGStore{db: db} }

// Columns of a document, in the order scanDocument reads them.
const documentColumns = `d.id, d.org_id, d.content_hash, d.media_type, d.filename, d.size_bytes, d.received_via, d.received_by,
	coalesce(d.pipeline_run_id::text, ''), d.status, coalesce(d.doc_type, ''), coalesce(d.source_ref, ''), coalesce(d.content_key, ''),
	coalesce(d.format, ''), coalesce(d.profile, ''), d.fields, d.findings, coalesce(d.flag_reason, ''), coalesce(d.duplicate_of, 0),
	coalesce(d.duplicate_reason, ''), coalesce(d.distinct_from, 0), coalesce(d.result_entry_id, 0),
	coalesce(d.typewriter_version_id, 0), coalesce(d.version_group, 0), d.received_at, d.queued_at,
	coalesce(d.decided_by, ''), d.decided_at, coalesce(d.decision_reason, ''), d.updated_at`

// ScanDocument reads a row selected with DocumentColumns.
func ScanDocument(row pgx.Row) (Document, error) {
	var d Document
	err := row.Scan(&d.ID, &d.OrgID, &d.ContentHash, &d.MediaType, &d.Filename, &d.Size, &d.Via, &d.ReceivedBy,
		&d.PipelineRunID, &d.Status, &d.DocType, &d.SourceRef, &d.ContentKey, &d.Format, &d.Profile, &d.Fields, &d.Findings,
		&d.FlagReason, &d.DuplicateOf, &d.DuplicateReason, &d.DistinctFrom, &d.ResultEntryID,
		&d.TypewriterVersionID, &d.VersionGroup, &d.ReceivedAt,
		&d.QueuedAt, &d.DecidedBy, &d.DecidedAt, &d.DecisionReason, &d.UpdatedAt)
	return d, err
}

// DocumentColumns is the select list ScanDocument reads, for table alias d.
const DocumentColumns = documentColumns

// Ingest implements Store.
func (s *PGStore) Ingest(ctx context.Context, a Arrival) (Document, bool, error) {
	if err := checkArrival(a); err != nil {
		return Document{}, false, err
	}
	hash := ContentHash(a.Content)
	type result struct {
		doc     Document
		created bool
	}
	r, err := withinTx(ctx, s.db, func(tx pgx.Tx) (result, error) {
		// The row and its bytes in one statement, which returns the row.
		d, err := ScanDocument(tx.QueryRow(ctx, `
			WITH d AS (
				INSERT INTO intake_documents (org_id, content_hash, media_type, filename, size_bytes, received_via, received_by, pipeline_run_id,
				                              typewriter_version_id, version_group)
				VALUES ($1, $2, $3, $4, $5, $6, $7, NULLIF($8, '')::uuid, NULLIF($9, 0), NULLIF($10, 0))
				ON CONFLICT ON CONSTRAINT intake_documents_content_key DO NOTHING
				RETURNING *),
			original AS (INSERT INTO intake_originals (document_id, content) SELECT id, $11 FROM d)
			SELECT `+documentColumns+` FROM d`, a.OrgID, hash, a.MediaType, CleanFilename(a.Filename), len(a.Content), a.Via, a.Actor, a.RunID,
			a.TypewriterVersionID, a.VersionGroup, a.Content))
		if err == nil {
			return result{doc: d, created: true}, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return result{}, fmt.Errorf("intake: ingest: %w", err)
		}
		var id int64
		if err := tx.QueryRow(ctx, `SELECT id FROM intake_documents WHERE content_hash = $1 AND org_id = $2`, hash, a.OrgID).Scan(&id); err != nil {
			return result{}, fmt.Errorf("intake: ingest: %w", err)
		}
		d, err = get(ctx, tx, a.OrgID, id)
		return result{doc: d}, err
	})
	return r.doc, r.created, err
}

// withinTx runs fn in the store's transaction when it was given one, and in
// a new one otherwise. A savepoint in the caller's transaction would protect
// nothing: fn's error fails the caller's transaction with it.
func withinTx[T any](ctx context.Context, db database.Executor, fn func(tx pgx.Tx) (T, error)) (T, error) {
	if tx, ok := db.(pgx.Tx); ok {
		return fn(tx)
	}
	return database.WithTxV(ctx, db, fn)
}

// Queue implements Store.
func (s *PGStore) Queue(ctx context.Context, id int64, f Filing) (Document, error) {
	return s.file(ctx, id, f, `status = 'received'`, ErrNotReceived)
}

// Refile implements Store.
func (s *PGStore) Refile(ctx context.Context, id int64, f Filing) (Document, error) {
	return s.file(ctx, id, f, `status = 'flagged' AND flag_reason IN ('needs_manual_extraction', 'extraction_failed', 'invalid_einvoice')`, ErrNotRefileable)
}

// file writes a filing to a row in the state `from` describes.
func (s *PGStore) file(ctx context.Context, id int64, f Filing, from string, errWrongState error) (Document, error) {
	if err := checkFiling(f); err != nil {
		return Document{}, err
	}
	doc, err := database.WithTxV(ctx, s.db, func(tx pgx.Tx) (Document, error) {
		var orgID int64
		if f.DuplicateOf == 0 && f.FlagReason != FlagDuplicate {
			// A row that would hold its keys passes the guards that find
			// their incumbents by query: its version group's, then its
			// content key's.
			var group *int64
			if err := tx.QueryRow(ctx, `SELECT org_id, version_group FROM intake_documents WHERE id = $1`, id).Scan(&orgID, &group); err != nil {
				if errors.Is(err, pgx.ErrNoRows) {
					return Document{}, errWrongState
				}
				return Document{}, err
			}
			var err error
			if group != nil {
				if f, err = s.versionGuard(ctx, tx, id, *group, f); err != nil {
					return Document{}, err
				}
			}
			if f.DuplicateOf == 0 && f.ContentKey != "" {
				if err := s.contentGuard(ctx, tx, id, orgID, f); err != nil {
					return Document{}, err
				}
			}
		}
		status := Pending
		if f.FlagReason != "" {
			status = Flagged
		}
		findings := f.Findings
		if findings == nil {
			findings = []byte("[]")
		}
		doc, err := ScanDocument(tx.QueryRow(ctx, `
			UPDATE intake_documents d SET status = $2, doc_type = NULLIF($3, ''), source_ref = NULLIF($4, ''),
			       content_key = NULLIF($5, ''), format = NULLIF($6, ''), fields = $7, findings = $8,
			       flag_reason = NULLIF($9, ''), duplicate_of = NULLIF($10, 0), duplicate_reason = NULLIF($11, ''),
			       profile = NULLIF($12, ''), queued_at = now(), updated_at = now()
			WHERE id = $1 AND `+from+`
			RETURNING `+documentColumns, id, status, f.DocType, f.SourceRef, f.ContentKey, f.Format, f.Fields, findings,
			f.FlagReason, f.DuplicateOf, f.DuplicateReason, f.Profile))
		if errors.Is(err, pgx.ErrNoRows) {
			return Document{}, errWrongState
		}
		return doc, err
	})
	if database.IsUniqueViolation(err, "intake_natural_key") {
		// Another row holds the key (it committed while we waited on the
		// index). The savepoint is gone; find the incumbent and say so.
		var incumbent int64
		if qerr := s.db.QueryRow(ctx, `SELECT d.id FROM intake_documents d JOIN intake_documents me ON me.id = $1
			WHERE d.org_id = me.org_id AND d.doc_type = $2 AND d.source_ref = $3 AND d.duplicate_of IS NULL
			  AND d.distinct_from IS NULL AND d.status <> 'rejected'`, id, f.DocType, f.SourceRef).Scan(&incumbent); qerr != nil {
			return Document{}, fmt.Errorf("intake: queue: natural key held, incumbent not found: %w", qerr)
		}
		return Document{}, &NaturalKeyConflict{DocType: f.DocType, SourceRef: f.SourceRef, Incumbent: incumbent, Reason: SameReference}
	}
	var nk *NaturalKeyConflict
	if err != nil && !errors.As(err, &nk) && !errors.Is(err, errWrongState) {
		return Document{}, fmt.Errorf("intake: queue document %d: %w", id, err)
	}
	return doc, err
}

// versionIncumbentSQL finds the live row filed by any version of a version
// group: not rejected, filed (not received), preferring one accepted, then
// one not filed as a duplicate, then the oldest. It is stated over the
// group, never over the supersedes edge.
const versionIncumbentSQL = `SELECT d.id FROM intake_documents d
WHERE d.version_group = $1 AND d.id <> $2 AND d.status NOT IN ('rejected', 'received')
ORDER BY (d.status IN ('active', 'posted') OR d.result_entry_id IS NOT NULL) DESC, (d.duplicate_of IS NULL) DESC, d.id
LIMIT 1`

// versionGuard files a typewriter version against its group's live
// incumbent. Versions have different bytes (hence different idempotency
// keys) and nothing links one version's row to another's, so the guard is
// what makes a revision visible to the duplicate-group rule. The incumbent
// read and the filing are one critical section under the group's
// namespaced advisory lock, held until the filing commits.
func (s *PGStore) versionGuard(ctx context.Context, tx pgx.Tx, id, group int64, f Filing) (Filing, error) {
	release, err := s.guardSection(ctx, tx, database.LockVersionGroup, strconv.FormatInt(group, 10))
	if err != nil {
		return f, err
	}
	var incumbent int64
	if err := tx.QueryRow(ctx, versionIncumbentSQL, group, id).Scan(&incumbent); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		_ = release()
		return f, err
	}
	if err := s.readIncumbent(ctx, release); err != nil {
		return f, err
	}
	if incumbent != 0 {
		f.FlagReason, f.DuplicateOf, f.DuplicateReason = FlagDuplicate, incumbent, NewerVersion
	}
	return f, nil
}

// contentGuard refuses to let a row hold its content key (the same seller,
// date, currency and total as a live row under another number) when another
// row holds it: the natural-key conflict it returns files the row as a
// duplicate. The key is not unique (two genuine invoices can share it), so
// the incumbent is found by query, and the read and the filing are one
// critical section under the org's content-key lock, held until the filing
// commits: two such arrivals at once give one incumbent.
func (s *PGStore) contentGuard(ctx context.Context, tx pgx.Tx, id, orgID int64, f Filing) error {
	release, err := s.guardSection(ctx, tx, database.LockContentKey, strconv.FormatInt(orgID, 10)+"/"+f.ContentKey)
	if err != nil {
		return err
	}
	var incumbent int64
	err = tx.QueryRow(ctx, `SELECT d.id FROM intake_documents d
		WHERE d.org_id = $4 AND d.content_key = $2 AND d.id <> $1 AND d.duplicate_of IS NULL
		  AND d.distinct_from IS NULL AND d.status NOT IN ('rejected', 'received')
		  AND d.source_ref IS DISTINCT FROM $3
		ORDER BY d.id LIMIT 1`, id, f.ContentKey, nullIfEmpty(f.SourceRef), orgID).Scan(&incumbent)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		_ = release()
		return fmt.Errorf("intake: queue: %w", err)
	}
	if err := s.readIncumbent(ctx, release); err != nil {
		return err
	}
	if incumbent != 0 {
		return &NaturalKeyConflict{DocType: f.DocType, SourceRef: f.SourceRef, Incumbent: incumbent, Reason: SameContent}
	}
	return nil
}

// Get implements Store.
func (s *PGStore) Get(ctx context.Context, orgID, id int64) (Document, error) {
	return get(ctx, s.db, orgID, id)
}

const getDocumentSQL = `SELECT ` + documentColumns + ` FROM intake_documents d WHERE d.id = $1 AND d.org_id = $2`

func get(ctx context.Context, q database.Executor, orgID, id int64) (Document, error) {
	d, err := ScanDocument(q.QueryRow(ctx, getDocumentSQL, id, orgID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Document{}, apperr.New(apperr.NotFound, "no document %d", id)
	}
	if err != nil {
		return Document{}, fmt.Errorf("intake: get document %d: %w", id, err)
	}
	return d, nil
}

// GetDocument returns one document of an org (not_found when the org has
// no such document), like GetJob and Original: reads take the Executor, and
// a PGStore is built only where a Store is needed, over a transaction.
func GetDocument(ctx context.Context, q database.Executor, orgID, id int64) (Document, error) {
	return get(ctx, q, orgID, id)
}

// Original returns a document's bytes as they arrived.
func Original(ctx context.Context, q database.Executor, orgID, id int64) ([]byte, error) {
	var b []byte
	err := q.QueryRow(ctx, `SELECT o.content FROM intake_originals o JOIN intake_documents d ON d.id = o.document_id
		WHERE d.id = $1 AND d.org_id = $2`, id, orgID).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, apperr.New(apperr.NotFound, "no document %d", id)
	}
	if err != nil {
		return nil, fmt.Errorf("intake: original of %d: %w", id, err)
	}
	return b, nil
}

func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
