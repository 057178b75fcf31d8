package failpoint

import "context"

// Injector acts at a component's named failpoints. The product's is Env;
// a test hands a component its own, through the component's constructor or
// configuration, to fail, hold or observe it at a point.
type Injector interface {
	// Inject acts at the failpoint name; an error fails the operation
	// there.
	Inject(ctx context.Context, name string) error
}

// Env is the product's Injector: the process's failpoints, which act as
// GREATBOOK_FAILPOINTS says in a build with the tag "failpoints" and not at
// all without it (Inject).
type Env struct{}

// Inject calls the package's Inject.
func (Env) Inject(_ context.Context, name string) error { return Inject(name) }

// At acts at the failpoint name with inj, or with Env when a component was
// given none.
func At(ctx context.Context, inj Injector, name string) error {
	if inj == nil {
		inj = Env{}
	}
	return inj.Inject(ctx, name)
}
