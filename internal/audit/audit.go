// Package audit appends to the audit trail: who did what to which object,
// and when. Writers pass their own transaction so that an event is recorded
// exactly when the change it describes commits.
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"greatbook/internal/database"
)

// Actor is whoever caused an event: a signed-in user or a part of the system.
type Actor struct {
	UserID int64  // 0 for the system
	Label  string // the user's email, or "system:sweep", "system:bookkeeper", ...
}

// System returns the actor for an automatic part of greatbook.
func System(part string) Actor { return Actor{Label: "system:" + part} }

// Event is one entry of the audit trail.
type Event struct {
	ID          int64          `json:"id"`
	OrgID       int64          `json:"org_id"`
	Actor       Actor          `json:"-"`
	ActorLabel  string         `json:"actor"`
	Action      string         `json:"action"`
	SubjectType string         `json:"subject_type,omitempty"`
	SubjectID   int64          `json:"subject_id,omitempty"`
	FromStatus  string         `json:"from_status,omitempty"`
	ToStatus    string         `json:"to_status,omitempty"`
	Detail      map[string]any `json:"detail,omitempty"`
	CreatedAt   time.Time      `json:"created_at"`
}

// Record appends e using q, which is normally the caller's transaction.
func Record(ctx context.Context, q database.Executor, e Event) error {
	detail, err := json.Marshal(e.Detail)
	if err != nil {
		return fmt.Errorf("audit: encode detail: %w", err)
	}
	if e.Detail == nil {
		detail = []byte("{}")
	}
	var orgID *int64
	if e.OrgID != 0 {
		orgID = &e.OrgID
	}
	_, err = q.Exec(ctx, InsertSQL, orgID, e.Actor.UserID, e.Actor.Label, e.Action, e.SubjectType, e.SubjectID, e.FromStatus, e.ToStatus, detail)
	if err != nil {
		return fmt.Errorf("audit: record %s: %w", e.Action, err)
	}
	return nil
}

// ForSubject returns the events about one object, oldest first.
func ForSubject(ctx context.Context, q database.Executor, orgID int64, subjectType string, subjectID int64) ([]Event, error) {
	rows, err := q.Query(ctx, eventsForSubjectSQL, orgID, subjectType, subjectID)
	if err != nil {
		return nil, fmt.Errorf("audit: list events: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.ID, &e.OrgID, &e.Actor.UserID, &e.ActorLabel, &e.Action, &e.SubjectType,
			&e.SubjectID, &e.FromStatus, &e.ToStatus, &e.Detail, &e.CreatedAt); err != nil {
			return nil, fmt.Errorf("audit: list events: %w", err)
		}
		e.Actor.Label = e.ActorLabel
		out = append(out, e)
	}
	return out, rows.Err()
}
