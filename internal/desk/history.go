package desk

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/intake"
	"greatbook/internal/review"
	"greatbook/internal/runs"
)

// HistoryItem is one moment in a document's life.
type HistoryItem struct {
	At     time.Time
	Actor  string
	Source string // "intake", "pipeline", "bookkeeper", "audit"
	What   string
	Detail string
	Tone   string // "", "good", "bad", "wait"
}

// history is a document's one readable history: its arrival, each pipeline
// step and repair, its filing, the decisions on it, each launch attempt,
// each bookkeeping step and its journal entry — from the audit trail and the
// run checkpoints, oldest first.
func history(ctx context.Context, q database.Executor, orgID, id int64) ([]HistoryItem, error) {
	doc, err := intake.GetDocument(ctx, q, orgID, id)
	if err != nil {
		return nil, err
	}
	items := []HistoryItem{{At: doc.ReceivedAt, Actor: doc.ReceivedBy, Source: "intake",
		What: "received by " + doc.Via, Detail: fmt.Sprintf("%s, %d bytes", orNone2(doc.Filename, doc.MediaType), doc.Size)}}
	events, err := audit.ForSubject(ctx, q, orgID, "intake", id)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		it := HistoryItem{At: e.CreatedAt, Actor: e.ActorLabel, Source: "audit"}
		str := func(k string) string { s, _ := e.Detail[k].(string); return s }
		num := func(k string) string {
			if v, ok := e.Detail[k]; ok && v != nil {
				return fmt.Sprint(v)
			}
			return ""
		}
		switch e.Action {
		case "received", "filed":
			// The arrival is the first item already, and the filing is the
			// pipeline's last step; these rows are for the event feed.
			continue
		case "approve":
			it.What, it.Tone = fmt.Sprintf("approved (%s → %s)", intake.StatusWords(intake.Status(e.FromStatus)), intake.StatusWords(intake.Status(e.ToStatus))), "good"
		case "reject":
			it.What, it.Detail, it.Tone = "rejected", str("reason"), "bad"
		case "typed_in":
			it.What = fmt.Sprintf("fields typed in (%s → %s)", intake.StatusWords(intake.Status(e.FromStatus)), intake.StatusWords(intake.Status(e.ToStatus)))
		case "not_a_duplicate":
			it.What, it.Detail = "marked not a duplicate of document "+num("was_duplicate_of"), str("reason")
		case "job_launched":
			it.What = fmt.Sprintf("bookkeeping launched (job %s, attempt %s, by %s)", num("job_id"), num("attempt"), str("trigger"))
		case "launch_failed":
			it.What, it.Detail, it.Tone = fmt.Sprintf("launch failed (%s, attempt %s)", str("error_class"), num("attempt")), str("error"), "bad"
		case "run_failed":
			it.What, it.Detail, it.Tone = fmt.Sprintf("bookkeeping failed (%s)", str("error_class")), str("error"), "bad"
		case "posted":
			it.What, it.Tone = "posted as journal entry "+num("entry_id"), "good"
			if r, _ := e.Detail["replayed"].(bool); r {
				it.Detail = "the ledger replayed an entry posted before a crash"
			}
		default:
			it.What = strings.ReplaceAll(e.Action, "_", " ")
		}
		items = append(items, it)
	}
	for _, kind := range []string{"pipeline", "bookkeeper"} {
		infos, err := runs.ForSubject(ctx, q, orgID, kind, id)
		if err != nil {
			return nil, err
		}
		for _, info := range infos {
			cps, err := runs.Checkpoints(ctx, q, info.ID)
			if err != nil {
				return nil, err
			}
			for _, cp := range cps {
				it := HistoryItem{At: cp.CreatedAt, Actor: "system:" + kind, Source: kind, What: cp.Node, Detail: cp.Note}
				switch cp.Outcome {
				case "retry":
					it.What, it.Tone = cp.Node+" (retrying)", "wait"
				case "paused":
					it.What, it.Tone = cp.Node+" paused: a question for a person", "wait"
				case "resumed":
					it.What = cp.Node + " resumed"
				case "failed":
					it.What, it.Tone = cp.Node+" failed", "bad"
				}
				items = append(items, it)
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].At.Before(items[j].At) })
	return items, nil
}

func orNone2(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// GroupSignature identifies the state of document id's group as its reader
// (decided_by label reader) did not make it: it changes whenever someone
// else files, decides or posts a member, or decides document id itself. The
// reader's own decision on document id, and the posting that follows it,
// leave it as it was, so that a reviewer's page never reports their own
// action as a change made while they were looking (the decision region
// shows that outcome itself).
func GroupSignature(members []review.Member, id int64, reader string) string {
	s := ""
	for _, m := range members {
		if m.ID == id {
			decider := m.DecidedBy
			if decider == reader {
				decider = ""
			}
			s += fmt.Sprintf("%d:%d:%s;", m.ID, m.DuplicateOf, decider)
			continue
		}
		s += fmt.Sprintf("%d:%s:%d:%d;", m.ID, m.Status, m.DuplicateOf, m.ResultEntryID)
	}
	return fmt.Sprintf("%x", fnv64(s))
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
