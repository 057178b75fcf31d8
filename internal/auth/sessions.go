package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/sessions"
	"github.com/jackc/pgx/v5"

	"greatbook/internal/database"
)

// SessionStore is a gorilla/sessions Store that keeps sessions in
// PostgreSQL. The cookie carries only a random token; the table keeps its
// SHA-256 and the values. Deleting the row (sign-out) revokes every copy of
// the cookie, and idle and absolute timeouts are enforced on the server.
type SessionStore struct {
	DB              database.Executor
	Secure          bool // served over TLS: Secure cookie with the __Host- prefix
	IdleTimeout     time.Duration
	AbsoluteTimeout time.Duration
	Now             func() time.Time
}

// NewSessionStore returns a store with an idle timeout of an hour and an
// absolute timeout of twelve hours.
func NewSessionStore(db database.Executor, secure bool) *SessionStore {
	return &SessionStore{DB: db, Secure: secure, IdleTimeout: time.Hour, AbsoluteTimeout: 12 * time.Hour, Now: time.Now}
}

// CookieName is the name of the session cookie: __Host- prefixed over TLS,
// so that the browser insists on Secure, Path=/ and no Domain.
func (s *SessionStore) CookieName() string {
	if s.Secure {
		return "__Host-greatbook_session"
	}
	return "greatbook_session"
}

func (s *SessionStore) options() *sessions.Options {
	return &sessions.Options{
		Path:     "/",
		MaxAge:   int(s.AbsoluteTimeout.Seconds()),
		Secure:   s.Secure,
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
	}
}

// Get returns the request's session, cached for the request.
func (s *SessionStore) Get(r *http.Request, name string) (*sessions.Session, error) {
	return sessions.GetRegistry(r).Get(s, name)
}

// New loads the session named by the request's cookie, or returns a new
// empty one when there is none, or it was revoked or timed out.
func (s *SessionStore) New(r *http.Request, name string) (*sessions.Session, error) {
	sess := sessions.NewSession(s, name)
	sess.Options = s.options()
	sess.IsNew = true
	c, err := r.Cookie(name)
	if err != nil || len(c.Value) != 43 {
		return sess, nil
	}
	ctx := r.Context()
	hash := tokenHash(c.Value)
	var data []byte
	var lastSeen, expires time.Time
	err = s.DB.QueryRow(ctx, loadSessionSQL, hash).
		Scan(&data, &lastSeen, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return sess, nil
	}
	if err != nil {
		return sess, fmt.Errorf("auth: load session: %w", err)
	}
	now := s.Now()
	if now.After(expires) || now.Sub(lastSeen) > s.IdleTimeout {
		_, _ = s.DB.Exec(ctx, deleteSessionSQL, hash)
		return sess, nil
	}
	values, err := decodeValues(data)
	if err != nil {
		return sess, err
	}
	sess.ID = c.Value
	sess.IsNew = false
	sess.Values = values
	if now.Sub(lastSeen) > time.Minute {
		if _, err := s.DB.Exec(ctx, touchSessionSQL, hash, now); err != nil {
			return sess, fmt.Errorf("auth: touch session: %w", err)
		}
	}
	return sess, nil
}

// ErrSessionRevoked is returned when saving a session that was deleted
// meanwhile (signed out elsewhere): it is never brought back.
var ErrSessionRevoked = errors.New("auth: session was revoked")

// Save writes the session and sets its cookie. A negative MaxAge deletes it.
func (s *SessionStore) Save(r *http.Request, w http.ResponseWriter, sess *sessions.Session) error {
	ctx := r.Context()
	if sess.Options != nil && sess.Options.MaxAge < 0 {
		if sess.ID != "" {
			if _, err := s.DB.Exec(ctx, deleteSessionSQL, tokenHash(sess.ID)); err != nil {
				return fmt.Errorf("auth: delete session: %w", err)
			}
		}
		http.SetCookie(w, sessions.NewCookie(sess.Name(), "", sess.Options))
		return nil
	}
	data, err := encodeValues(sess.Values)
	if err != nil {
		return err
	}
	userID := SessionUserID(sess)
	var uid *int64
	if userID != 0 {
		uid = &userID
	}
	now := s.Now()
	if sess.ID == "" {
		token, err := newToken()
		if err != nil {
			return err
		}
		if _, err := s.DB.Exec(ctx, insertSessionSQL, tokenHash(token), uid, data, now, now.Add(s.AbsoluteTimeout)); err != nil {
			return fmt.Errorf("auth: create session: %w", err)
		}
		sess.ID = token
	} else {
		tag, err := s.DB.Exec(ctx, saveSessionSQL, tokenHash(sess.ID), data, uid, now)
		if err != nil {
			return fmt.Errorf("auth: save session: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return ErrSessionRevoked
		}
	}
	http.SetCookie(w, sessions.NewCookie(sess.Name(), sess.ID, sess.Options))
	return nil
}

// Renew replaces the session's token with a fresh one, keeping nothing of
// the old one: done at sign-in so that a token planted before sign-in
// (session fixation) is worthless after it.
func (s *SessionStore) Renew(ctx context.Context, sess *sessions.Session) error {
	if sess.ID != "" {
		if _, err := s.DB.Exec(ctx, deleteSessionSQL, tokenHash(sess.ID)); err != nil {
			return fmt.Errorf("auth: renew session: %w", err)
		}
	}
	sess.ID = ""
	sess.IsNew = true
	sess.Values = map[any]any{}
	sess.Options = s.options()
	return nil
}

// DeleteExpired removes sessions past their absolute or idle timeout.
func (s *SessionStore) DeleteExpired(ctx context.Context) (int64, error) {
	now := s.Now()
	tag, err := s.DB.Exec(ctx, deleteExpiredSessionsSQL, now, now.Add(-s.IdleTimeout))
	if err != nil {
		return 0, fmt.Errorf("auth: delete expired sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

// AnonymousCSRFCookieName is the name of the cookie that holds an anonymous
// visitor's CSRF token (the sign-in form's): __Host- prefixed over TLS, like
// the session cookie.
func (s *SessionStore) AnonymousCSRFCookieName() string {
	if s.Secure {
		return "__Host-greatbook_csrf"
	}
	return "greatbook_csrf"
}

// AnonymousCSRFToken is the token of the request's anonymous CSRF cookie,
// "" when it carries none of the right shape.
func (s *SessionStore) AnonymousCSRFToken(r *http.Request) string {
	c, err := r.Cookie(s.AnonymousCSRFCookieName())
	if err != nil || len(c.Value) != 43 {
		return ""
	}
	return c.Value
}

// AnonymousCSRF returns the visitor's anonymous CSRF token, setting a new
// one in its cookie when the request has none. It is a double-submit token:
// the form carries it and the cookie must match, so a visitor who is not
// signed in gets a protected form without a session row being written for
// every visit. A site that can plant cookies on this origin could plant
// this one, as it could plant a session cookie of its own before.
func (s *SessionStore) AnonymousCSRF(w http.ResponseWriter, r *http.Request) (string, error) {
	if t := s.AnonymousCSRFToken(r); t != "" {
		return t, nil
	}
	t, err := newToken()
	if err != nil {
		return "", err
	}
	http.SetCookie(w, sessions.NewCookie(s.AnonymousCSRFCookieName(), t, s.options()))
	return t, nil
}

// ClearAnonymousCSRF deletes the anonymous CSRF cookie: once signed in, the
// session's own token protects the forms.
func (s *SessionStore) ClearAnonymousCSRF(w http.ResponseWriter) {
	opts := s.options()
	opts.MaxAge = -1
	http.SetCookie(w, sessions.NewCookie(s.AnonymousCSRFCookieName(), "", opts))
}

// Session value keys.
const (
	sessionUserKey = "user_id"
	sessionCSRFKey = "csrf"
	// SessionFlashKey carries a one-time message to the next page.
	SessionFlashKey = "flash"
)

// SessionUserID returns the signed-in user's id, or 0.
func SessionUserID(sess *sessions.Session) int64 {
	switch v := sess.Values[sessionUserKey].(type) {
	case int64:
		return v
	case json.Number:
		n, _ := v.Int64()
		return n
	}
	return 0
}

// SetSessionUser records the signed-in user and gives the session a new
// CSRF token.
func SetSessionUser(sess *sessions.Session, userID int64) error {
	sess.Values[sessionUserKey] = userID
	t, err := newToken()
	if err != nil {
		return err
	}
	sess.Values[sessionCSRFKey] = t
	return nil
}

// SessionCSRFToken is the session's CSRF token, "" when it has none (a
// session is given one when a user signs in).
func SessionCSRFToken(sess *sessions.Session) string {
	t, _ := sess.Values[sessionCSRFKey].(string)
	return t
}

func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("auth: random token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func tokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

func encodeValues(values map[any]any) ([]byte, error) {
	m := make(map[string]any, len(values))
	for k, v := range values {
		ks, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("auth: session key %v is not a string", k)
		}
		m[ks] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("auth: encode session: %w", err)
	}
	return b, nil
}

func decodeValues(data []byte) (map[any]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("auth: decode session: %w", err)
	}
	out := make(map[any]any, len(m))
	for k, v := range m {
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				out[k] = i
				continue
			}
		}
		out[k] = v
	}
	return out, nil
}
