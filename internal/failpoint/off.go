//go:build !failpoints

// Package failpoint lets crash tests stop greatbook at a named point. This
// build has no failpoints: Inject does nothing. The components take their
// failpoints as an Injector: Env, these, in the product; in-process tests
// pass their own.
package failpoint

import "errors"

// Enabled reports whether failpoints are compiled in.
const Enabled = false

// ErrInjected is returned by Inject for the "error" action.
var ErrInjected = errors.New("failpoint: injected failure")

// Inject does nothing without the build tag "failpoints".
func Inject(string) error { return nil }
