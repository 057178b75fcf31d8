package bookkeeper_test

import (
	"context"
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/testkit"
)

// An answer given while the database is away is not told "no such
// question" (a 404 never logged): it is the outage, answered 503.
func TestAnAnswerDuringAnOutageIsNotNotFound(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	a := app.New(db.Pool, app.Config{Logger: testkit.Logger(t)})
	testkit.RefuseConnections(t, db)
	err := a.Bookkeeper.Answer(context.Background(), o.ID, "00000000-0000-0000-0000-000000000001",
		map[string]string{"account": "6000"}, false, audit.System("test"))
	if err == nil || apperr.Is(err, apperr.NotFound) || !database.IsUnavailable(err) {
		t.Fatalf("got %v, want an unavailable error that is not not-found", err)
	}
}
