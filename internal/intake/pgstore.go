package intake

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/failpoint"
)

// PGStore is the PostgreSQL store.
type PGStore struct {
	// db reads and writes single statements: the pool, or the caller's tx.
	db database.Executor
	// pool is set by NewPGStore: a filing opens a transaction of its own.
	pool *pgxpool.Pool
	// tx is set by NewPGStoreTx: a filing joins the caller's transaction
	// behind a savepoint, so that a refused filing can be filed again.
	tx pgx.Tx
	// guardLock is how the guards lock: heldGuardLock, the product's (the
	// mutation tests build stores with wrong ones to prove it).
	guardLock guardLock
	// failpoints act at failpointAfterIncumbentRead.
	failpoints failpoint.Injector
}

// NewPGStore returns a store whose every call runs on its own: a filing in
// a transaction of its own.
func NewPGStore(pool *pgxpool.Pool) *PGStore {
	return &PGStore{db: pool, pool: pool, guardLock: heldGuardLock, failpoints: failpoint.Env{}}
}

// NewPGStoreTx returns a store whose every call joins tx; a filing that
// fails is undone to a savepoint and leaves tx usable.
func NewPGStoreTx(tx pgx.Tx) *PGStore {
	return &PGStore{db: tx, tx: tx, guardLock: heldGuardLock, failpoints: failpoint.Env{}}
}

// failpointAfterIncumbentRead is inside a filing, between its guards'
// reads of their incumbents and its update (tests interleave two filings
// there).
const failpointAfterIncumbentRead = "intake/file/after-incumbent-read"

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

// Ingest implements Store.
func (s *PGStore) Ingest(ctx context.Context, a Arrival) (Document, bool, error) {
	b := &pgx.Batch{}
	read, err := QueueIngest(b, a)
	if err != nil {
		return Document{}, false, err
	}
	// One statement, in a transaction of its own or the caller's: it needs
	// none.
	br := s.db.SendBatch(ctx, b)
	d, created, err := read(br)
	if cerr := br.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("intake: ingest: %w", cerr)
	}
	if err != nil || created {
		return d, created, err
	}
	d, err = ArrivedBefore(ctx, s.db, a)
	return d, false, err
}

// QueueIngest checks arrival a and queues on b the statement that writes its
// row at received with its bytes (both or neither), idempotent on (org,
// content hash). It returns what reads the statement's result: the row, and
// whether the statement wrote it. When the same bytes arrived before it
// returns created=false and no row: ArrivedBefore reads that one (after
// the transaction that queued the statement, whose snapshot may predate it).
func QueueIngest(b *pgx.Batch, a Arrival) (func(pgx.BatchResults) (Document, bool, error), error) {
	if err := checkArrival(a); err != nil {
		return nil, err
	}
	// The row and its bytes in one statement, which returns the row.
	b.Queue(ingestSQL, a.OrgID, ContentHash(a.Content), a.MediaType, CleanFilename(a.Filename), len(a.Content), a.Via, a.Actor, a.RunID,
		a.TypewriterVersionID, a.VersionGroup, a.Content)
	return func(br pgx.BatchResults) (Document, bool, error) {
		d, err := ScanDocument(br.QueryRow())
		switch {
		case err == nil:
			return d, true, nil
		case errors.Is(err, pgx.ErrNoRows):
			return Document{}, false, nil
		}
		return Document{}, false, fmt.Errorf("intake: ingest: %w", err)
	}, nil
}

// ArrivedBefore returns the row that a's bytes arrived as in a's org.
func ArrivedBefore(ctx context.Context, q database.Executor, a Arrival) (Document, error) {
	d, err := ScanDocument(q.QueryRow(ctx, arrivedBeforeSQL, ContentHash(a.Content), a.OrgID))
	if err != nil {
		return Document{}, fmt.Errorf("intake: ingest: %w", err)
	}
	return d, nil
}

// Queue implements Store.
func (s *PGStore) Queue(ctx context.Context, id int64, f Filing) (Document, error) {
	return s.file(ctx, id, f, Received, queueSQL, ErrNotReceived)
}

// Refile implements Store.
func (s *PGStore) Refile(ctx context.Context, id int64, f Filing) (Document, error) {
	return s.file(ctx, id, f, Flagged, refileSQL, ErrNotRefileable)
}

// file writes a filing to a row with statement (queueSQL or refileSQL),
// which files only a row in the state it expects (whose status is was).
func (s *PGStore) file(ctx context.Context, id int64, f Filing, was Status, statement string, errWrongState error) (Document, error) {
	if err := checkFiling(f); err != nil {
		return Document{}, err
	}
	var doc Document
	var err error
	if s.tx != nil {
		doc, err = s.fileIn(ctx, s.tx, id, f, was, statement, errWrongState, true)
	} else {
		doc, err = database.WithTxV(ctx, s.pool, func(tx pgx.Tx) (Document, error) {
			return s.fileIn(ctx, tx, id, f, was, statement, errWrongState, false)
		})
	}
	if database.IsUniqueViolation(err, "intake_natural_key") {
		// Another row holds the key (it committed while we waited on the
		// index). The filing is undone; find the incumbent and say so.
		var incumbent int64
		if qerr := s.db.QueryRow(ctx, naturalKeyIncumbentSQL, id, f.DocType, f.SourceRef).Scan(&incumbent); qerr != nil {
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

// filingSavepoint undoes a filing in its caller's transaction when it fails
// (the unique index refusing the natural key, a guard finding an incumbent),
// so that File can file the row again as a duplicate in the same
// transaction. It is never released: a successful filing commits with the
// caller's transaction, and releasing would cost a round trip.
const filingSavepoint = "intake_filing"

// fileIn files in tx in two round trips: the savepoint (when tx is the
// caller's) with the guards' locks and incumbent reads in one batch, then
// the update.
func (s *PGStore) fileIn(ctx context.Context, tx pgx.Tx, id int64, f Filing, was Status, statement string, errWrongState error, savepoint bool) (doc Document, err error) {
	// Only a row that may hold the natural key can be refused by its index.
	savepoint = savepoint && f.DuplicateOf == 0
	// A row that would hold its keys passes the guards that find their
	// incumbents by query: its version group's, then its content key's.
	guarded := f.DuplicateOf == 0 && f.FlagReason != FlagDuplicate
	b := &pgx.Batch{}
	if savepoint {
		database.QueueSavepoint(b, filingSavepoint)
		defer func() {
			if err != nil {
				database.RollbackToSavepoint(ctx, tx, filingSavepoint)
			}
		}()
	}
	var read func(pgx.BatchResults) (Filing, error)
	if guarded {
		read = s.queueGuards(b, id, f)
	}
	if b.Len() > 0 {
		br := tx.SendBatch(ctx, b)
		if savepoint {
			if _, err := br.Exec(); err != nil {
				_ = br.Close()
				return Document{}, err
			}
		}
		if read != nil {
			f, err = read(br)
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return Document{}, err
		}
		if guarded {
			if err := s.failpoints.Inject(ctx, failpointAfterIncumbentRead); err != nil {
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
	// The filing and its audit row in one statement.
	doc, err = ScanDocument(tx.QueryRow(ctx, statement, id, status, f.DocType, f.SourceRef, f.ContentKey, f.Format, f.Fields, findings,
		f.FlagReason, f.DuplicateOf, f.DuplicateReason, f.Profile, string(was)))
	if errors.Is(err, pgx.ErrNoRows) {
		return Document{}, errWrongState
	}
	return doc, err
}

// guardLock names how a guard's critical section starts and ends: the
// function that takes the guard's namespaced advisory lock before the
// incumbent's read, and the one that releases it after the read ("" when the
// transaction's end does).
type guardLock struct{ take, release string }

// heldGuardLock is the product's: the lock is held across the filing until
// it commits. Only the mutation tests (export_test.go) build another.
var heldGuardLock = guardLock{take: "pg_advisory_xact_lock"}

// queueGuards queues the guards of row id's filing f on b and returns what
// reads their results and applies them to f. Each guard is a critical
// section under a namespaced advisory lock held until the filing commits:
// the lock, then the incumbent's read. In a batch PostgreSQL runs the
// statements in order on one connection, each with a snapshot taken when it
// starts, so the read still comes after the lock is held and sees every
// filing made under it before.
//
// The version guard files a typewriter version against its group's live
// incumbent: versions have different bytes (hence different idempotency
// keys) and nothing links one version's row to another's, so the guard is
// what makes a revision visible to the duplicate-group rule. The content
// guard refuses to let a row hold its content key (the same seller, date,
// currency and total as a live row under another number) when another row
// holds it: the key is not unique (two genuine invoices can share it), so
// the incumbent is found by query, and the natural-key conflict it returns
// files the row as a duplicate. A version filed against its incumbent holds
// no key, so the content guard's read then goes unused; its lock, taken
// after the group's like every filer's, is merely held.
func (s *PGStore) queueGuards(b *pgx.Batch, id int64, f Filing) func(pgx.BatchResults) (Filing, error) {
	lock := s.guardLock
	// The keys hashed are the strings they always were: the group's id, and
	// the org's id, a slash and the content key.
	section := func(fn, key string, args ...any) {
		if fn != "" {
			b.Queue(fmt.Sprintf(guardSectionSQL, fn, key, key), args...)
		}
	}
	guard := func(key string, lockArgs []any, read string, args ...any) {
		section(lock.take, key, lockArgs...)
		b.Queue(read, args...)
		section(lock.release, key, lockArgs...)
	}
	guard(versionGroupKeySQL, []any{database.LockVersionGroup, id}, versionIncumbentSQL, id)
	content := f.ContentKey != ""
	if content {
		guard(contentKeySQL, []any{database.LockContentKey, id, f.ContentKey},
			contentIncumbentSQL, id, f.ContentKey, nullIfEmpty(f.SourceRef))
	}
	return func(br pgx.BatchResults) (Filing, error) {
		section := func(fn string) error {
			if fn == "" {
				return nil
			}
			_, err := br.Exec()
			return err
		}
		incumbent := func() (int64, error) {
			if err := section(lock.take); err != nil {
				return 0, fmt.Errorf("intake: queue: guard lock: %w", err)
			}
			var row int64
			if err := br.QueryRow().Scan(&row); err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return 0, fmt.Errorf("intake: queue: incumbent: %w", err)
			}
			if err := section(lock.release); err != nil {
				return 0, fmt.Errorf("intake: queue: guard lock: %w", err)
			}
			return row, nil
		}
		version, err := incumbent()
		if err != nil {
			return f, err
		}
		var same int64
		if content {
			if same, err = incumbent(); err != nil {
				return f, err
			}
		}
		switch {
		case version != 0:
			f.FlagReason, f.DuplicateOf, f.DuplicateReason = FlagDuplicate, version, NewerVersion
		case same != 0:
			return f, &NaturalKeyConflict{DocType: f.DocType, SourceRef: f.SourceRef, Incumbent: same, Reason: SameContent}
		}
		return f, nil
	}
}

// Get implements Store.
func (s *PGStore) Get(ctx context.Context, orgID, id int64) (Document, error) {
	return get(ctx, s.db, orgID, id)
}

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
// no such document), like Original and jobs.Get: reads take the Executor, and
// a PGStore is built only where a Store is needed, over a transaction.
func GetDocument(ctx context.Context, q database.Executor, orgID, id int64) (Document, error) {
	return get(ctx, q, orgID, id)
}

// Original returns a document's bytes as they arrived.
func Original(ctx context.Context, q database.Executor, orgID, id int64) ([]byte, error) {
	var b []byte
	err := q.QueryRow(ctx, originalSQL, id, orgID).Scan(&b)
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
