// Command compare runs cardscan and the validators users would pick instead
// on the same corpora and prints a markdown table per corpus; `make compare`
// runs it from the bench directory.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cardscan/cardscan/bench/internal/compare"
)

func main() {
	os.Exit(run())
}

func run() int {
	repo := flag.String("repo", "..", "the cardscan repository `dir`")
	out := flag.String("out", "out", "`dir` of the generated dumps; compare.md is written here")
	shared := flag.String("shared", "", "`dir` with specs/ and corpus/real/ (default: shared/ beside the repository)")
	runs := flag.Int("runs", 5, "timed runs per tool and corpus; the table shows medians")
	mb := flag.Float64("mb", 0, "judge only the first `N` MB of each generated dump (0: all of it)")
	corpora := flag.String("corpora", "draft,schema,a2a,real,edges", "comma-separated corpora to run")
	verbose := flag.Bool("v", false, "log every timed run")
	tools := flag.String("tools", "", "only the tools whose key matches this `regexp`")
	command := flag.String("command", "", "the command to credit in the report (default: the make invocation these flags match)")
	flag.Parse()
	if *command == "" {
		*command = compare.Command
		if *runs != 5 {
			*command += fmt.Sprintf(" COMPARE_RUNS=%d", *runs)
		}
		if *mb > 0 {
			*command += fmt.Sprintf(" COMPARE_MB=%g", *mb)
		}
	}

	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		return a
	}
	bench, _ := os.Getwd()
	cfg := compare.Config{
		BenchDir: bench,
		RepoDir:  abs(*repo),
		OutDir:   abs(*out),
		Shared:   *shared,
		Runs:     max(*runs, 1),
		MaxBytes: int64(*mb * 1e6),
		Corpora:  strings.Split(*corpora, ","),
		Log:      os.Stderr,
		Verbose:  *verbose,
	}
	if cfg.Shared == "" {
		cfg.Shared = filepath.Join(filepath.Dir(cfg.RepoDir), "shared")
	}
	cfg.Shared = abs(cfg.Shared)
	if *tools != "" {
		re, err := regexp.Compile(*tools)
		if err != nil {
			fmt.Fprintf(os.Stderr, "compare: error: -tools: %v\n", err)
			return 2
		}
		cfg.Tools = re
	}
	if _, err := os.Stat(filepath.Join(bench, "peers")); err != nil {
		fmt.Fprintf(os.Stderr, "compare: error: run from the bench directory (make compare does)\n")
		return 2
	}

	res, err := compare.Run(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "compare: error: %v\n", err)
		return 3
	}
	var md bytes.Buffer
	compare.WriteMarkdown(&md, res, *command)
	os.Stdout.Write(md.Bytes())
	err = os.MkdirAll(cfg.OutDir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(cfg.OutDir, "compare.md"), md.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "compare: error: %v\n", err)
		return 3
	}
	return 0
}
