package ledger

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The source types the product writes under itself. Nobody else may post
// under them: a client posting under the bookkeeper's key of a pending
// document would turn the later approval into a replay conflict.
const (
	// SourceTypeIntake is the bookkeeper's: the entry of an approved
	// intake document, source id the document's id in decimal.
	SourceTypeIntake = "intake"
	// SourceTypePayment is the bank statements' reconciliation's: a paid
	// (or returned) payment, source id the payment item's id in decimal.
	SourceTypePayment = "payment"
	// SourceTypeBench is the benchmark's replay targets (greatbook bench).
	SourceTypeBench = "bench"
	// SourceTypeBenchHistory is the benchmark's seeded history.
	SourceTypeBenchHistory = "history"
)

// ReservedSourceTypes lists every source type the product writes itself.
// The JSON API refuses them (PostForClient); reversing an entry written
// under one stays possible, since a reversal keeps its original's type.
var ReservedSourceTypes = []string{SourceTypeIntake, SourceTypePayment, SourceTypeBench, SourceTypeBenchHistory}

// IsReservedSourceType reports whether only the product may post under t.
func IsReservedSourceType(t string) bool { return slices.Contains(ReservedSourceTypes, t) }

// PostForClient posts an entry a client asked for (the JSON API) and
// records what it saw for the source-key explorer. A source type the
// product writes itself is refused as invalid, before anything is read or
// recorded under that key. It posts in a transaction of its own, as Post.
func PostForClient(ctx context.Context, pool *pgxpool.Pool, req Request) (Result, error) {
	if IsReservedSourceType(req.SourceType) {
		return Result{}, invalid([]Reason{{Field: "source_type", Message: fmt.Sprintf(
			"%q is reserved to the product's own writers (%s); choose another source type",
			req.SourceType, strings.Join(ReservedSourceTypes, ", "))}})
	}
	res, err := Post(ctx, pool, req)
	Observe(ctx, pool, req, res, err)
	return res, err
}
