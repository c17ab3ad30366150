package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// initAllocBudget bounds the allocations each of cardscan's own packages
// makes in its initialisation, which every run pays before main whatever
// it does. Tables a validation reads belong there (or better, in static
// data); the rules' documentation, which only explain, --list-rules and
// SARIF help read, is built on first use. The figures are from
// GODEBUG=inittrace=1 (docs/performance.md, start-up); a package not
// listed may allocate at most defaultInitAllocs.
var initAllocBudget = map[string]int{
	// The member tables, the findings' messages and the rule table; the
	// rules' documentation was 170 more, the syntax messages 220, the
	// content patterns (now parsed on first use) 370, the ISO 639-1
	// list built a string per code 190, and the enumerations' messages
	// a string per value 84.
	"github.com/cardscan/cardscan/fastvalidate": 300,
}

const defaultInitAllocs = 100

// TestInitAllocs runs this test binary, which links the same packages as
// cardscan, with inittrace on and holds each of cardscan's packages to
// its budget.
func TestInitAllocs(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running %s with inittrace: %v\n%s", os.Args[0], err, out)
	}
	// init github.com/x/y @1.2 ms, 0.5 ms clock, 288800 bytes, 1316 allocs
	line := regexp.MustCompile(`(?m)^init (\S+) @.* (\d+) allocs$`)
	seen := 0
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		pkg := m[1]
		if !strings.HasPrefix(pkg, "github.com/cardscan/cardscan/") {
			continue
		}
		seen++
		allocs, _ := strconv.Atoi(m[2])
		budget, ok := initAllocBudget[pkg]
		if !ok {
			budget = defaultInitAllocs
		}
		if allocs > budget {
			t.Errorf("init %s makes %d allocations, budget %d: move what a validation does not read to first use", pkg, allocs, budget)
		}
	}
	if seen == 0 {
		t.Fatalf("no init line of a cardscan package in the inittrace output:\n%s", out)
	}
}
