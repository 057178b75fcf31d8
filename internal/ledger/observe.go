package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/storable"
)

// Observation is what a writer saw when it posted under a source key: a
// replay, a conflict or a refusal (a creation is the entry itself).
type Observation struct {
	ID          int64
	Outcome     string
	EntryID     int64
	Fingerprint []byte
	Detail      map[string]any
	Actor       string
	At          time.Time
}

// Observe records what a post returned, for the source-key explorer. Post
// itself writes nothing on a replay; its callers record here, after the
// post's transaction, without waiting for the WAL flush (an observation
// lost in a crash is only a line less in the explorer).
func Observe(ctx context.Context, db database.Executor, req Request, res Result, postErr error) {
	args, ok := observation(req, res, postErr)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = database.WithTx(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, asyncCommitSQL); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, insertObservationSQL, args...)
		return err
	})
}

// ObserveTx records a replay in the caller's transaction, for callers
// that post with PostTx and commit more than the entry (the bookkeeper):
// the observation commits or rolls back with their work.
func ObserveTx(ctx context.Context, tx pgx.Tx, req Request, res Result) error {
	args, ok := observation(req, res, nil)
	if !ok {
		return nil
	}
	_, err := tx.Exec(ctx, insertObservationSQL, args...)
	return err
}

// observation is the row that records a post's outcome; false when there
// is nothing to record (a creation is the entry itself).
func observation(req Request, res Result, postErr error) ([]any, bool) {
	outcome, detail := "", map[string]any{}
	entryID := res.Entry.ID
	switch {
	case postErr == nil && res.Replayed:
		outcome = "replayed"
	case postErr == nil:
		return nil, false
	case apperr.Is(postErr, apperr.SourceReplayConflict):
		outcome = "conflict"
		e, _ := apperr.As(postErr)
		detail["differences"] = e.Details["differences"]
		if id, ok := e.Details["entry_id"].(int64); ok {
			entryID = id
		}
	case apperr.Is(postErr, apperr.Invalid):
		outcome = "invalid"
		e, _ := apperr.As(postErr)
		detail["reasons"] = e.Details["reasons"]
	default:
		return nil, false
	}
	raw, err := json.Marshal(detail)
	if err != nil {
		return nil, false
	}
	// The requested fingerprint (in the entry's base currency when known).
	base := res.Entry.BaseCurrency
	if base == "" {
		base = req.Currency
	}
	fp := requestFacts(req, base).fingerprint()
	// A refused request's key may hold what the database cannot (a NUL): it
	// is recorded made storable, so the refusal is still seen.
	key := func(s string) string { return storable.Clean(s, storable.MaxKey) }
	return []any{req.OrgID, key(req.SourceType), key(req.SourceID), key(req.EntrySet), outcome, entryID, fp, raw, key(req.Actor)}, true
}

// checkKey refuses a source key the database cannot compare, naming the
// parameter (storable.CheckParameters).
func checkKey(k SourceKey) error {
	return storable.CheckParameters(storable.Param{Name: "source_type", Value: k.SourceType, Max: MaxKeyText},
		storable.Param{Name: "source_id", Value: k.SourceID, Max: MaxKeyText}, storable.Param{Name: "entry_set", Value: k.EntrySet, Max: MaxKeyText})
}

// Observations returns what writers saw under a source key, oldest first.
func Observations(ctx context.Context, q database.Executor, k SourceKey) ([]Observation, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, listObservationsSQL, k.OrgID, k.SourceType, k.SourceID, k.EntrySet)
	if err != nil {
		return nil, fmt.Errorf("ledger: observations: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Observation, error) {
		var o Observation
		err := r.Scan(&o.ID, &o.Outcome, &o.EntryID, &o.Fingerprint, &o.Detail, &o.Actor, &o.At)
		return o, err
	})
}

// ByKey returns the entry stored under a source key, if any.
func ByKey(ctx context.Context, q database.Executor, k SourceKey) (Entry, bool, error) {
	if err := checkKey(k); err != nil {
		return Entry{}, false, err
	}
	e, found, err := lookup(ctx, q, k)
	if err != nil || !found {
		return e, found, err
	}
	e, err = Get(ctx, q, k.OrgID, e.ID)
	return e, true, err
}
