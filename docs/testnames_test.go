package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citedTest is a test, fuzz target or benchmark named in prose or in a
// go test -run pattern: TestShardsEqualOneRun, FuzzMigrate.
var citedTest = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*`)

// declaredTest is a test function of a _test.go file.
var declaredTest = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark|Example)[A-Za-z0-9_]*)\(`)

// TestCitedTestsExist: the docs back their claims with the tests that check
// them ("go test -run TestBinarySpillMemoryBound ./internal/cli/"), so a
// test renamed or removed leaves a claim that points at nothing and a
// command that runs no test and passes. A name may be cited by its prefix,
// as a -run pattern matches (TestBinaryDiff for TestBinaryDiffTmpdir).
//
// performance.md is left out: it keeps the record of experiments measured
// and not kept, whose tests went with their code.
func TestCitedTestsExist(t *testing.T) {
	declared := declaredTests(t)
	pages, err := filepath.Glob("*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no Markdown pages beside the test: %v", err)
	}
	cited := 0
	for _, doc := range append([]string{"../README.md"}, pages...) {
		if doc == "performance.md" {
			continue
		}
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			for _, name := range citedTest.FindAllString(line, -1) {
				cited++
				if !hasPrefixAmong(name, declared) {
					t.Errorf("%s:%d cites %s, which no _test.go file of the tree declares", doc, i+1, name)
				}
			}
		}
	}
	if cited < 50 {
		t.Errorf("only %d tests cited in the docs: the pattern no longer finds them", cited)
	}
}

// declaredTests returns the test functions of every _test.go file of the
// tree above docs/, nested modules included.
func declaredTests(t *testing.T) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && d.Name() != "..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range declaredTest.FindAllStringSubmatch(string(text), -1) {
			names = append(names, m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no test functions found in the tree above docs/")
	}
	return names
}

func hasPrefixAmong(name string, declared []string) bool {
	for _, d := range declared {
		if strings.HasPrefix(d, name) {
			return true
		}
	}
	return false
}
