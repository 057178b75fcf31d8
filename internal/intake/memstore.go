package intake

import (
	"context"
	"sync"
	"time"

	"greatbook/internal/apperr"
)

// MemoryStore is the in-memory store for offline pipeline tests. It
// enforces the same partial unique natural key as PostgreSQL's
// intake_natural_key: among rows not filed as duplicates, not marked
// distinct and not rejected, one row per (org, doc type, source ref).
type MemoryStore struct {
	mu        sync.Mutex
	docs      []*Document
	originals map[int64][]byte
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore { return &MemoryStore{originals: map[int64][]byte{}} }

// holdsKey mirrors the partial index's predicate.
func holdsKey(d *Document) bool {
	return d.DuplicateOf == 0 && d.DistinctFrom == 0 && d.Status != Rejected && d.SourceRef != ""
}

// Ingest implements Store.
func (m *MemoryStore) Ingest(_ context.Context, a Arrival) (Document, bool, error) {
	if err := checkArrival(a); err != nil {
		return Document{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	hash := ContentHash(a.Content)
	for _, d := range m.docs {
		if d.OrgID == a.OrgID && d.ContentHash == hash {
			return *d, false, nil
		}
	}
	now := time.Now()
	d := &Document{ID: int64(len(m.docs) + 1), OrgID: a.OrgID, ContentHash: hash, MediaType: a.MediaType, Filename: CleanFilename(a.Filename),
		Size: len(a.Content), Via: a.Via, ReceivedBy: a.Actor, PipelineRunID: a.RunID, Status: Received,
		TypewriterVersionID: a.TypewriterVersionID, VersionGroup: a.VersionGroup,
		Findings: []byte("[]"), ReceivedAt: now, UpdatedAt: now}
	m.docs = append(m.docs, d)
	m.originals[d.ID] = append([]byte(nil), a.Content...)
	return *d, true, nil
}

// Queue implements Store.
func (m *MemoryStore) Queue(_ context.Context, id int64, f Filing) (Document, error) {
	return m.file(id, f, func(d *Document) bool { return d.Status == Received }, ErrNotReceived)
}

// Refile implements Store.
func (m *MemoryStore) Refile(_ context.Context, id int64, f Filing) (Document, error) {
	return m.file(id, f, func(d *Document) bool {
		return d.Status == Flagged && NeedsFields(d.FlagReason)
	}, ErrNotRefileable)
}

func (m *MemoryStore) file(id int64, f Filing, from func(*Document) bool, errWrongState error) (Document, error) {
	if err := checkFiling(f); err != nil {
		return Document{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if id < 1 || int(id) > len(m.docs) {
		return Document{}, apperr.New(apperr.NotFound, "no document %d", id)
	}
	me := m.docs[id-1]
	if !from(me) {
		return Document{}, errWrongState
	}
	if me.VersionGroup != 0 && f.DuplicateOf == 0 && f.FlagReason != FlagDuplicate {
		// The version-group guard, under the store's lock.
		var incumbent *Document
		rank := func(d *Document) [3]bool {
			return [3]bool{d.Status == Active || d.Status == Posted || d.ResultEntryID != 0, d.DuplicateOf == 0, true}
		}
		for _, d := range m.docs {
			if d.ID == id || d.VersionGroup != me.VersionGroup || d.Status == Rejected || d.Status == Received {
				continue
			}
			if incumbent == nil || better(rank(d), rank(incumbent)) {
				incumbent = d
			}
		}
		if incumbent != nil {
			f.FlagReason, f.DuplicateOf, f.DuplicateReason = FlagDuplicate, incumbent.ID, NewerVersion
		}
	}
	candidate := *me
	candidate.DocType, candidate.SourceRef, candidate.ContentKey = f.DocType, f.SourceRef, f.ContentKey
	candidate.DuplicateOf, candidate.DuplicateReason = f.DuplicateOf, f.DuplicateReason
	candidate.Status = Pending
	if f.FlagReason != "" {
		candidate.Status = Flagged
	}
	if holdsKey(&candidate) {
		for _, d := range m.docs {
			if d.ID != id && d.OrgID == me.OrgID && holdsKey(d) && d.DocType == f.DocType && d.SourceRef == f.SourceRef {
				return Document{}, &NaturalKeyConflict{DocType: f.DocType, SourceRef: f.SourceRef, Incumbent: d.ID, Reason: SameReference}
			}
		}
	}
	if f.DuplicateOf == 0 && f.FlagReason != FlagDuplicate && f.ContentKey != "" {
		for _, d := range m.docs {
			if d.ID != id && d.OrgID == me.OrgID && d.ContentKey == f.ContentKey && d.DuplicateOf == 0 && d.DistinctFrom == 0 &&
				d.Status != Rejected && d.Status != Received && d.SourceRef != f.SourceRef {
				return Document{}, &NaturalKeyConflict{DocType: f.DocType, SourceRef: f.SourceRef, Incumbent: d.ID, Reason: SameContent}
			}
		}
	}
	now := time.Now()
	candidate.Format, candidate.Profile, candidate.Fields, candidate.Findings, candidate.FlagReason = f.Format, f.Profile, f.Fields, f.Findings, f.FlagReason
	if candidate.Findings == nil {
		candidate.Findings = []byte("[]")
	}
	if candidate.QueuedAt == nil {
		candidate.QueuedAt = &now
	}
	candidate.UpdatedAt = now
	*me = candidate
	return candidate, nil
}

// Get implements Store.
func (m *MemoryStore) Get(_ context.Context, orgID, id int64) (Document, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id < 1 || int(id) > len(m.docs) || m.docs[id-1].OrgID != orgID {
		return Document{}, apperr.New(apperr.NotFound, "no document %d", id)
	}
	return *m.docs[id-1], nil
}

// Original returns a document's bytes.
func (m *MemoryStore) Original(id int64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.originals[id]
}

// Reject marks a row rejected (so tests can show a rejected row gives up
// its natural key).
func (m *MemoryStore) Reject(id int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.docs[id-1].Status = Rejected
}

// better orders incumbents as versionIncumbentSQL does (ties: the older,
// which the scan meets first).
func better(a, b [3]bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i]
		}
	}
	return false
}
