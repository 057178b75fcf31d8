package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"greatbook/internal/apperr"
	"greatbook/internal/auth"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestPasswordHash(t *testing.T) {
	t.Parallel()
	h, err := auth.HashPassword("s3cret-enough", testkit.FastPasswords)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=1024,t=1,p=1$") {
		t.Fatalf("unexpected hash format %q", h)
	}
	for _, tc := range []struct {
		password string
		want     bool
	}{{"s3cret-enough", true}, {"s3cret-enougH", false}, {"", false}} {
		ok, err := auth.CheckPassword(tc.password, h)
		if err != nil || ok != tc.want {
			t.Errorf("CheckPassword(%q) = %v, %v; want %v", tc.password, ok, err, tc.want)
		}
	}
	if _, err := auth.CheckPassword("x", "$bcrypt$nope"); err == nil {
		t.Error("a malformed hash must be an error")
	}
}

// clock is a movable time source.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// serviceOnAClock is an auth service with cheap password hashing whose time
// is clk's, starting on a fixed morning.
func serviceOnAClock(db *testkit.DB) (svc *auth.Service, clk *clock) {
	clk = &clock{now: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)}
	svc = auth.NewService(db.Pool)
	svc.Password = testkit.FastPasswords
	svc.Now = clk.Now
	return svc, clk
}

func TestAuthenticateThrottlesRepeatedFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	u := testkit.User(t, db, o, auth.RoleReviewer)
	svc, clk := serviceOnAClock(db)

	for i := 1; i <= 3; i++ {
		if _, err := svc.Authenticate(ctx, u.Email, "wrong"); !apperr.Is(err, apperr.Unauthorized) {
			t.Fatalf("failure %d: got %v, want unauthorized", i, err)
		}
	}
	// The third failure blocks the account for a second: even the right
	// password is refused until then.
	if _, err := svc.Authenticate(ctx, u.Email, testkit.TestPassword); !apperr.Is(err, apperr.RateLimited) {
		t.Fatalf("after 3 failures: got %v, want rate_limited", err)
	}
	clk.now = clk.now.Add(2 * time.Second)
	if _, err := svc.Authenticate(ctx, u.Email, "wrong"); !apperr.Is(err, apperr.Unauthorized) {
		t.Fatalf("4th failure: %v", err)
	}
	clk.now = clk.now.Add(time.Second) // the 4th failure doubled the delay to 2 s
	if _, err := svc.Authenticate(ctx, u.Email, testkit.TestPassword); !apperr.Is(err, apperr.RateLimited) {
		t.Fatalf("delay must double: got %v", err)
	}
	clk.now = clk.now.Add(2 * time.Second)
	got, err := svc.Authenticate(ctx, u.Email, testkit.TestPassword)
	if err != nil || got.ID != u.ID {
		t.Fatalf("after the delay the right password signs in: %v", err)
	}
	// Success resets the count.
	if _, err := svc.Authenticate(ctx, u.Email, "wrong"); !apperr.Is(err, apperr.Unauthorized) {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, u.Email, testkit.TestPassword); err != nil {
		t.Fatalf("one failure after a reset must not block: %v", err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'signin_failed' AND subject_id = $1`, u.ID); n != 7 {
		t.Errorf("failed sign-ins audited: %d, want 7 (5 wrong passwords, 2 throttled tries)", n)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE action = 'signin' AND subject_id = $1`, u.ID); n != 2 {
		t.Errorf("sign-ins audited: %d, want 2", n)
	}
	if _, err := svc.Authenticate(ctx, "nobody@example.test", "x"); !apperr.Is(err, apperr.Unauthorized) {
		t.Fatalf("unknown address: %v", err)
	}
}

// roundTrip saves a session with values through the store and returns the cookie.
func saveSession(t *testing.T, store *auth.SessionStore, userID int64) *http.Cookie {
	t.Helper()
	r := httptest.NewRequest("GET", "/", nil)
	w := httptest.NewRecorder()
	sess, err := store.New(r, store.CookieName())
	if err != nil {
		t.Fatal(err)
	}
	if err := auth.SetSessionUser(sess, userID); err != nil {
		t.Fatal(err)
	}
	if err := sess.Save(r, w); err != nil {
		t.Fatal(err)
	}
	cookies := w.Result().Cookies()
	if len(cookies) != 1 {
		t.Fatalf("want one cookie, got %v", cookies)
	}
	return cookies[0]
}

func loadUser(t *testing.T, store *auth.SessionStore, c *http.Cookie) int64 {
	t.Helper()
	r := httptest.NewRequest("GET", "/", nil)
	r.AddCookie(c)
	sess, err := store.New(r, store.CookieName())
	if err != nil {
		t.Fatal(err)
	}
	return auth.SessionUserID(sess)
}

func TestSessionStore(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	u := testkit.User(t, db, o, auth.RoleReviewer)

	t.Run("cookie attributes", func(t *testing.T) {
		plain := auth.NewSessionStore(db.Pool, false)
		c := saveSession(t, plain, u.ID)
		if c.Name != "greatbook_session" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Path != "/" {
			t.Errorf("plain cookie: %+v", c)
		}
		tls := auth.NewSessionStore(db.Pool, true)
		c = saveSession(t, tls, u.ID)
		if c.Name != "__Host-greatbook_session" || !c.Secure || !c.HttpOnly || c.Domain != "" || c.Path != "/" {
			t.Errorf("TLS cookie: %+v", c)
		}
	})

	t.Run("sign-out revokes every copy", func(t *testing.T) {
		store := auth.NewSessionStore(db.Pool, false)
		c := saveSession(t, store, u.ID)
		if got := loadUser(t, store, c); got != u.ID {
			t.Fatalf("loaded user %d, want %d", got, u.ID)
		}
		copied := *c
		r := httptest.NewRequest("POST", "/signout", nil)
		r.AddCookie(c)
		sess, _ := store.New(r, store.CookieName())
		sess.Options.MaxAge = -1
		if err := sess.Save(r, httptest.NewRecorder()); err != nil {
			t.Fatal(err)
		}
		if got := loadUser(t, store, &copied); got != 0 {
			t.Fatal("a cookie copied before sign-out still works")
		}
		// Saving the revoked session never brings it back.
		sess.Options.MaxAge = 60
		if err := sess.Save(r, httptest.NewRecorder()); err == nil {
			t.Fatal("saving a revoked session must fail")
		}
	})

	t.Run("idle and absolute timeouts", func(t *testing.T) {
		clk := &clock{now: time.Now()}
		store := auth.NewSessionStore(db.Pool, false)
		store.Now = clk.Now
		store.IdleTimeout, store.AbsoluteTimeout = 10*time.Minute, time.Hour
		c := saveSession(t, store, u.ID)
		clk.now = clk.now.Add(9 * time.Minute)
		if loadUser(t, store, c) == 0 {
			t.Fatal("session lost before the idle timeout")
		}
		for i := 0; i < 5; i++ { // active every 9 minutes...
			clk.now = clk.now.Add(9 * time.Minute)
			if loadUser(t, store, c) == 0 {
				t.Fatalf("active session lost after %v", 9*time.Minute*time.Duration(i+2))
			}
		}
		clk.now = clk.now.Add(9 * time.Minute) // ...but never past the absolute timeout (63 min)
		if loadUser(t, store, c) != 0 {
			t.Fatal("session outlived its absolute timeout")
		}
		c2 := saveSession(t, store, u.ID)
		clk.now = clk.now.Add(11 * time.Minute)
		if loadUser(t, store, c2) != 0 {
			t.Fatal("session outlived its idle timeout")
		}
	})

	t.Run("renew at sign-in discards the old token", func(t *testing.T) {
		store := auth.NewSessionStore(db.Pool, false)
		c := saveSession(t, store, 0)
		r := httptest.NewRequest("POST", "/signin", nil)
		r.AddCookie(c)
		sess, _ := store.New(r, store.CookieName())
		if err := store.Renew(r.Context(), sess); err != nil {
			t.Fatal(err)
		}
		_ = auth.SetSessionUser(sess, u.ID)
		w := httptest.NewRecorder()
		if err := sess.Save(r, w); err != nil {
			t.Fatal(err)
		}
		if w.Result().Cookies()[0].Value == c.Value {
			t.Fatal("sign-in kept the pre-sign-in token")
		}
		if loadUser(t, store, c) != 0 {
			t.Fatal("the pre-sign-in token still works")
		}
	})
}

func TestAPITokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	u := testkit.User(t, db, o, auth.RoleAdmin)
	svc := auth.NewService(db.Pool)
	tok := testkit.Token(t, db, u)
	got, err := svc.UserForAPIToken(ctx, tok)
	if err != nil || got.ID != u.ID || got.OrgID != o.ID {
		t.Fatalf("token user: %+v, %v", got, err)
	}
	var stored int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM api_tokens WHERE token_hash = sha256(convert_to($1, 'UTF8'))`, tok).Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("the token must be stored as its SHA-256: %d %v", stored, err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM api_tokens WHERE position(convert_to($1, 'UTF8') in token_hash) > 0`, tok); n != 0 {
		t.Fatal("the token itself is stored")
	}
	last := "A"
	if strings.HasSuffix(tok, last) {
		last = "B" // a changed last character, never the same one
	}
	for _, bad := range []string{"", "gbk_", tok[:len(tok)-1] + last, "Bearer " + tok} {
		if _, err := svc.UserForAPIToken(ctx, bad); !apperr.Is(err, apperr.Unauthorized) {
			t.Errorf("token %q: got %v, want unauthorized", bad, err)
		}
	}
}

// However many failures, an account is never blocked for longer than
// MaxBlock (15 minutes): the owner is slowed down, not locked out.
func TestThrottlingIsCappedAtFifteenMinutes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	u := testkit.User(t, db, o, auth.RoleReviewer)
	svc, clk := serviceOnAClock(db)
	for i := 1; i <= 30; i++ {
		if _, err := svc.Authenticate(ctx, u.Email, "wrong"); !apperr.Is(err, apperr.Unauthorized) {
			t.Fatalf("failure %d: %v", i, err)
		}
		clk.now = clk.now.Add(24 * time.Hour) // past any block
	}
	clk.now = clk.now.Add(-24 * time.Hour) // just after the 30th failure
	_, err := svc.Authenticate(ctx, u.Email, testkit.TestPassword)
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.RateLimited {
		t.Fatalf("after 30 failures: %v", err)
	}
	if wait, _ := e.Details["retry_after"].(int); wait != 15*60 {
		t.Fatalf("blocked for %d s after 30 failures, want the cap of %d", wait, 15*60)
	}
	clk.now = clk.now.Add(15*time.Minute + time.Second)
	if _, err := svc.Authenticate(ctx, u.Email, testkit.TestPassword); err != nil {
		t.Fatalf("after the cap: %v", err)
	}
}
