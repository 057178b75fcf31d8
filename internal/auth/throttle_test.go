package auth_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"greatbook/internal/apperr"
	"greatbook/internal/auth"
	"greatbook/internal/testkit"
)

// guessInParallel runs n wrong-password sign-ins for email at once, on
// their own connections, and holds every one that reaches the password
// check there until all n have either reached it or been answered: so
// whatever the scheduling, no check can slip in after another's failure
// was written. It returns how many were answered unauthorized (their
// password was checked) and how many rate_limited (refused unchecked).
func guessInParallel(t *testing.T, svc *auth.Service, email string, n int) (checked, refused int) {
	t.Helper()
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	waiting, answered := 0, 0
	var fp testkit.Failpoints
	fp.Set(auth.FailpointBeforePasswordCheck, func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		waiting++
		cond.Broadcast()
		for waiting+answered < n {
			cond.Wait()
		}
		return nil
	})
	held := svc.Failpoints
	svc.Failpoints = &fp
	defer func() { svc.Failpoints = held }()
	start := make(chan struct{})
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = svc.Authenticate(context.Background(), email, "wrong guess")
			mu.Lock()
			answered++
			cond.Broadcast()
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		switch {
		case apperr.Is(err, apperr.Unauthorized):
			checked++
		case apperr.Is(err, apperr.RateLimited):
			refused++
		default:
			t.Fatalf("unexpected answer: %v", err)
		}
	}
	return checked, refused
}

// N parallel wrong passwords: at most FreeFailures are checked, the rest
// are refused without a check, and every one of them is counted (the
// counter was read in Go and written back, so 12 guesses left it at 2 and
// all 12 were checked). An address without an account is throttled the
// same way, so the answers do not tell whether it has one.
func TestParallelGuessesAreThrottledAtomically(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	u := testkit.User(t, db, o, auth.RoleReviewer)
	const n = 12
	for _, email := range []string{u.Email, "nobody-" + u.Email} {
		t.Run(email, func(t *testing.T) {
			svc := auth.NewService(db.Pool)
			svc.Password = testkit.FastPasswords
			now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
			svc.Now = func() time.Time { return now }
			checked, refused := guessInParallel(t, svc, email, n)
			if checked > svc.FreeFailures || checked+refused != n {
				t.Fatalf("%d parallel guesses: %d passwords checked, %d refused; want at most %d checked", n, checked, refused, svc.FreeFailures)
			}
			if got := testkit.Count(t, db, `SELECT failures FROM signin_throttle WHERE address_key = sha256(convert_to(lower($1), 'UTF8'))`, email); got != n {
				t.Fatalf("failure counter %d after %d guesses", got, n)
			}
		})
	}
}

// The same sequence of attempts gets the same answers, with the same
// delays, whether or not the address has an account.
func TestUnknownAddressesAreThrottledLikeAccounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	u := testkit.User(t, db, o, auth.RoleReviewer)
	answers := func(email string) []string {
		svc, clk := serviceOnAClock(db)
		var got []string
		for i := range 8 {
			_, err := svc.Authenticate(ctx, email, "wrong")
			e, _ := apperr.As(err)
			got = append(got, string(e.Code)+" "+fmtAny(e.Details["retry_after"]))
			if i%3 == 2 {
				clk.now = clk.now.Add(3 * time.Second)
			}
		}
		return got
	}
	real, unknown := answers(u.Email), answers("no-account@"+o.Slug+".test")
	for i := range real {
		if real[i] != unknown[i] {
			t.Fatalf("attempt %d: an account answers %q, an unknown address %q\naccount: %v\nunknown: %v", i+1, real[i], unknown[i], real, unknown)
		}
	}
	if !slices.Contains(real, "rate_limited 2s") {
		t.Fatalf("the sequence never throttled: %v", real)
	}
}

func fmtAny(v any) string {
	if v == nil {
		return "-"
	}
	return time.Duration(v.(int) * int(time.Second)).String()
}

// An address PostgreSQL text cannot hold is an address without an account,
// not a 500.
func TestAnAddressWithANulIsUnknown(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	svc := auth.NewService(db.Pool)
	svc.Password = testkit.FastPasswords
	for _, email := range []string{"a\x00b@example.test", "a\xffb@example.test"} {
		if _, err := svc.Authenticate(context.Background(), email, "whatever-password"); !apperr.Is(err, apperr.Unauthorized) {
			t.Errorf("Authenticate(%q): %v, want unauthorized", email, err)
		}
	}
}

// Every distinct address guessed at leaves a throttle row: the prune removes
// the rows that block nothing and whose last attempt is older than
// ThrottleRetention, and keeps a row still blocking or recently counted.
func TestPruneThrottleRemovesOnlyStaleUnblockedRows(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	svc := auth.NewService(db.Pool)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	svc.Now = func() time.Time { return now }
	old := now.Add(-auth.ThrottleRetention - time.Minute)
	for _, r := range []struct {
		address      string
		updated      time.Time
		blockedUntil *time.Time
	}{
		{"stale@example.com", old, nil},
		{"stale-block-ended@example.com", old, ptr(old.Add(time.Minute))},
		{"still-blocked@example.com", old, ptr(now.Add(time.Hour))},
		{"recent@example.com", now.Add(-auth.ThrottleRetention + time.Minute), nil},
	} {
		if _, err := db.Pool.Exec(context.Background(), `INSERT INTO signin_throttle (address_key, failures, checks, blocked_until, updated_at)
			VALUES (sha256(convert_to($1::text, 'UTF8')), 3, 3, $2, $3)`, r.address, r.blockedUntil, r.updated); err != nil {
			t.Fatal(err)
		}
	}
	n, err := svc.PruneThrottle(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("pruned %d rows, want 2", n)
	}
	for address, want := range map[string]int{"stale@example.com": 0, "stale-block-ended@example.com": 0,
		"still-blocked@example.com": 1, "recent@example.com": 1} {
		if got := testkit.Count(t, db, `SELECT count(*) FROM signin_throttle WHERE address_key = sha256(convert_to($1::text, 'UTF8'))`, address); got != want {
			t.Errorf("%s: %d rows, want %d", address, got, want)
		}
	}
}

// The prune reads the stale rows through an index, not the whole table (a
// sprayed table holds a day of distinct addresses).
func TestPruneThrottleCanUseAnIndex(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	ctx := context.Background()
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	rows, err := tx.Query(ctx, `EXPLAIN `+auth.PruneThrottleSQL, time.Now(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plan.String(), "Seq Scan") {
		t.Fatalf("the prune scans the table:\n%s", plan.String())
	}
}

func ptr[T any](v T) *T { return &v }
