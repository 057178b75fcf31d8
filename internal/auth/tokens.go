package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
)

// tokenPrefix marks greatbook API tokens so that secret scanners find them.
const tokenPrefix = "gbk_"

// CreateAPIToken returns a new API token for a user. Only its SHA-256 is
// stored; the token itself is shown once.
func (s *Service) CreateAPIToken(ctx context.Context, userID int64) (string, error) {
	secret, err := newToken()
	if err != nil {
		return "", err
	}
	token := tokenPrefix + secret
	if _, err := s.DB.Exec(ctx, insertAPITokenSQL, userID, tokenHash(token)); err != nil {
		return "", fmt.Errorf("auth: create token: %w", err)
	}
	return token, nil
}

// UserForAPIToken returns the user a bearer token belongs to.
func (s *Service) UserForAPIToken(ctx context.Context, token string) (User, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) != len(tokenPrefix)+43 {
		return User{}, apperr.New(apperr.Unauthorized, "invalid API token")
	}
	var tokenID int64
	u, err := func() (User, error) {
		var u User
		err := s.DB.QueryRow(ctx, userForAPITokenSQL, tokenHash(token)).
			Scan(&tokenID, &u.ID, &u.OrgID, &u.OrgSlug, &u.OrgName, &u.Email, &u.Role)
		return u, err
	}()
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, apperr.New(apperr.Unauthorized, "invalid API token")
	}
	if err != nil {
		return User{}, fmt.Errorf("auth: check token: %w", err)
	}
	if _, err := s.DB.Exec(ctx, touchAPITokenSQL, tokenID); err != nil {
		return User{}, fmt.Errorf("auth: touch token: %w", err)
	}
	return u, nil
}
