package testkit

import (
	"context"
	"fmt"
	"strconv"
	"testing"
)

// CurrentTransactionID returns the id the server gives the next writing
// transaction (one is used up to find it).
func CurrentTransactionID(t testing.TB, db *DB) uint64 {
	t.Helper()
	var s string
	if err := db.Pool.QueryRow(context.Background(), `SELECT pg_current_xact_id()::text`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	x, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return x + 1
}

// AdvanceTransactionIDs uses up transaction ids until the server's next one
// is at least next: so that a test can cross a point a long-lived server
// passes (999 → 1,000, 9,999 → 10,000), whatever the cluster's age. The ids
// are spent as subtransactions of one transaction (one round trip per
// 50,000); the server is shared by the test binary, and ids only grow.
func AdvanceTransactionIDs(t testing.TB, db *DB, next uint64) {
	t.Helper()
	ctx := context.Background()
	conn := db.Conn(t)
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE IF NOT EXISTS spent_xact (n int)`); err != nil {
		t.Fatal(err)
	}
	for {
		cur := CurrentTransactionID(t, db)
		if cur >= next {
			return
		}
		n := min(next-cur, 50_000)
		// Each block with an exception handler is a subtransaction, and its
		// insert gives it an id of its own.
		if _, err := conn.Exec(ctx, fmt.Sprintf(`DO $$ BEGIN FOR i IN 1..%d LOOP
			BEGIN INSERT INTO spent_xact VALUES (i); EXCEPTION WHEN others THEN NULL; END;
			END LOOP; END $$`, n)); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, `TRUNCATE spent_xact`); err != nil {
			t.Fatal(err)
		}
	}
}
