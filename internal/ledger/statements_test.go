package ledger_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// TestStatementsAreWhatAPostSends proves that the benchmark measures the
// product: ledger.Statements (which make bench runs through pgbench) are,
// statement for statement, what a new post and an exact replay send.
func TestStatementsAreWhatAPostSends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	pool, log := db.TracedPool(t)
	s := ledger.Statements

	if _, err := ledger.Post(ctx, pool, bill(o, "1")); err != nil {
		t.Fatal(err)
	}
	want := []string{"BEGIN", s.Lock, s.Lookup, s.Accounts, s.Insert, "COMMIT"}
	if got := log.Take(); !slices.Equal(got, want) {
		t.Errorf("a new post sent\n%s\nthe benchmark runs\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
	}
	if _, err := ledger.Post(ctx, pool, bill(o, "1")); err != nil {
		t.Fatal(err)
	}
	want = []string{"BEGIN", s.Lock, s.Lookup, "COMMIT"}
	if got := log.Take(); !slices.Equal(got, want) {
		t.Errorf("a replay sent\n%s\nthe benchmark runs\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
	}
}
