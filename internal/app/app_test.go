package app_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"greatbook/internal/app"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// newApp assembles an app that sweeps every millisecond, at failpoints fp.
func newApp(t *testing.T, fp *testkit.Failpoints) *app.App {
	t.Helper()
	db := testkit.NewDB(t)
	return app.New(db.Pool, app.Config{Logger: testkit.Logger(t), Workers: 2, LeaseTTL: 5 * time.Second,
		SweepInterval: time.Millisecond, Failpoints: fp})
}

// appFrames are the functions of the goroutines the app starts (the
// loops, the run engine's workers, the bookkeeper's observations).
var appFrames = []string{"greatbook/internal/app.", "greatbook/internal/runs.", "greatbook/internal/bookkeeper.",
	"greatbook/internal/intake.", "greatbook/internal/ledger."}

// appGoroutines returns the stacks of the goroutines running a function of
// the app. A "created by" line does not count: a goroutine whose function
// has returned is finishing.
func appGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var found []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, line := range strings.Split(g, "\n") {
			if strings.HasPrefix(line, "created by ") || strings.Contains(line, "app_test.") {
				continue
			}
			if i := strings.IndexFunc(line, func(r rune) bool { return r != '\t' }); i > 0 {
				continue // a file:line, not a function
			}
			if hasAny(line, appFrames) {
				found = append(found, g)
				break
			}
		}
	}
	return found
}

func hasAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// After Close returns, no goroutine of the app is left: the pool may close.
// Not parallel: it looks at every goroutine of the test binary.
func TestCloseLeavesNoGoroutineOfTheApp(t *testing.T) {
	var fp testkit.Failpoints
	a := newApp(t, &fp)
	passes := make(chan struct{}, 1)
	fp.Set(app.FailpointBeforeSweepPass, func(context.Context) error {
		select {
		case passes <- struct{}{}:
		default:
		}
		return nil
	})
	a.Start(context.Background())
	// Some passes have run: the loops are busy, not just started.
	for range 3 {
		select {
		case <-passes:
		case <-time.After(10 * time.Second):
			t.Fatal("no sweep pass ran")
		}
	}
	if len(appGoroutines()) == 0 {
		t.Fatal("the check sees no goroutine of the running app: it would prove nothing")
	}
	a.Close()
	if left := appGoroutines(); len(left) > 0 {
		t.Fatalf("%d goroutines of the app outlive Close:\n%s", len(left), strings.Join(left, "\n\n"))
	}
}

// Close does not return while a sweep pass is in flight: the pass would
// otherwise run on against a pool the caller closes next.
func TestCloseWaitsForASweepPassInFlight(t *testing.T) {
	t.Parallel()
	var fp testkit.Failpoints
	a := newApp(t, &fp)
	entered, cancelled, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	var passReturned atomic.Bool
	fp.Set(app.FailpointBeforeSweepPass, func(ctx context.Context) error {
		if !first.CompareAndSwap(false, true) {
			return nil
		}
		close(entered)
		<-ctx.Done() // Close cancelled the pass...
		close(cancelled)
		<-release // ...which is still in flight
		passReturned.Store(true)
		return nil
	})
	a.Start(context.Background())
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("no sweep pass started")
	}
	closed := make(chan bool)
	go func() {
		a.Close()
		closed <- passReturned.Load()
	}()
	<-cancelled
	select {
	case <-closed:
		t.Fatal("Close returned while a sweep pass was in flight")
	case <-time.After(200 * time.Millisecond):
		// A backstop only: the assertion below is the deterministic one.
	}
	close(release)
	select {
	case returned := <-closed:
		if !returned {
			t.Fatal("Close returned before the sweep pass did")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return after the sweep pass ended")
	}
}
