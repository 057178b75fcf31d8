package app

import "context"

// SetBeforeSweepPass makes every sweep pass of a call f first, so that a
// test can hold a pass in flight.
func SetBeforeSweepPass(a *App, f func(context.Context)) { a.beforeSweepPass = f }
