package events_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"greatbook/internal/events"
	"greatbook/internal/testkit"
	"greatbook/migrations"
)

// TestAuditRowsWrittenBeforeTheFeedAreInItInIdOrder: rows of the audit
// trail written before migration 00019 take the migration's transaction and
// are replayed in the order of their ids.
func TestAuditRowsWrittenBeforeTheFeedAreInItInIdOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewEmptyDB(t)
	sqlDB := stdlib.OpenDBFromPool(db.Pool)
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.UpTo(ctx, 17); err != nil {
		t.Fatal(err)
	}
	var org int64
	if err := db.Pool.QueryRow(ctx, `INSERT INTO orgs (slug, name, base_currency) VALUES ('old', 'Old', 'EUR') RETURNING id`).Scan(&org); err != nil {
		t.Fatal(err)
	}
	// Three rows, each in a transaction of its own.
	for _, n := range []int{1, 2, 3} {
		if _, err := db.Pool.Exec(ctx, `INSERT INTO audit_events (org_id, actor, action, subject_type, subject_id, detail)
			VALUES ($1, 'old', 'reject', 'intake', $2, jsonb_build_object('reason', $3::text))`, org, n, fmt.Sprint(n)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := provider.UpTo(ctx, 19); err != nil {
		t.Fatal(err)
	}
	f := &follower{db: db, org: org}
	testkit.Eventually(t, 10*time.Second, "the old rows in the feed", func() (bool, error) {
		f.read(t)
		return len(f.seen) >= 3, nil
	})
	if got := fmt.Sprint(f.reasons()); got != "[1 2 3]" {
		t.Fatalf("old rows replayed as %s, want [1 2 3]", got)
	}
	var xacts int
	if err := db.Pool.QueryRow(ctx, `SELECT count(DISTINCT xact) FROM audit_events`).Scan(&xacts); err != nil || xacts != 1 {
		t.Fatalf("old rows have %d transaction ids (%v); want the migration's one", xacts, err)
	}
	if _, _, err := events.Read(ctx, db.Pool, org, f.cursor, 0); err != nil {
		t.Fatal(err)
	}
}
