package runs

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/storable"
)

// An operator's retry and abandon of a run that is stranded: failed without
// finishing its subject's work, or running with no live worker.

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// Reopen sets a failed run running again at the node it failed at, with its
// state as of then, or frees the lease of a running run no live worker holds,
// in the caller's transaction; launch it after the commit. Its takeovers
// (Engine.MaxTakeovers) count again from zero.
func Reopen(ctx context.Context, tx pgx.Tx, orgID int64, kind, runID, actor string) error {
	if !uuidPattern.MatchString(runID) {
		return apperr.New(apperr.NotFound, "no %s run %s", kind, storable.Clean(runID, 64))
	}
	var state Status
	err := tx.QueryRow(ctx, lockRunStateSQL, runID, orgID, kind).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return apperr.New(apperr.NotFound, "no %s run %s", kind, runID)
	}
	if err != nil {
		return fmt.Errorf("runs: reopen %s: %w", runID, err)
	}
	var node string
	var data []byte
	switch state {
	case Failed:
		err = tx.QueryRow(ctx, reopenFailedRunSQL, runID).Scan(&node, &data)
	case Running:
		err = tx.QueryRow(ctx, freeRunSQL, runID).Scan(&node, &data)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.New(apperr.InvalidState, "run %s is being executed by a live worker; wait for it", runID)
		}
	default:
		return apperr.New(apperr.InvalidState, "run %s is %s; only a failed or a stranded running run can be retried", runID, state)
	}
	if err != nil {
		return fmt.Errorf("runs: reopen %s: %w", runID, err)
	}
	if node == "" {
		return apperr.New(apperr.InvalidState, "run %s has no node to retry from", runID)
	}
	return insertCheckpoint(ctx, tx, runID, node, "resumed", node, data, storable.Clean(RetriedNote+actor, storable.MaxMessage), actor, 0)
}

// RetriedNote starts the note of an operator's retry: the run's count of
// failures at its node starts again after it.
const RetriedNote = "retried by "

// Abandon ends a run for good, in the caller's transaction: a failed run
// stays failed, a running run no live worker holds is marked failed, each
// with "abandoned by" and its last error. It returns the run as it was, so
// the caller can tell its subject.
func Abandon(ctx context.Context, tx pgx.Tx, orgID int64, kind, runID, actor string) (Info, error) {
	if !uuidPattern.MatchString(runID) {
		return Info{}, apperr.New(apperr.NotFound, "no %s run %s", kind, storable.Clean(runID, 64))
	}
	info, err := scanInfo(tx.QueryRow(ctx, lockRunInfoSQL, runID, orgID, kind))
	if errors.Is(err, pgx.ErrNoRows) {
		return Info{}, apperr.New(apperr.NotFound, "no %s run %s", kind, runID)
	}
	if err != nil {
		return Info{}, fmt.Errorf("runs: abandon %s: %w", runID, err)
	}
	note := storable.Clean(fmt.Sprintf("abandoned by %s; last error: %s", actor, orNone(info.LastError)), storable.MaxMessage)
	switch info.Status {
	case Failed:
	case Running:
		tag, err := tx.Exec(ctx, abandonRunSQL, runID, note)
		if err != nil {
			return Info{}, fmt.Errorf("runs: abandon %s: %w", runID, err)
		}
		if tag.RowsAffected() == 0 {
			return Info{}, apperr.New(apperr.InvalidState, "run %s is being executed by a live worker; wait for it", runID)
		}
	default:
		return Info{}, apperr.New(apperr.InvalidState, "run %s is %s; only a failed or a stranded running run can be abandoned", runID, info.Status)
	}
	node := info.NextNode
	if node == "" { // a failed run: the node it failed at
		if err := tx.QueryRow(ctx, lastNodeSQL, runID).Scan(&node); err != nil {
			return Info{}, fmt.Errorf("runs: abandon %s: %w", runID, err)
		}
	}
	return info, insertCheckpoint(ctx, tx, runID, node, "failed", "", info.Data, note, actor, 0)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
