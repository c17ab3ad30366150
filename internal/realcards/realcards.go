// Package realcards finds the real-world cards that tests read in place
// from shared/corpus/real beside the checkout. The folder is not part of
// the repository: a clone with nothing beside it has none, and the tests
// that need them skip, saying where they looked.
package realcards

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns shared/corpus/real beside the checkout: the module root is
// the first directory up from the working directory holding go.mod.
func Dir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = parent
	}
	real := filepath.Join(dir, "..", "shared", "corpus", "real")
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", fmt.Errorf("real cards not found at %s", real)
	}
	return real, nil
}

// Files returns the paths of the real cards (*.json), or skips tb, saying
// where it looked, when there are none.
func Files(tb testing.TB) []string {
	tb.Helper()
	dir, err := Dir()
	if err != nil {
		tb.Skip(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Skip("no real cards in " + dir)
	}
	return files
}
