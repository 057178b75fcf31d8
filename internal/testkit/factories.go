package testkit

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
)

var seq atomic.Int64

// OrgSeeders are run for every org a test creates, as `greatbook org add` does.
var OrgSeeders = []org.Seeder{ledger.SeedDefaultChart}

// Org creates an org with a unique slug and base currency EUR.
func Org(t testing.TB, db *DB) org.Org {
	t.Helper()
	return OrgWith(t, db, fmt.Sprintf("org-%d", seq.Add(1)), "EUR")
}

// OrgWith creates an org with the given slug and base currency.
func OrgWith(t testing.TB, db *DB, slug, currency string) org.Org {
	t.Helper()
	o, _, err := org.Create(context.Background(), db.Pool, slug, "Org "+slug, currency, OrgSeeders...)
	if err != nil {
		t.Fatalf("testkit: org: %v", err)
	}
	return o
}

// TestPassword is the password of every user testkit creates.
const TestPassword = "correct horse battery"

// FastPasswords are cheap argon2id parameters for tests.
var FastPasswords = auth.PasswordParams{Memory: 1024, Time: 1, Threads: 1}

// User creates a user with the role in the org.
func User(t testing.TB, db *DB, o org.Org, role auth.Role) auth.User {
	t.Helper()
	svc := auth.NewService(db.Pool)
	svc.Password = FastPasswords
	u, err := svc.CreateUser(context.Background(), o.ID, fmt.Sprintf("%s-%d@%s.test", role, seq.Add(1), o.Slug), role, TestPassword)
	if err != nil {
		t.Fatalf("testkit: user: %v", err)
	}
	return u
}

// Token creates an API token for u.
func Token(t testing.TB, db *DB, u auth.User) string {
	t.Helper()
	tok, err := auth.NewService(db.Pool).CreateAPIToken(context.Background(), u.ID)
	if err != nil {
		t.Fatalf("testkit: token: %v", err)
	}
	return tok
}

// Count returns the number of rows of a query like "SELECT count(*) FROM x".
func Count(t testing.TB, db *DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("testkit: %s: %v", query, err)
	}
	return n
}
