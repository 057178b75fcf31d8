package main

import (
	"os/exec"
	"strings"
	"testing"
)

// makeDryRun is what `make -n target` would run at the repository's root.
func makeDryRun(t *testing.T, target string) string {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on this machine")
	}
	out, err := exec.Command("make", "-n", "-C", "../..", "--no-print-directory", target).CombinedOutput()
	if err != nil {
		t.Fatalf("make -n %s: %v\n%s", target, err, out)
	}
	return string(out)
}

// `make clean` resets the build and the demo but keeps the downloaded test
// dependencies (the Playwright driver and axe-core in .cache), which take
// the npm registry to fetch again; `make distclean` removes them too.
func TestMakeCleanKeepsTheTestDependencies(t *testing.T) {
	t.Parallel()
	if clean := makeDryRun(t, "clean"); strings.Contains(clean, ".cache") || !strings.Contains(clean, ".greatbook") {
		t.Errorf("make clean runs:\n%s", clean)
	}
	if dist := makeDryRun(t, "distclean"); !strings.Contains(dist, ".cache") || !strings.Contains(dist, ".greatbook") {
		t.Errorf("make distclean runs:\n%s", dist)
	}
}
