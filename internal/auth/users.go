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
	"greatbook/internal/failpoint"
	"greatbook/internal/org"
	"greatbook/internal/storable"
)

// Role is what a user may do: reviewers decide documents, admins also
// operate their org (retry jobs, mark documents not duplicates), and an
// instance operator, in no org, watches and retries the runs and dead
// letters of every org but decides no document.
type Role string

// The roles.
const (
	RoleReviewer Role = "reviewer"
	RoleAdmin    Role = "admin"
	RoleOperator Role = "operator"
)

// User is a person who signs in. Every user but an operator belongs to one
// org; an operator's OrgID is 0.
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

// IsOperator reports whether u is an instance operator (in no org).
func (u User) IsOperator() bool { return u.Role == RoleOperator }

// Scope is whose runs, jobs and metrics u may read: an operator every org's,
// anyone else their own org's only.
func (u User) Scope() org.Scope {
	if u.IsOperator() {
		return org.AllOrgs()
	}
	return org.Only(u.OrgID)
}

// Actor returns u as the actor of audit events.
func (u User) Actor() audit.Actor { return audit.Actor{UserID: u.ID, Label: u.Email} }

// Service holds the database and the policies of sign-in.
type Service struct {
	DB       database.Executor
	Password PasswordParams
	// Now is the clock; tests move it.
	Now func() time.Time
	// FreeFailures is how many consecutive failures pass without delay.
	FreeFailures int
	// MaxBlock caps the delay after repeated failures.
	MaxBlock time.Duration

	// Failpoints act at FailpointBeforePasswordCheck (failpoint.Env, the
	// process's; tests hold sign-ins there).
	Failpoints failpoint.Injector

	dummyOnce sync.Once
	dummyHash string
}

// FailpointBeforePasswordCheck is in a sign-in, its attempt claimed, just
// before its password is checked.
const FailpointBeforePasswordCheck = "auth/before-password-check"

// NewService returns a Service with the default policies.
func NewService(db database.Executor) *Service {
	return &Service{DB: db, Password: DefaultPasswordParams, Now: time.Now, FreeFailures: 3, MaxBlock: 15 * time.Minute,
		Failpoints: failpoint.Env{}}
}

func scanUser(row pgx.Row) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.OrgID, &u.OrgSlug, &u.OrgName, &u.Email, &u.Role)
	return u, err
}

// CreateUser adds a user to an org, or an operator to none (orgID 0, and
// only for an operator). Re-running with the same address, org and
// role keeps the user and sets the password (so scripts may re-run).
func (s *Service) CreateUser(ctx context.Context, orgID int64, email string, role Role, password string) (User, error) {
	email = strings.TrimSpace(email)
	if !strings.Contains(email, "@") || strings.ContainsAny(email, " \t\r\n") {
		return User{}, apperr.New(apperr.Invalid, "%q is not an email address", email)
	}
	switch {
	case role != RoleReviewer && role != RoleAdmin && role != RoleOperator:
		return User{}, apperr.New(apperr.Invalid, "role must be reviewer, admin or operator, not %q", role)
	case role == RoleOperator && orgID != 0:
		return User{}, apperr.New(apperr.Invalid, "an operator belongs to no org")
	case role != RoleOperator && orgID == 0:
		return User{}, apperr.New(apperr.Invalid, "a %s belongs to an org", role)
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
		err := tx.QueryRow(ctx, lockUserByEmailSQL, email).
			Scan(&id, &existingOrg, &existingRole)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			err = tx.QueryRow(ctx, insertUserSQL, orgID, email, role, hash).Scan(&id)
			if database.IsUniqueViolation(err, "users_email_key") {
				return User{}, apperr.New(apperr.InvalidState, "a user %s exists already", email)
			}
		case err == nil:
			if existingOrg != orgID || existingRole != role {
				return User{}, apperr.New(apperr.InvalidState, "a user %s exists already in another org or with another role", email)
			}
			if _, err = tx.Exec(ctx, setPasswordSQL, id, hash); err == nil {
				// A new password starts with a clean slate.
				_, err = tx.Exec(ctx, clearThrottleSQL, email)
			}
		}
		if err != nil {
			return User{}, fmt.Errorf("auth: create user: %w", err)
		}
		return scanUser(tx.QueryRow(ctx, userByIDSQL, id))
	})
}

// UserByID loads a user, for a session that names only the user: a user
// that no longer exists is unauthorized; any other failure is returned
// wrapped.
func (s *Service) UserByID(ctx context.Context, id int64) (User, error) {
	u, err := scanUser(s.DB.QueryRow(ctx, userByIDSQL, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, apperr.New(apperr.Unauthorized, "no such user")
	}
	if err != nil {
		return User{}, fmt.Errorf("auth: load user: %w", err)
	}
	return u, nil
}

// UserInOrg loads a user of an org: another org's user is not found. Any
// other failure (the database being unreachable) is returned wrapped.
func (s *Service) UserInOrg(ctx context.Context, orgID, id int64) (User, error) {
	u, err := scanUser(s.DB.QueryRow(ctx, userInOrgSQL, id, orgID))
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, apperr.New(apperr.NotFound, "no user %d", id)
	}
	if err != nil {
		return User{}, fmt.Errorf("auth: load user %d: %w", id, err)
	}
	return u, nil
}

// UserByEmail loads a user by address.
func (s *Service) UserByEmail(ctx context.Context, email string) (User, error) {
	u, err := scanUser(s.DB.QueryRow(ctx, userByEmailSQL, email))
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

// Authenticate checks an address and password. Every attempt is first
// counted against the address, account or not, by one atomic claim
// (claimSQL) that also decides whether the password may be checked: after
// FreeFailures consecutive checked failures the address refuses every
// attempt, right or wrong, unchecked, for a delay that doubles with each
// further check (capped at MaxBlock). Success clears the count. An unknown
// address goes through the same claim and the same work (a dummy hash), so
// neither the answers nor their timing tell whether it has an account.
// Failures are audited.
func (s *Service) Authenticate(ctx context.Context, email, password string) (User, error) {
	// No account has an address with a NUL or invalid UTF-8 (PostgreSQL
	// text cannot hold them): such an address is just one without an account.
	email = storable.Clean(strings.TrimSpace(email), 0)
	var user User
	var hash string
	err := s.DB.QueryRow(ctx, signinUserSQL, email).
		Scan(&user.ID, &user.OrgID, &user.OrgSlug, &user.OrgName, &user.Email, &user.Role, &hash)
	known := err == nil
	if !known && !errors.Is(err, pgx.ErrNoRows) {
		return User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	failed := func(reason string, detail map[string]any) {
		ev := audit.Event{Actor: audit.Actor{Label: email}, Action: "signin_failed", Detail: detail}
		if known {
			ev.OrgID, ev.SubjectType, ev.SubjectID = user.OrgID, "user", user.ID
		}
		detail["reason"] = reason
		_ = audit.Record(ctx, s.DB, ev)
	}

	now := s.Now()
	var failures int
	var blockedUntil *time.Time
	var refused bool
	if err := s.DB.QueryRow(ctx, claimSQL, email, now, s.FreeFailures, s.MaxBlock.Seconds()).
		Scan(&failures, &blockedUntil, &refused); err != nil {
		return User{}, fmt.Errorf("auth: sign in: claim an attempt: %w", err)
	}
	if refused {
		wait := int(math.Ceil(blockedUntil.Sub(now).Seconds()))
		failed("throttled", map[string]any{"consecutive_failures": failures})
		return User{}, apperr.New(apperr.RateLimited, "too many failed sign-ins for this account; try again in %d seconds", wait).
			With("retry_after", wait)
	}

	if !known {
		hash = s.dummy() // the same work as a real check, so timing does not tell
	}
	if err := s.Failpoints.Inject(ctx, FailpointBeforePasswordCheck); err != nil {
		return User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	ok, err := CheckPassword(password, hash)
	if err != nil {
		return User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	if !known || !ok {
		reason := "wrong password"
		if !known {
			reason = "unknown email"
		}
		failed(reason, map[string]any{"consecutive_failures": failures})
		return User{}, ErrBadCredentials
	}
	if _, err := s.DB.Exec(ctx, clearThrottleSQL, email); err != nil {
		return User{}, fmt.Errorf("auth: sign in: %w", err)
	}
	if err := audit.Record(ctx, s.DB, audit.Event{OrgID: user.OrgID, Actor: user.Actor(), Action: "signin",
		SubjectType: "user", SubjectID: user.ID}); err != nil {
		return User{}, err
	}
	return user, nil
}

// ThrottleRetention is how long an address's throttle row outlives its
// last attempt once it blocks nothing: a day, far beyond the longest block
// (MaxBlock), so an address guessed at again within it keeps its count.
const ThrottleRetention = 24 * time.Hour

// PruneThrottle removes the throttle rows of addresses not attempted for
// ThrottleRetention and not blocked: each distinct address guessed at
// leaves one, which would otherwise stay forever.
func (s *Service) PruneThrottle(ctx context.Context) (int64, error) {
	now := s.Now()
	tag, err := s.DB.Exec(ctx, pruneThrottleSQL, now.Add(-ThrottleRetention), now)
	if err != nil {
		return 0, fmt.Errorf("auth: prune sign-in throttle: %w", err)
	}
	return tag.RowsAffected(), nil
}

func (s *Service) dummy() string {
	s.dummyOnce.Do(func() { s.dummyHash, _ = HashPassword("not a real password", s.Password) })
	return s.dummyHash
}
