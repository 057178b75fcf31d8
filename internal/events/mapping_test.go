package events_test

import (
	"context"
	"testing"
	"time"

	"greatbook/internal/audit"
	"greatbook/internal/events"
	"greatbook/internal/testkit"
)

// TestEachAuditedChangeIsATypedEvent maps every audit action the feed
// projects to its type and fields, and leaves other audit rows (sign-ins,
// another org's changes) out.
func TestEachAuditedChangeIsATypedEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	org, other := testkit.Org(t, db), testkit.Org(t, db)
	sys := audit.System("bookkeeper")
	rows := []struct {
		event    audit.Event
		typ      string
		job, ent int64
		data     map[string]any
	}{
		{audit.Event{Action: "signin", SubjectType: "user", SubjectID: 1}, "", 0, 0, nil},
		{audit.Event{Action: "typed_in", SubjectType: "intake", SubjectID: 7, FromStatus: "flagged", ToStatus: "pending",
			Detail: map[string]any{"number": "INV-1"}}, events.DocumentTypedIn, 0, 0, map[string]any{"status": "pending", "number": "INV-1"}},
		{audit.Event{Action: "run_failed", SubjectType: "intake", SubjectID: 7, FromStatus: "launched", ToStatus: "failed",
			Detail: map[string]any{"job_id": 3, "error_class": "transient"}}, events.JobFailed, 3, 0, map[string]any{"stage": "run", "status": "failed"}},
		{audit.Event{Action: "run_failed", SubjectType: "intake", SubjectID: 7, FromStatus: "launched", ToStatus: "abandoned",
			Detail: map[string]any{"job_id": 3, "error_class": "permanent"}}, events.JobAbandoned, 3, 0, map[string]any{"stage": "run", "error_class": "permanent"}},
		{audit.Event{Action: "job_launched", SubjectType: "intake", SubjectID: 7, FromStatus: "failed", ToStatus: "launched",
			Detail: map[string]any{"job_id": 3, "attempt": 2, "trigger": "sweep"}}, events.JobLaunched, 3, 0, map[string]any{"attempt": float64(2), "trigger": "sweep"}},
		{audit.Event{Action: "job_launched", SubjectType: "intake", SubjectID: 7, FromStatus: "abandoned", ToStatus: "launched",
			Detail: map[string]any{"job_id": 3, "attempt": 3, "trigger": "operator: fixed"}}, events.JobRetried, 3, 0, map[string]any{"reason": "fixed"}},
		{audit.Event{Action: "posted", SubjectType: "intake", SubjectID: 7, FromStatus: "active", ToStatus: "posted",
			Detail: map[string]any{"job_id": 3, "entry_id": 41, "replayed": false}}, events.DocumentPosted, 3, 41, map[string]any{"status": "posted", "replayed": false}},
	}
	for _, r := range rows {
		r.event.OrgID, r.event.Actor = org.ID, sys
		if err := audit.Record(ctx, db.Pool, r.event); err != nil {
			t.Fatal(err)
		}
	}
	if err := audit.Record(ctx, db.Pool, audit.Event{OrgID: other.ID, Actor: sys, Action: "posted", SubjectType: "intake", SubjectID: 8}); err != nil {
		t.Fatal(err)
	}
	var got []events.Event
	testkit.Eventually(t, 10*time.Second, "the feed to show the rows", func() (bool, error) {
		var err error
		got, _, err = events.Read(ctx, db.Pool, org.ID, "", 0)
		return len(got) == len(rows)-1, err
	})
	for i, r := range rows[1:] {
		e := got[i]
		if e.Type != r.typ || e.Actor != "system:bookkeeper" || e.IntakeID == nil || *e.IntakeID != 7 {
			t.Errorf("%s: %+v", r.event.Action, e)
		}
		if (e.JobID == nil) != (r.job == 0) || e.JobID != nil && *e.JobID != r.job {
			t.Errorf("%s: job %v, want %d", r.event.Action, e.JobID, r.job)
		}
		if (e.EntryID == nil) != (r.ent == 0) || e.EntryID != nil && *e.EntryID != r.ent {
			t.Errorf("%s: entry %v, want %d", r.event.Action, e.EntryID, r.ent)
		}
		for k, v := range r.data {
			if e.Data[k] != v {
				t.Errorf("%s: data[%s] = %v, want %v (%v)", r.event.Action, k, e.Data[k], v, e.Data)
			}
		}
	}
}
