package bookkeeper

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
)

// QuestionPosition is a question's place in the oldest-first order of
// QuestionPage: when it was asked, then its run id (unique, so the order is
// total and a page boundary never moves).
type QuestionPosition struct {
	AskedAt time.Time
	RunID   string
}

// QuestionPage lists up to limit of an org's open questions, oldest first
// as Questions does, after the position (nil: from the oldest); more says
// there is another page. A question asked while a client pages is asked
// later than every question it has seen, so it comes on a later page.
func (b *Bookkeeper) QuestionPage(ctx context.Context, orgID int64, after *QuestionPosition, limit int) (qs []Question, more bool, err error) {
	if limit < 1 {
		return nil, false, apperr.New(apperr.Invalid, "the parameter limit must be at least 1").With("parameter", "limit")
	}
	sql := questionsPageSQL
	args := []any{orgID, Kind, limit + 1}
	if after != nil {
		sql += questionsPageAfter
		args = append(args, after.AskedAt, after.RunID)
	}
	rows, err := b.pool.Query(ctx, sql+questionsPageOrder, args...)
	if err != nil {
		return nil, false, fmt.Errorf("bookkeeper: questions: %w", err)
	}
	qs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Question, error) {
		var qu Question
		var raw []byte
		if err := r.Scan(&qu.RunID, &qu.IntakeID, &raw, &qu.AskedAt); err != nil {
			return qu, err
		}
		return qu, json.Unmarshal(raw, &qu.Question)
	})
	if err != nil {
		return nil, false, fmt.Errorf("bookkeeper: questions: %w", err)
	}
	if len(qs) > limit {
		return qs[:limit], true, nil
	}
	return qs, false, nil
}
