// Command pgo writes a CPU profile of cardscan for profile-guided
// optimisation (`make pgo` runs it). Copied to cmd/cardscan/default.pgo it
// would make `go build ./cmd/cardscan` inline and devirtualise the hot calls
// it names; docs/performance.md (profile-guided optimisation) says what that
// gained and why the build does not use it.
//
// cardscan's main is one call to cli.Run, so this command calls cli.Run
// in-process with the arguments users give cardscan and profiles it: the
// profile names the same functions the cardscan binary runs, without a
// profiling flag in cardscan itself.
//
// The workload is what a user runs on a dump: plain validation with the
// default rules (content rules included) on one core and on two, the zstd
// copy of the dump, --cross-card, and diff of the dump against its zstd
// copy. Each pass over the dump takes well under a second of CPU, so the
// workload runs for several rounds to give the profile's 100 samples a
// second enough to go on; one profile over all the rounds is what merging
// one profile per run would give.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/cardscan/cardscan/internal/cli"
)

func main() {
	dump := flag.String("dump", "", "an NDJSON dump of cards (corpus/cardgen -dialect all)")
	zdump := flag.String("zdump", "", "the same dump, zstd-compressed")
	out := flag.String("o", "bin/pgo/cardscan.pgo", "the CPU profile to write")
	rounds := flag.Int("rounds", 15, "times the whole workload runs")
	flag.Parse()
	if *dump == "" || *zdump == "" || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "usage: pgo -dump DUMP.ndjson -zdump DUMP.ndjson.zst [-o PROFILE] [-rounds N]")
		os.Exit(2)
	}
	if err := profile(workload(*dump, *zdump), *rounds, *out); err != nil {
		fmt.Fprintln(os.Stderr, "pgo: error:", err)
		os.Exit(1)
	}
}

// workload is one round: the cardscan command lines profiled, in order.
func workload(dump, zdump string) [][]string {
	return [][]string{
		{"--quiet", "-j", "1", dump},
		{"--quiet", "-j", "2", dump},
		{"--quiet", "-j", "2", zdump},
		{"--quiet", "--cross-card", "-j", "2", dump},
		{"diff", "-j", "2", dump, zdump},
	}
}

// profile runs the workload rounds times under one CPU profile written to
// out. The profile goes to a temporary file first so that a failed run
// leaves an existing profile as it was.
func profile(commands [][]string, rounds int, out string) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(out), ".default.pgo-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := pprof.StartCPUProfile(tmp); err != nil {
		return err
	}
	for round := 1; round <= rounds; round++ {
		for _, args := range commands {
			fmt.Printf("round %d/%d: cardscan %s\n", round, rounds, strings.Join(args, " "))
			if err := runCardscan(args); err != nil {
				pprof.StopCPUProfile()
				return err
			}
		}
	}
	pprof.StopCPUProfile()
	// CreateTemp makes the file private; a profile is meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}

// runCardscan runs one command line; exit status 1 only says the dump has
// invalid cards or changes, which the generated dumps do.
func runCardscan(args []string) error {
	var stderr bytes.Buffer
	if status := cli.Run(args, strings.NewReader(""), io.Discard, &stderr); status > 1 {
		return fmt.Errorf("cardscan %s: exit status %d: %s", strings.Join(args, " "), status, strings.TrimSpace(stderr.String()))
	}
	return nil
}
