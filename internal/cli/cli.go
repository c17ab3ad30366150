// Package cli is the cardscan command: a function of its arguments and
// standard streams that returns the exit status, so that every behaviour
// can be tested in-process.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/fetch"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/serve"
	"github.com/cardscan/cardscan/internal/summary"
)

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// Run runs cardscan with args (without the program name) and returns the
// exit status.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	con := console.New(stderr)
	if len(args) > 0 {
		switch args[0] {
		case "summary":
			return runSummary(args[1:], stdout, con)
		case "serve":
			return serve.Run(args[1:], stdin, stdout, stderr)
		case "fetch":
			return fetch.Run(args[1:], stdin, stdout, stderr)
		}
	}
	opts, err := parseFlags(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageText)
			return console.ExitOK
		}
		return con.UsageError("cardscan", err)
	}
	switch {
	case opts.version:
		fmt.Fprintf(stdout, "cardscan %s\n", version())
		return console.ExitOK
	case opts.listRules:
		if err := listRules(stdout); err != nil {
			return console.ExitIO
		}
		return console.ExitOK
	}
	return scan(opts, stdin, stdout, con)
}

type options struct {
	jobs       int
	profile    string
	format     string
	all        bool
	quiet      bool
	validOut   string
	invalidOut string
	summary    string
	progress   string
	color      string
	failOn     string
	policy     string
	maxInvalid int64
	maxRecord  int
	chunkSize  int
	input      string
	listRules  bool
	version    bool
	paths      []string
}

const usageText = `usage: cardscan [flags] [PATH ...]
       cardscan summary merge SUMMARY.json ...
       cardscan serve [flags]       (validation over HTTP; serve --help)
       cardscan fetch [flags] ...   (discover and validate served cards; fetch --help)

Validates agent cards: one per line (NDJSON), or JSON texts such as a
pretty-printed card, an array of cards or several documents in a row,
told apart by content (--input), each optionally gzip or zstd compressed
(told by magic bytes). No PATH, or '-', reads standard input. A directory
is walked in lexical order for *.json, *.ndjson and *.jsonl, each
optionally .gz or .zst.

flags:
  -j, --jobs N            workers (default: the number of CPUs)
      --profile NAME      rule set: auto or one of --list-rules' profiles (default auto)
      --format FORMAT     text, jsonl or github (default text)
      --all               jsonl: a verdict for every card; text: an ok line per valid card
      --input FRAMING     auto, ndjson or json: how inputs are cut into cards (default auto:
                          json when the text starts with '[', or with '{' or '"' on a first
                          line that is not a whole value; ndjson otherwise)
  -q, --quiet             no findings on stdout, only the summary and the exit status
      --valid-out FILE    copy every valid record to FILE (.gz or .zst compresses)
      --invalid-out FILE  copy every invalid record to FILE (.gz or .zst compresses)
      --summary FILE      write a JSON summary to FILE ('-' for stdout)
      --progress WHEN     auto, always or never: a progress line on stderr (default auto)
      --color WHEN        auto, always or never: colour text findings (default auto)
      --fail-on LEVEL     error, warning or never: what makes the exit status 1 (default error)
      --max-invalid N     stop after N invalid cards (0: never)
      --policy NAME       default or production: production makes plain http,
                          localhost and private-address URLs errors (no network calls)
      --max-record SIZE   longest record judged, e.g. 16MiB (default 16MiB)
      --chunk-size SIZE   bytes handed to a worker at a time (default 1MiB)
      --list-rules        print the rules and exit
      --version           print the version and exit

exit status: 0 every card passed, 1 a card failed, 2 usage error,
3 an input could not be read or an output written.
`

// parseFlags parses args, allowing flags after paths (but not after "--").
func parseFlags(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("cardscan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.IntVar(&o.jobs, "j", 0, "")
	fs.IntVar(&o.jobs, "jobs", 0, "")
	fs.StringVar(&o.profile, "profile", "auto", "")
	fs.StringVar(&o.format, "format", "text", "")
	fs.BoolVar(&o.all, "all", false, "")
	fs.BoolVar(&o.quiet, "q", false, "")
	fs.BoolVar(&o.quiet, "quiet", false, "")
	fs.StringVar(&o.validOut, "valid-out", "", "")
	fs.StringVar(&o.invalidOut, "invalid-out", "", "")
	fs.StringVar(&o.summary, "summary", "", "")
	fs.StringVar(&o.progress, "progress", "auto", "")
	fs.StringVar(&o.color, "color", "auto", "")
	fs.StringVar(&o.failOn, "fail-on", "error", "")
	fs.Int64Var(&o.maxInvalid, "max-invalid", 0, "")
	fs.StringVar(&o.policy, "policy", "default", "")
	fs.StringVar(&o.input, "input", "auto", "")
	maxRecord := cmdflag.Size(pipeline.DefaultMaxRecord)
	chunkSize := cmdflag.Size(pipeline.DefaultChunkSize)
	fs.Var(&maxRecord, "max-record", "")
	fs.Var(&chunkSize, "chunk-size", "")
	fs.BoolVar(&o.listRules, "list-rules", false, "")
	fs.BoolVar(&o.version, "version", false, "")

	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{cmdflag.ParseError(err)}
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(rest) < len(args) && len(args) > 0 && isDashDash(args, rest) {
			o.paths = append(o.paths, rest...)
			break
		}
		o.paths = append(o.paths, rest[0])
		rest = rest[1:]
	}
	o.maxRecord, o.chunkSize = int(maxRecord), int(chunkSize)

	if o.jobs < 0 || o.jobs > 4096 {
		return nil, usagef("-j %d: want 1 to 4096 workers", o.jobs)
	}
	if o.jobs == 0 {
		o.jobs = runtime.GOMAXPROCS(0)
	}
	if !oneOf(o.format, "text", "jsonl", "github") {
		return nil, usagef("--format %q: want text, jsonl or github", o.format)
	}
	if !oneOf(o.progress, "auto", "always", "never") {
		return nil, usagef("--progress %q: want auto, always or never", o.progress)
	}
	if !oneOf(o.color, "auto", "always", "never") {
		return nil, usagef("--color %q: want auto, always or never", o.color)
	}
	if !oneOf(o.failOn, "error", "warning", "never") {
		return nil, usagef("--fail-on %q: want error, warning or never", o.failOn)
	}
	if _, ok := pipeline.ParseFraming(o.input); !ok {
		return nil, usagef("--input %q: want auto, ndjson or json", o.input)
	}
	if !oneOf(o.policy, "default", "production") {
		return nil, usagef("--policy %q: want default or production", o.policy)
	}
	if o.maxInvalid < 0 {
		return nil, usagef("--max-invalid %d: want 0 (no limit) or more", o.maxInvalid)
	}
	if o.maxRecord < 1 {
		return nil, usagef("--max-record must be at least 1 byte")
	}
	if o.chunkSize < 1<<10 || o.chunkSize > 1<<30 {
		return nil, usagef("--chunk-size %d: want 1KiB to 1GiB", o.chunkSize)
	}
	if o.validOut != "" && o.validOut == o.invalidOut {
		return nil, usagef("--valid-out and --invalid-out name the same file %q", o.validOut)
	}
	return o, nil
}

// isDashDash reports whether rest follows a "--" in args, after which
// everything is a path.
func isDashDash(args, rest []string) bool {
	i := len(args) - len(rest) - 1
	return i >= 0 && args[i] == "--"
}

func oneOf(s string, choices ...string) bool {
	for _, c := range choices {
		if s == c {
			return true
		}
	}
	return false
}

// resolveProfile checks the profile flag names a profile fastvalidate knows.
func resolveProfile(name string) (string, error) {
	if _, err := fastvalidate.New(name); err == nil {
		return name, nil
	}
	return "", usagef("unknown profile %q; known profiles: %s", name, strings.Join(fastvalidate.Profiles(), ", "))
}

func scan(o *options, stdin io.Reader, stdout io.Writer, con *console.Console) int {
	start := time.Now()
	profile, err := resolveProfile(o.profile)
	if err != nil {
		con.Errorf("%s", err)
		return console.ExitUsage
	}
	framing, _ := pipeline.ParseFraming(o.input)
	inputs, total, walkErrors := expandPaths(o.paths, framing, stdin, con)

	cfg := pipeline.Config{
		Profile:    profile,
		Jobs:       o.jobs,
		ChunkSize:  o.chunkSize,
		MaxRecord:  o.maxRecord,
		All:        o.all,
		MaxInvalid: o.maxInvalid,
		Options:    policyOptions(o.policy),
		Findings:   stdout,
		Stdin:      stdin,
		Progress:   new(pipeline.Progress),
		Diagnose:   func(msg string) { con.Errorf("%s", msg) },
	}
	switch {
	case o.quiet:
		cfg.Format = pipeline.FormatNone
	case o.format == "jsonl":
		cfg.Format = pipeline.FormatJSONL
	case o.format == "github":
		cfg.Format = pipeline.FormatGitHub
	default:
		cfg.Format = pipeline.FormatText
		if cmdflag.WantColor(o.color, stdout) {
			cfg.Style = report.Color
		}
	}

	var outs []*outputFile
	for _, spec := range []struct {
		flag, path string
		dst        *io.Writer
	}{{"--valid-out", o.validOut, &cfg.ValidOut}, {"--invalid-out", o.invalidOut, &cfg.InvalidOut}} {
		if spec.path == "" {
			continue
		}
		f, err := createOutput(spec.path)
		if err != nil {
			con.Errorf("%s %s: %s", spec.flag, spec.path, describe(err))
			closeOutputs(outs)
			return console.ExitIO
		}
		outs = append(outs, f)
		*spec.dst = f
	}

	prog := startProgress(o.progress, con, cfg.Progress, total)
	st, runErr := pipeline.Run(cfg, inputs)
	prog.stop()

	if runErr != nil {
		var oe *pipeline.OutputError
		if errors.As(runErr, &oe) && oe.Name == "stdout" && isClosedPipe(oe.Err) {
			// The reader of our output has gone (cardscan ... | head):
			// that is the end of the run, not an error.
			closeOutputs(outs)
			return console.VerdictStatus(o.failOn, st.Invalid, st.Warnings)
		}
	}
	status := console.VerdictStatus(o.failOn, st.Invalid, st.Warnings)
	if runErr != nil {
		con.Errorf("writing %s", runErr)
		status = console.ExitIO
	}
	for _, f := range outs {
		if err := f.Close(); err != nil {
			con.Errorf("%s %s: %s", f.flagName(o), f.path, describe(err))
			status = console.ExitIO
		}
	}

	sum := summary.Summary{
		Records:           st.Records,
		Valid:             st.Valid,
		Invalid:           st.Invalid,
		Errors:            st.Errors,
		Warnings:          st.Warnings,
		Rules:             st.Rules,
		Profiles:          map[string]int64{},
		Inputs:            st.Inputs + int64(walkErrors),
		InputErrors:       st.InputErrors + int64(walkErrors),
		Framings:          st.Framings,
		BytesRead:         st.BytesRead,
		BytesDecompressed: st.BytesDecompressed,
		Seconds:           time.Since(start).Seconds(),
		StoppedEarly:      st.Stopped,
		Shards:            1,
	}
	for name, n := range st.Profiles {
		if name == "" {
			name = "none"
		}
		sum.Profiles[name] += n
	}
	sum.Finish()
	if sum.InputErrors > 0 {
		status = console.ExitIO
	}
	if o.summary != "" {
		if err := sum.WriteFile(o.summary, stdout); err != nil {
			con.Errorf("--summary %s: %s", o.summary, describe(err))
			status = console.ExitIO
		}
	}
	con.Printf("%s", sum.Human())
	return status
}

func isClosedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe)
}

func describe(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// policyOptions maps --policy to the validator options it stands for.
func policyOptions(policy string) []fastvalidate.Option {
	if policy == "production" {
		return []fastvalidate.Option{fastvalidate.WithPolicy(fastvalidate.PolicyProduction)}
	}
	return nil
}
