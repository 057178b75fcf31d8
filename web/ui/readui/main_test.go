package readui_test

import (
	"testing"

	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }
