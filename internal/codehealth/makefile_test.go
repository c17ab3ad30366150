package codehealth

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMakefilePhonyTargetsHaveRecipes: .PHONY named a lint target the
// Makefile never defined, so `make lint` failed with "Nothing to be done"
// rather than linting, and docs/development.md names no such target.
// Every phony target has a rule, and every `make TARGET` of
// docs/development.md is one.
func TestMakefilePhonyTargetsHaveRecipes(t *testing.T) {
	root := repositoryRoot(t)
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	var phony []string
	for _, line := range strings.Split(string(makefile), "\n") {
		if rest, ok := strings.CutPrefix(line, ".PHONY:"); ok {
			phony = append(phony, strings.Fields(rest)...)
			continue
		}
		if m := regexp.MustCompile(`^([A-Za-z0-9_.-]+):([^=]|$)`).FindStringSubmatch(line); m != nil {
			rules[m[1]] = true
		}
	}
	if len(phony) == 0 {
		t.Fatal("the Makefile declares no .PHONY targets")
	}
	for _, target := range phony {
		if !rules[target] {
			t.Errorf("Makefile: %s is in .PHONY but has no rule", target)
		}
	}
	docs, err := os.ReadFile(filepath.Join(root, "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("`make ([a-z][a-z0-9-]*)").FindAllStringSubmatch(string(docs), -1) {
		if !rules[m[1]] {
			t.Errorf("docs/development.md names `make %s`, which the Makefile has no rule for", m[1])
		}
	}
}
