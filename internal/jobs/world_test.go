package jobs_test

import (
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/app/apptest"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// world is the shared test world, with this package's own helpers as methods.
type world struct{ *apptest.World }

func newWorld(t *testing.T, cfg app.Config) *world { return &world{apptest.NewWorld(t, cfg)} }
