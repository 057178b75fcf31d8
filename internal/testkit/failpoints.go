package testkit

import (
	"context"
	"sync"

	"greatbook/internal/failpoint"
)

// Failpoints is a failpoint.Injector whose points a test sets: hand it to
// the product (app.Config.Failpoints, auth.Service.Failpoints, ...) and set
// a point, even while the product runs, to fail, hold or observe it there.
// A point not set does nothing. The zero value is ready to use.
type Failpoints struct {
	mu sync.Mutex
	at map[string]func(ctx context.Context) error
}

var _ failpoint.Injector = (*Failpoints)(nil)

// Set makes the failpoint name call fn; a nil fn clears the point.
func (f *Failpoints) Set(name string, fn func(ctx context.Context) error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fn == nil {
		delete(f.at, name)
		return
	}
	if f.at == nil {
		f.at = map[string]func(ctx context.Context) error{}
	}
	f.at[name] = fn
}

// Inject calls the function set at name, if any, and returns its error. The
// function runs unlocked: it may block, or set points itself.
func (f *Failpoints) Inject(ctx context.Context, name string) error {
	f.mu.Lock()
	fn := f.at[name]
	f.mu.Unlock()
	if fn == nil {
		return nil
	}
	return fn(ctx)
}
