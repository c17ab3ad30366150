package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestColdStartDeps keeps packages whose initialisation costs every run
// milliseconds, whatever the run does, out of the binary: Go initialises
// every linked package before main, so a package used only on a cold path
// still costs each pre-commit and CI call its init. The costs are from
// GODEBUG=inittrace=1 on bin/cardscan (docs/performance.md, start-up).
func TestColdStartDeps(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list the binary's packages")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	banned := map[string]string{
		// Its native loader and JIT decoder allocate about 2 MB and take
		// 4-10 ms in init; every use of it in cardscan is once per run.
		"github.com/bytedance/sonic": "sonic's loader and JIT initialise on every start",
		// protodesc's init reads the editions' defaults (a proto.Unmarshal
		// of its own), and descriptorpb and gofeaturespb register their
		// .proto files: together about a sixth of all package init under
		// perf record. probe's two request messages are written with
		// protowire instead of described at run time.
		"google.golang.org/protobuf/reflect/protodesc":  "protodesc and the descriptors it imports initialise on every start",
		"google.golang.org/protobuf/types/descriptorpb": "descriptor.proto is registered on every start",
		"google.golang.org/protobuf/types/gofeaturespb": "go_features.proto is registered on every start",
		"google.golang.org/protobuf/types/dynamicpb":    "only useful with run-time descriptors (protodesc)",
	}
	pkgs := strings.Fields(string(out))
	for prefix, why := range banned {
		for _, pkg := range pkgs {
			if pkg == prefix || strings.HasPrefix(pkg, prefix+"/") {
				t.Errorf("cardscan links %s: %s", pkg, why)
				break
			}
		}
	}
}
