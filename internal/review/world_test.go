package review_test

import (
	"testing"

	"greatbook/internal/app"
	"greatbook/internal/intake/intaketest"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// world is the shared test world, with this package's own helpers as methods.
type world struct{ *intaketest.World }

func newWorld(t *testing.T, cfg app.Config) *world { return &world{intaketest.NewWorld(t, cfg)} }
