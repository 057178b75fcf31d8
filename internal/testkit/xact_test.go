package testkit_test

import (
	"testing"

	"greatbook/internal/testkit"
)

func TestAdvanceTransactionIDsReachesTheID(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	start := testkit.CurrentTransactionID(t, db)
	testkit.AdvanceTransactionIDs(t, db, start+60_000)
	if got := testkit.CurrentTransactionID(t, db); got < start+60_000 {
		t.Fatalf("next id %d, want at least %d", got, start+60_000)
	}
}
