package testkit

import (
	"os"
	"path/filepath"
)

// RepoRoot returns the directory holding go.mod, found upward from the
// working directory (a test's working directory is its package folder).
func RepoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return dir
		}
	}
}
