package desk

import (
	"context"

	"greatbook/internal/database"
)

// The statements the desk's tabs send, for the tests that read their plans.
var (
	TabCountsSQL     = tabCountsSQL
	SupplierNamesSQL = supplierNamesSQL
)

// QueueQuery is the statement Queue sends for f (its search's supplier
// names read first) and its arguments.
func QueueQuery(ctx context.Context, q database.Executor, orgID int64, f QueueFilter) (string, []any, error) {
	s, err := findSupplierNames(ctx, q, orgID, f.Query)
	sql, args, _ := queueQuery(orgID, f, s)
	return sql, args, err
}

// ListQuery is the statement List sends for f and limit, and its arguments.
func ListQuery(ctx context.Context, q database.Executor, orgID int64, f ListFilter, limit int) (string, []any, error) {
	s, err := findSupplierNames(ctx, q, orgID, f.Query)
	sql, args := listQuery(orgID, f, s, limit)
	return sql, args, err
}

var PrefixRange = prefixRange
