//go:build failpoints

// Package failpoint lets crash tests stop greatbook at a named point. It is
// compiled in only with the build tag "failpoints" (the crash tests build
// the binary with it); without the tag Inject does nothing at all. The
// components take their failpoints as an Injector: Env, these, in the
// product; in-process tests pass their own.
//
// GREATBOOK_FAILPOINTS holds name=action pairs separated by commas. The
// actions: "kill" (SIGKILL this process), "error" (Inject returns an
// error), "panic".
package failpoint

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// Enabled reports whether failpoints are compiled in.
const Enabled = true

var points = parse(os.Getenv("GREATBOOK_FAILPOINTS"))

func parse(s string) map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		if name, action, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
			m[name] = action
		}
	}
	return m
}

// ErrInjected is returned by Inject for the "error" action.
var ErrInjected = errors.New("failpoint: injected failure")

// Inject acts on the failpoint name if the environment asks for it.
func Inject(name string) error {
	switch points[name] {
	case "kill":
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	case "error":
		return fmt.Errorf("%w at %s", ErrInjected, name)
	case "panic":
		panic("failpoint " + name)
	}
	return nil
}
