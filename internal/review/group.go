package review

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/intake"
)

// Member is a document of a duplicate group, as the group's rule and its
// pages see it.
type Member struct {
	ID              int64         `json:"id"`
	Status          intake.Status `json:"status"`
	DuplicateOf     int64         `json:"-"`
	DuplicateReason string        `json:"-"`
	ResultEntryID   int64         `json:"-"`
	DecidedBy       string        `json:"-"`
	DecidedAt       *time.Time    `json:"-"`
	SourceRef       string        `json:"-"`
	Filename        string        `json:"-"`
	DocType         string        `json:"-"`
	FlagReason      string        `json:"-"`
	HasFields       bool          `json:"-"`
	// NothingToPost: every amount the bookkeeper would post is zero.
	NothingToPost bool `json:"-"`
	// Findings are the pipeline's findings as filed (JSON), read where a
	// decision depends on them: approving an invalid e-invoice.
	Findings []byte `json:"-"`
	// Format is how the document was read: ubl, cii, ..., text or ocr.
	Format string `json:"-"`
}

// Accepted reports whether a member has entered, or is entering, the
// ledger: active, posted, or holding a journal entry.
func (m Member) Accepted() bool {
	return m.Status == intake.Active || m.Status == intake.Posted || m.ResultEntryID != 0
}

// nothingToPost reports whether every amount the bookkeeper would post of
// the member is zero.
func (m Member) nothingToPost() bool {
	return m.NothingToPost || m.FlagReason == intake.FlagNothingToPost
}

func scanMember(r pgx.CollectableRow) (Member, error) {
	var m Member
	err := r.Scan(&m.ID, &m.Status, &m.DuplicateOf, &m.DuplicateReason, &m.ResultEntryID, &m.DecidedBy, &m.DecidedAt, &m.SourceRef,
		&m.Filename, &m.DocType, &m.FlagReason, &m.HasFields, &m.NothingToPost, &m.Findings, &m.Format)
	return m, err
}

// Group returns the duplicate group of a document (itself included), by id.
// A document that is not the org's has no group: not_found, so that no
// caller answers for another org's id as if it were an empty group.
func Group(ctx context.Context, q database.Executor, orgID, id int64) ([]Member, error) {
	rows, err := q.Query(ctx, groupSQL, id, orgID)
	if err != nil {
		return nil, fmt.Errorf("review: group of %d: %w", id, err)
	}
	members, err := pgx.CollectRows(rows, scanMember)
	if err != nil {
		return nil, fmt.Errorf("review: group of %d: %w", id, err)
	}
	if len(members) == 0 {
		return nil, apperr.New(apperr.NotFound, "no document %d", id)
	}
	return members, nil
}

// Groups are the duplicate groups of ids (each by id, itself included), as
// Group reads one.
func Groups(ctx context.Context, q database.Executor, orgID int64, ids []int64) (map[int64][]Member, error) {
	rows, err := q.Query(ctx, groupsSQL, ids, orgID)
	if err != nil {
		return nil, fmt.Errorf("review: groups: %w", err)
	}
	defer rows.Close()
	out := make(map[int64][]Member, len(ids))
	for rows.Next() {
		var seed int64
		var m Member
		if err := rows.Scan(&seed, &m.ID, &m.Status, &m.DuplicateOf, &m.DuplicateReason, &m.ResultEntryID, &m.DecidedBy, &m.DecidedAt,
			&m.SourceRef, &m.Filename, &m.DocType, &m.FlagReason, &m.HasFields, &m.NothingToPost, &m.Findings, &m.Format); err != nil {
			return nil, fmt.Errorf("review: groups: %w", err)
		}
		out[seed] = append(out[seed], m)
	}
	return out, rows.Err()
}

// Blocking describes the accepted member of a group that refuses an approve.
type Blocking struct {
	ID         int64         `json:"id"`
	Status     intake.Status `json:"status"`
	ApprovedBy string        `json:"approved_by,omitempty"`
	ApprovedAt *time.Time    `json:"approved_at,omitempty"`
	EntryID    int64         `json:"entry_id,omitempty"`
}

// BlockedBy returns the accepted member of a group that would refuse an
// approve of id, if there is one: what the decision panel explains before
// anyone presses approve.
func BlockedBy(group []Member, id int64) (Blocking, bool) {
	for _, m := range group {
		if m.ID != id && m.Accepted() {
			return m.blocking(), true
		}
	}
	return Blocking{}, false
}

func (m Member) blocking() Blocking {
	return Blocking{ID: m.ID, Status: m.Status, ApprovedBy: m.DecidedBy, ApprovedAt: m.DecidedAt, EntryID: m.ResultEntryID}
}

func groupConflict(id int64, m Member) error {
	b := m.blocking()
	msg := fmt.Sprintf("document %d is in a duplicate group whose member %d is already %s", id, m.ID, m.Status)
	if m.DecidedBy != "" && m.DecidedAt != nil {
		msg += fmt.Sprintf(" (approved by %s at %s)", m.DecidedBy, m.DecidedAt.UTC().Format(time.RFC3339))
	}
	if m.ResultEntryID != 0 {
		msg += fmt.Sprintf(", journal entry %d", m.ResultEntryID)
	}
	return apperr.New(apperr.DuplicateGroupConflict, "%s; the group may enter the ledger once", msg).With("blocking", b)
}
