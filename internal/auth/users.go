// Package auth signs people in: users and their passwords, throttling of
// failed sign-ins, server-side web sessions and API tokens.
package auth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
)

// Role is what a user may do: reviewers decide documents, admins also
// operate (retry jobs, mark documents not duplicates).
type Role string

// The roles.
const (
	RoleReviewer Role = "reviewer"
	RoleAdmin    Role = "admin"
)

// User is a person who signs in. Every user belongs to one org.
type User struct {
	ID      int64
	OrgID   int64
	OrgSlug string
	OrgName string
	Email   string
	Role    Role
}

// IsAdmin reports whether u has the admin role.
func (u User) IsAdmin() bool { return u.Role == RoleAdmin }

// Actor returns u as the actor of audit events.
func (u User) Actor() audit.Actor { return audit.Actor{UserID: u.ID, Label: u.Email} }

// Service holds the database and the policies of sign-in.
type Service struct {
	DB       database.Beginner
	Q        database.Querier
	Password PasswordParams
	// Now is the clock; tests move it.
	Now func() time.Time
	// FreeFailures is how many consecutive failures pass without delay.
	FreeFailures int
	// MaxBlock caps the delay after repeated failures.
	MaxBlock time.Duration

	dummyOnce sync.Once
	dummyHash string
}

// NewService returns a Service with the default policies.
func NewService(db interface {
	database.Beginner
	database.Querier
}) *Service {
	return &Service{DB: db, Q: db, Password: DefaultPasswordParams, Now: time.Now, FreeFailures: 3, MaxBlock: 15 * time.Minute}
}

const userColumns = `u.id, u.org_id, o.slug, o.name, u.email, u.role`

func scanUser(row pgx.Row) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.OrgID, &u.OrgSlug, &u.OrgName, &u.Email, &u.Role)
	return u, err
}

// CreateUser adds a user to an org. Re-running with the same address, org and
// role keeps the user and sets the password (so scripts may re-run).
func (s *Service) CreateUser(ctx context.Context, orgID int64, email string, role Role, password string) (User, error) {
	email = strings.TrimSpace(email)
	if !strings.Contains(email, "@") || strings.ContainsAny(email, " \t\r\n") {
		return User{}, apperr.New(apperr.Invalid, "%q is not an email address", email)
	}
	if role != RoleReviewer && role != RoleAdmin {
		return User{}, apperr.New(apperr.Invalid, "role must be reviewer or admin, not %q", role)
	}
	if len([]rune(password)) < MinPasswordLength {
		return User{}, apperr.New(apperr.Invalid, "password must have at least %d characters", MinPasswordLength)
	}
	hash, err := HashPassword(password, s.Password)
	if err != nil {
		return User{}, err
	}
	return database.WithTxV(ctx, s.DB, func(tx pgx.Tx) (User, error) {
		var id, existingOrg int64
		var existingRole Role
		err := tx.QueryRow(ctx, `SELECT id, org_id, role FROM users WHERE lower(email) = lower($1) FOR UPDATE`, email).
			Scan(&id, &existingOrg, &existingRole)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			err = tx.QueryRow(ctx, `INSERT INTO users (org_id, email, role, password_hash) VALUES ($1, $2, $3, $4) RETURNING id`,
				orgID, email, role, hash).Scan(&id)
			if database.IsUniqueViolation(err, "users_email_key") {
				return User{}, apperr.New(apperr.InvalidState, "a user %s exists already", email)
			}
		case err == nil:
			if existingOrg != orgID || existingRole != role {
				return User{}, apperr.New(apperr.InvalidState, "a user %s exists already in another org or with another role", email)
			}
			_, err = tx.Exec(ctx, `UPDATE users SET password_hash = $2, failed_signins = 0, signin_blocked_until = NULL WHERE id = $1`, id, hash)
		}
		if err != nil {
			return User{}, fmt.Errorf("auth: create user: %w", err)
		}
		return scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+` FROM users u JOIN orgs o ON o.id = u.org_id WHERE u.id = $1`, id))
	})
}

// UserByID loads a user.
func (s *Service) UserByID(ctx context.Context, id int64) (User, error) {
	u, err := scanUser(s.Q.QueryRow(ctx, `SELECT `+userColumns+` FROM users u JOIN orgs o ON o.id = u.org_id WHERE u.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, apperr.New(apperr.Unauthorized, "no such user")
	}
	if err != nil {
		return User{}, fmt.Errorf("auth: load user: %w", err)
	}
	return u, nil
}

// UserByEmail loads a user by address.
func (s *Service) UserByEmail(ctx context.Context, email string) (User, error) {
	u, err := scanUser(s.Q.QueryRow(ctx, `SELECT `+userColumns+` FROM users u JOIN orgs o ON o.id = u.org_id WHERE lower(u.email) = lower($1)`, email))
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, apperr.New(apperr.NotFound, "no user %s", email)
	}
	if err != nil {
		return User{}, fmt.Errorf("auth: load user: %w", err)
	}
	return u, nil
}

// ErrBadCredentials is the one answer to a wrong address or password, so
// that sign-in does not reveal which addresses exist.
var ErrBadCredentials = apperr.New(apperr.Unauthorized, "wrong email or password")

// Authenticate checks an address and password. Failures are audited and
// counted per account; after FreeFailures consecutive failures the account
// refuses every attempt, right or wrong, for a delay that doubles with each
// further failure (capped at MaxBlock).
func (s *Service) Authenticate(ctx context.Context, email, password string) (User, error) {
	email = strings.TrimSpace(email)
	type account struct {
		user         User
		hash         string
		failures     int
		blockedUntil *time.Time
	}
	var a account
	row := s.Q.QueryRow(ctx, `SELECT `+userColumns+`, u.password_hash, u.failed_signins, u.signin_blocked_until
		FROM users u JOIN orgs o ON o.id = u.org_id WHERE lower(u.email) = lower($1)`, email)
	err := row.Scan(&a.user.ID, &a.user.OrgID, &a.user.OrgSlug, &a.user.OrgName, &a.user.Email, &a.user.Role,
		&a.hash, &a.failures, &a.blockedUntil)
	if errors.Is(err, pgx.ErrNoRows) {
		// Spend the same work as a real check so timing does not tell.
		_, _ = CheckPassword(password, s.dummy())
		_ = audit.Record(ctx, s.Q, audit.Event{Actor: audit.Actor{Label: email}, Action: "signin_failed",
			Detail: map[string]any{"reason": "unknown email"}})
		return User{}, ErrBadCredentials
	}
	if err != nil {
		return User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	now := s.Now()
	if a.blockedUntil != nil && now.Before(*a.blockedUntil) {
		wait := int(math.Ceil(a.blockedUntil.Sub(now).Seconds()))
		_ = audit.Record(ctx, s.Q, audit.Event{OrgID: a.user.OrgID, Actor: audit.Actor{Label: email}, Action: "signin_failed",
			SubjectType: "user", SubjectID: a.user.ID, Detail: map[string]any{"reason": "throttled"}})
		return User{}, apperr.New(apperr.RateLimited, "too many failed sign-ins for this account; try again in %d seconds", wait).
			With("retry_after", wait)
	}
	ok, err := CheckPassword(password, a.hash)
	if err != nil {
		return User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	if !ok {
		failures := a.failures + 1
		var until *time.Time
		if over := failures - s.FreeFailures; over >= 0 {
			delay := time.Second << min(over, 20)
			if delay > s.MaxBlock {
				delay = s.MaxBlock
			}
			t := now.Add(delay)
			until = &t
		}
		if _, err := s.Q.Exec(ctx, `UPDATE users SET failed_signins = $2, signin_blocked_until = $3 WHERE id = $1`,
			a.user.ID, failures, until); err != nil {
			return User{}, fmt.Errorf("auth: sign in: %w", err)
		}
		_ = audit.Record(ctx, s.Q, audit.Event{OrgID: a.user.OrgID, Actor: audit.Actor{Label: email}, Action: "signin_failed",
			SubjectType: "user", SubjectID: a.user.ID, Detail: map[string]any{"reason": "wrong password", "consecutive_failures": failures}})
		return User{}, ErrBadCredentials
	}
	if _, err := s.Q.Exec(ctx, `UPDATE users SET failed_signins = 0, signin_blocked_until = NULL WHERE id = $1 AND failed_signins <> 0`, a.user.ID); err != nil {
		return User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	if err := audit.Record(ctx, s.Q, audit.Event{OrgID: a.user.OrgID, Actor: a.user.Actor(), Action: "signin",
		SubjectType: "user", SubjectID: a.user.ID}); err != nil {
		return User{}, err
	}
	return a.user, nil
}

func (s *Service) dummy() string {
	s.dummyOnce.Do(func() { s.dummyHash, _ = HashPassword("not a real password", s.Password) })
	return s.dummyHash
}
