package intake_test

import (
	"context"
	"testing"

	"greatbook/internal/intake"
	"greatbook/internal/intake/intaketest"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestConformanceMemory(t *testing.T) {
	t.Parallel()
	intaketest.Exercise(t, func(t *testing.T) intaketest.Fixture {
		s := intake.NewMemoryStore()
		return intaketest.Fixture{Store: s, OrgA: 1, OrgB: 2, Concurrently: 16,
			Reject: func(t *testing.T, id int64) { s.Reject(id) }}
	})
}

func TestConformancePostgres(t *testing.T) {
	t.Parallel()
	intaketest.Exercise(t, func(t *testing.T) intaketest.Fixture {
		db := testkit.NewDB(t)
		a, b := testkit.Org(t, db), testkit.Org(t, db)
		return intaketest.Fixture{Store: intake.NewPGStore(db.Pool), OrgA: a.ID, OrgB: b.ID, Concurrently: 16,
			Reject: func(t *testing.T, id int64) {
				if _, err := db.Pool.Exec(context.Background(), `UPDATE intake_documents SET status = 'rejected' WHERE id = $1`, id); err != nil {
					t.Fatal(err)
				}
			}}
	})
}
