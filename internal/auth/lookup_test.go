package auth_test

import (
	"context"
	"testing"

	"greatbook/internal/apperr"
	"greatbook/internal/auth"
	"greatbook/internal/database"
	"greatbook/internal/testkit"
)

func TestUserLookupsTellAnOutageFromAMissingUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o, other := testkit.Org(t, db), testkit.Org(t, db)
	u := testkit.User(t, db, o, auth.RoleReviewer)
	svc := auth.NewService(db.Pool)

	if got, err := svc.UserInOrg(ctx, o.ID, u.ID); err != nil || got.ID != u.ID {
		t.Fatalf("own org's user: %+v, %v", got, err)
	}
	if _, err := svc.UserInOrg(ctx, other.ID, u.ID); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("another org's user: got %v, want not found", err)
	}

	testkit.RefuseConnections(t, db)
	_, err := svc.UserInOrg(ctx, o.ID, u.ID)
	if err == nil || apperr.Is(err, apperr.NotFound) || !database.IsUnavailable(err) {
		t.Fatalf("UserInOrg with the database gone: got %v, want an unavailable error that is not not-found", err)
	}
	_, err = svc.UserByID(ctx, u.ID)
	if err == nil || apperr.Is(err, apperr.Unauthorized) || !database.IsUnavailable(err) {
		t.Fatalf("UserByID with the database gone: got %v, want an unavailable error that is not unauthorized", err)
	}
}
