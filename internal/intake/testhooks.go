package intake

// This file holds the product's only test hook outside export_test.go:
// tests of other packages (web's browser tests) cannot reach an
// export_test.go, and they inject launch failures into a running app. The
// product never calls it.

// InjectLaunchFault makes every launch call fault first, inside its
// transaction, and fail with the error fault returns; nil removes it.
// It is safe to call while the sweep or an approver is launching.
func (o *Outbox) InjectLaunchFault(fault func(job Job) error) {
	if fault == nil {
		o.launchFault.Store(nil)
		return
	}
	o.launchFault.Store(&fault)
}
