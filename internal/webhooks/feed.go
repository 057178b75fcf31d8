package webhooks

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// feedHead is the feed position a new endpoint starts from.
func feedHead(ctx context.Context, tx pgx.Tx, orgID int64) (string, error) { return "", nil }

func (s *Service) dispatchLoop(ctx context.Context) { <-ctx.Done() }
