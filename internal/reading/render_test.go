package reading

import (
	"context"
	"errors"
	"testing"
)

// At most two page images are drawn at once; a third waits for a turn,
// and gives up when its context does.
func TestRendersAreBounded(t *testing.T) {
	ctx := context.Background()
	var releases []func()
	for range cap(renders) {
		release, err := acquireRender(ctx)
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := acquireRender(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("a third render: %v, want to wait until cancelled", err)
	}
	done := make(chan error)
	go func() {
		release, err := acquireRender(ctx)
		if err == nil {
			release()
		}
		done <- err
	}()
	releases[0]()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	releases[1]()
	if len(renders) != 0 {
		t.Fatalf("%d turns left taken", len(renders))
	}
}
