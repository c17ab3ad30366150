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
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/dump"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
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
	return cmderr.Exit(runCardscan(args, stdin, stdout, stderr, con), con)
}

// Main is Run for a process that exits with the status it returns, as
// cmd/cardscan does: what a run would undo for the sake of a process that
// goes on (its signal handler) is left to the exit.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	exitsAfterRun.Store(true)
	return Run(args, stdin, stdout, stderr)
}

// runCardscan runs cardscan; its error says which way out it took.
func runCardscan(args []string, stdin io.Reader, stdout, stderr io.Writer, con *console.Console) error {
	if len(args) > 0 {
		if c, ok := lookupCommand(args[0]); ok {
			return c.run(&env{args: args[1:], stdin: stdin, stdout: stdout, stderr: stderr, con: con})
		}
		if _, err := os.Lstat(args[0]); err != nil && !strings.HasPrefix(args[0], "-") {
			// No such file: a first argument that is close to a subcommand
			// is a typo rather than a missing input.
			if args[0] == "help" {
				return writeOut(stdout, usage())
			}
			if sub := nearestSubcommand(args[0]); sub != "" {
				return cmderr.UsageStop(fmt.Errorf("unknown command %q: did you mean %s?", args[0], sub))
			}
		}
	}
	opts, err := parseFlags(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return writeOut(stdout, usage())
		}
		return cmderr.Usage("cardscan", err)
	}
	switch {
	case opts.version:
		return writeOut(stdout, "cardscan "+version()+"\n")
	case opts.listRules:
		var b strings.Builder
		if err := listRules(&b, opts.Profile, opts.parsedFormat); err != nil {
			return cmderr.UsageStop(err)
		}
		return writeOut(stdout, b.String())
	}
	return scan(opts, stdin, stdout, con)
}

type options struct {
	readOptions
	format string
	// formatGiven says --format named stdout's format; formatFiles are
	// the --format FORMAT=FILE outputs.
	formatGiven bool
	formatFiles []formatFile
	// parsedFormat is format, parsed by checkFormats.
	parsedFormat report.Format
	all          bool
	quiet        bool
	validOut     string
	invalidOut   string
	summary      string
	progress     string
	failOn       string
	maxInvalid   int64
	// maxWarnings fails the run past that many warnings (-1: never).
	maxWarnings   int64
	stdinFilename string
	requireRec    bool
	onCorrupt     string
	listRules     bool
	version       bool
	paths         []string

	crossCard bool

	signatureOptions

	// The policy: --config, or the file found; --rule's overrides, after
	// the file's; --min-level.
	config     string
	policyFile *policyFile
	overrides  []ruleOverride
	minLevel   string
}

// usageHead and usageTail frame the flags' help, which the flag
// declarations write.
const usageHead = `usage: cardscan [flags] [PATH ...]
`

const usageIntro = `
Validates agent cards: one per line (NDJSON), or JSON texts such as a
pretty-printed card, an array of cards or several documents in a row,
told apart by content (--input), each optionally gzip or zstd compressed
(told by magic bytes). No PATH, or '-', reads standard input. A directory
is walked in lexical order for *.json, *.ndjson and *.jsonl, each
optionally .gz or .zst.

flags:
`

const usageTail = `
exit status: 0 every card passed, 1 a card failed, 2 usage error,
3 an input could not be read or an output written; 130, 143 or 129
after SIGINT, SIGTERM or SIGHUP, the records read judged and written.
`

// usage is the text of --help.
func usage() string {
	return usageHead + subcommandUsage() + usageIntro + newFlagSet(&options{}).Help() + usageTail
}

// newFlagSet declares cardscan's flags, to be parsed into o.
func newFlagSet(o *options) *cmdflag.Set {
	var fs cmdflag.Set
	o.addReadingFlags(&fs)
	o.format = "text"
	fs.Var(formatFlag{o}, "--format FORMAT", report.Choice(report.Formats)+";\n"+
		"FORMAT=FILE writes to FILE (repeatable: several outputs\n"+
		"in one run, at most one of them stdout)")
	fs.Bool(&o.all, "--all", "jsonl: a verdict for every card; text: an ok line per valid card")
	fs.Bool(&o.quiet, "-q, --quiet", "no findings on stdout, only the summary and the exit status\n"+
		"(a linter's --quiet, errors only, is --min-level error)")
	fs.String(&o.validOut, "--valid-out FILE", "", "copy every valid record to FILE (.gz or .zst compresses)")
	fs.String(&o.invalidOut, "--invalid-out FILE", "", "copy every invalid record to FILE (.gz or .zst compresses)")
	fs.String(&o.summary, "--summary FILE", "", "write a JSON summary to FILE ('-' for stdout)")
	fs.String(&o.progress, "--progress WHEN", "auto", "auto, always or never: a progress line on stderr")
	cmdflag.AddColorFlag(&fs, &o.color)
	fs.String(&o.failOn, "--fail-on LEVEL", "error", "error, warning or never: what makes the exit status 1")
	fs.Int64(&o.maxInvalid, "--max-invalid N", 0, "stop after N invalid cards (0: never)")
	fs.Int64(&o.maxWarnings, "--max-warnings N", -1, "exit 1 when there are more than N warnings (default -1:\n"+
		"no limit)").HideDefault()
	fs.String(&o.stdinFilename, "--stdin-filename F", "", "name standard input F in findings (default <stdin>)")
	fs.Bool(&o.requireRec, "--require-records", "exit 1 when no record was read (empty input)")
	fs.String(&o.onCorrupt, "--on-corrupt WHAT", "keep", "keep or drop: the output of a compressed input that\n"+
		"turns out corrupt (drop writes none of a compressed input\n"+
		"until its checksums have passed)")
	fs.Var(&o.Keys, "--keys FILE", "trusted public keys, a JWK Set (repeatable): verify\n"+
		"the A2A signatures of the cards that carry them")
	fs.Var(&o.TrustJKU, "--trust-jku PREFIX", "follow a signature's jku below this https URL\n"+
		"prefix (repeatable)")
	fs.String(&o.TrustFile, "--trust FILE", "", "a trust policy binding signing keys to origins (see\n"+
		"docs/signatures.md); also the policy file's trust section")
	fs.String(&o.Now, "--now TIME", "", "judge signature expiry at this RFC 3339 time, for\n"+
		"reproducible runs (default: the clock)")
	fs.String(&o.Signatures, "--signatures MODE", "check", "off, check or require (default check: verify when\n"+
		"keys are given; require: a card fails unless a\n"+
		"trusted key verifies one of its signatures)").HideDefault()
	fs.String(&o.Canonical, "--canonical MODE", "as-is", "as-is or drop-empty: the canonical form signatures\n"+
		"cover (see docs/signatures.md)")
	fs.String(&o.config, "--config FILE", "", "the policy file (default: .cardscan.yaml, .yml or\n"+
		".json in the working directory or a parent, up to\n"+
		"the repository's root)")
	fs.Var(ruleFlag{&o.overrides}, "--rule RULE=LEVEL", "off, warning or error: override a rule's severity\n"+
		"(repeatable; over the policy file's rules)")
	fs.String(&o.minLevel, "--min-level LEVEL", "warning", "warning or error: hide findings below LEVEL from the\n"+
		"output (the counts keep them)")
	fs.Bool(&o.crossCard, "--cross-card", "after all records are judged, report what no single card\n"+
		"shows: dump.duplicate-id, dump.shared-endpoint and\n"+
		"dump.duplicate-card (warnings)")
	o.memory = DefaultMemory
	fs.Var(&o.memory, "--memory SIZE", "--cross-card's claims held in memory before they spill\n"+
		"to temporary files")
	o.addShardFlags(&fs, "the records' --cross-card claims")
	fs.Bool(&o.listRules, "--list-rules", "print the rules (of --profile, when given) and exit")
	fs.Bool(&o.version, "--version", "print the version and exit")
	return &fs
}

// parseFlags parses args: flags may follow paths, up to a "--".
func parseFlags(args []string) (*options, error) {
	o := &options{}
	fset := newFlagSet(o)
	paths, err := fset.Parse(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageError{err.Error()}
	}
	o.paths = paths
	// The policy file's format is stdout's, which --format FORMAT=FILE
	// leaves to it.
	given := func(name string) bool {
		if name == "format" {
			return o.formatGiven
		}
		return fset.Given(name)
	}
	// --version and --list-rules judge no card: a policy file, even a
	// broken one, does not concern them.
	if !o.version && !o.listRules {
		if err := applyPolicy(o, given); err != nil {
			return nil, usageError{err.Error()}
		}
	}
	if err := checkOptions(o); err != nil {
		return nil, fromPolicy(o, given, err)
	}
	if fset.Given("memory") && !o.crossCard && o.digestOut == "" {
		return nil, usageError{"--memory bounds what --cross-card and --digest-out hold: give one, or drop --memory"}
	}
	if o.listRules && !o.version && len(paths) > 0 {
		return nil, usageError{"--list-rules judges no card, so the paths beside it would go unread: drop the paths to list the rules, or drop --list-rules to judge the paths"}
	}
	return o, nil
}

// checkOptions checks the flags' values, once the policy file has set
// those the command line did not.
// readOptions are the flags that validation and diff share: how inputs
// are read and judged, and the memory for dump-wide work.
type readOptions struct {
	cmdflag.Reading
	color  string
	memory cmdflag.Size
	// shardFlags are --shard, --shards and --shard-by; sharding is what
	// check made of them.
	shardFlags shardFlags
	sharding   shardSpec
	// digestOut is --digest-out, and digestParts --digest-parts.
	digestOut   string
	digestParts int
}

// addReadingFlags declares the reading group, with the pipeline's
// defaults.
func (o *readOptions) addReadingFlags(fs *cmdflag.Set) {
	o.MaxRecord, o.ChunkSize = pipeline.DefaultMaxRecord, pipeline.DefaultChunkSize
	o.Reading.AddFlags(fs)
}

// addShardFlags declares the flags of the shard contract, which
// validation and diff share.
func (o *readOptions) addShardFlags(fs *cmdflag.Set, digestWhat string) {
	fs.String(&o.shardFlags.shard, "--shard I/N", "", "judge only slice I of N (from 0) of the inputs: N runs\n"+
		"given the same inputs judge every record once (docs/cli.md)")
	fs.Int(&o.shardFlags.shards, "--shards N", 0, "--shard I/N with I from $JOB_COMPLETION_INDEX\n"+
		"(a Kubernetes Indexed Job's pod index)")
	fs.String(&o.shardFlags.by, "--shard-by HOW", "auto", "file, record or auto: slice by input file, or by\n"+
		"record with every shard reading every input (auto:\n"+
		"record when there are fewer inputs than shards)")
	fs.String(&o.digestOut, "--digest-out FILE", "", "write "+digestWhat+" to FILE, sorted\n"+
		"and compressed, for cardscan merge (docs/cli.md)")
	fs.Int(&o.digestParts, "--digest-parts P", 1, "split --digest-out into P files by key hash,\n"+
		"FILE.part-K-of-P, for P merges run apart")
}

// check checks the shared flags; a -j of 0 becomes a worker per CPU.
func (o *readOptions) check() error {
	if o.Jobs < 0 || o.Jobs > 4096 {
		return usagef("-j %d: want 1 to 4096 workers, or 0 for one per CPU", o.Jobs)
	}
	if o.Jobs == 0 {
		o.Jobs = runtime.GOMAXPROCS(0)
	}
	if _, ok := pipeline.ParseFraming(o.Input); !ok {
		return usagef("--input %q: want %s", o.Input, pipeline.FramingNames())
	}
	if !slices.Contains([]string{"default", "production"}, o.Policy) {
		return usagef("--policy %q: want default or production", o.Policy)
	}
	if !slices.Contains([]string{"auto", "always", "never"}, o.color) {
		return usagef("--color %q: want auto, always or never", o.color)
	}
	if o.memory < 1<<10 {
		return usagef("--memory %d: want at least 1KiB", o.memory)
	}
	if o.MaxRecord < 1 {
		return usagef("--max-record must be at least 1 byte")
	}
	if o.ChunkSize < 1<<10 || o.ChunkSize > 1<<30 {
		return usagef("--chunk-size %v: want 1KiB to 1GiB", &o.ChunkSize)
	}
	if o.digestParts < 1 || o.digestParts > maxDigestParts {
		return usagef("--digest-parts %d: want 1 to %d", o.digestParts, maxDigestParts)
	}
	if o.digestParts > 1 && o.digestOut == "" {
		return usagef("--digest-parts %d needs --digest-out: there is no digest file to split", o.digestParts)
	}
	var err error
	o.sharding, err = o.shardFlags.spec(os.Getenv)
	return err
}

func checkOptions(o *options) error {
	if err := o.readOptions.check(); err != nil {
		return err
	}
	if err := checkFormats(o); err != nil {
		return err
	}
	if o.maxWarnings < -1 {
		return usagef("--max-warnings %d: want -1 (no limit) or more", o.maxWarnings)
	}
	if !slices.Contains([]string{"auto", "always", "never"}, o.progress) {
		return usagef("--progress %q: want auto, always or never", o.progress)
	}
	if !slices.Contains([]string{"error", "warning", "never"}, o.failOn) {
		return usagef("--fail-on %q: want error, warning or never", o.failOn)
	}
	if !slices.Contains([]string{"keep", "drop"}, o.onCorrupt) {
		return usagef("--on-corrupt %q: want keep or drop", o.onCorrupt)
	}
	if o.maxInvalid < 0 {
		return usagef("--max-invalid %d: want 0 (no limit) or more", o.maxInvalid)
	}
	if err := o.signatureOptions.check(o.hasTrust()); err != nil {
		return err
	}
	if !slices.Contains([]string{"warning", "error"}, o.minLevel) {
		return usagef("--min-level %q: want warning or error", o.minLevel)
	}
	if o.digestOut != "" && o.crossCard {
		return usagef("--digest-out and --cross-card: a shard writes its claims, and cardscan merge of every shard's reports the findings")
	}
	if o.digestOut == "-" {
		return usagef("--digest-out -: want a file (cardscan merge reads several)")
	}
	// Standard output holds the findings; "-" would be a file of that
	// name, which the output guard takes for standard output.
	for _, out := range []struct{ flag, path string }{{"--valid-out", o.validOut}, {"--invalid-out", o.invalidOut}} {
		if out.path == "-" {
			return usagef("%s -: want a file (standard output holds the findings; with -q, /dev/stdout)", out.flag)
		}
	}
	if o.minLevel == "error" && o.failOn == "warning" {
		return usagef("--min-level error would hide the warnings that --fail-on warning fails cards for")
	}
	return nil
}

// scanRun is a validation run between its stages: what it writes, and
// whether a failure to read or write was reported on the way.
type scanRun struct {
	o   *options
	con *console.Console
	cfg pipeline.Config
	// outs are --valid-out and --invalid-out; closed says closeOuts ran.
	outs    []*outputFile
	closed  bool
	sumFile *pendingFile
	formats outputRun
	cross   *dump.Cross
	digests *dump.DigestSet
	// ioFailed says an input or output failed and was reported: exit
	// status 3, whatever the cards.
	ioFailed bool
}

// scan validates the cards of o's inputs: the command without a
// subcommand.
func scan(o *options, stdin io.Reader, stdout io.Writer, con *console.Console) error {
	start := time.Now()
	r := &scanRun{o: o, con: con}
	defer r.release()
	inputs, all, total, walkErrors, err := r.prepare(stdin, stdout)
	if err != nil {
		return err
	}
	var slice pipeline.Slice
	inputs, slice = o.sharding.pick(inputs)
	r.configure(stdin, slice)
	if err := r.openOutputs(all); err != nil {
		return err
	}
	sig := catchRunSignals(o, inputs, stdin)
	defer sig.stop()
	r.cfg.Interrupt = sig.interrupt
	prog := startProgress(o.progress, con, r.cfg.Progress, total)
	if err := r.startStdout(stdout, prog); err != nil {
		return err
	}
	st, runErr := pipeline.Run(r.cfg, inputs)
	prog.stop()
	// Dump findings at level error fail the run as an invalid card does,
	// but judge no card: valid and invalid stay the cards' counts.
	var dumpErrors int64
	if r.cross != nil && runErr == nil {
		dumpErrors, runErr = crossCard(r.cross, r.cfg, &st, con)
		var changed *dump.ChangedError
		if errors.As(runErr, &changed) {
			r.fail(fmt.Errorf("--cross-card: %w; no findings across cards are reported", changed))
			runErr = nil
		}
	}
	if err := writeDigests(r.digests, o, &st, walkErrors, runErr, con); err != nil {
		r.fail(err)
	}
	verdict := cmderr.Verdict(o.failOn, st.Invalid+dumpErrors, st.Warnings)
	var oe *pipeline.OutputError
	if errors.As(runErr, &oe) && isClosedPipe(oe.Err) {
		// The reader of our output, stdout or an out file that is a
		// pipe, has gone (cardscan ... | head): that is the end of the
		// run, not an error.
		return verdict
	}
	if verdict == nil && warningsOver(o, &st) != "" {
		verdict = cmderr.ErrFailed
	}
	if runErr != nil {
		r.fail(fmt.Errorf("writing %s", runErr))
	}
	r.closeOuts(&st, runErr)
	sum := r.summarize(&st, time.Since(start), walkErrors, slice, stdout)
	if st.Records == 0 && !st.Interrupted {
		// An empty input passes; say so, since it is more often a
		// mistake (a wrong path, an empty pipe) than a clean dump.
		con.Printf("warning: no records were read")
		if o.requireRec && verdict == nil {
			verdict = cmderr.ErrFailed
		}
	}
	if runErr == nil && r.formats.finish(runEnd(&st, sum.InputErrors, r.status(&st, sig, verdict), overridesInForce(o.overrides), r.formats.describesRules()), con) {
		r.ioFailed = true
	}
	con.Printf("%s%s", sum.Human(), warningsOver(o, &st))
	return r.status(&st, sig, verdict)
}

// status is what the run ends with: the signal that interrupted it, which
// takes precedence over any verdict, or else the verdict. The documents'
// tails (SARIF's invocation) state the same one.
func (r *scanRun) status(st *pipeline.Stats, sig *signals, verdict error) error {
	if st.Interrupted {
		return cmderr.Interrupted(sig.signal())
	}
	return r.result(verdict)
}

// prepare checks what the flags ask for and lists the run's inputs: those
// of this shard and all of them, how many the progress line counts, and
// how many paths could not be walked.
func (r *scanRun) prepare(stdin io.Reader, stdout io.Writer) (inputs, all []pipeline.Input, total int64, walkErrors int, err error) {
	o := r.o
	if err := cmdflag.CheckProfile(o.Profile); err != nil {
		return nil, nil, 0, 0, cmderr.UsageStop(err)
	}
	if r.cfg.Signatures, err = signatureConfig(o); err != nil {
		return nil, nil, 0, 0, cmderr.UsageStop(err)
	}
	framing, _ := pipeline.ParseFraming(o.Input)
	inputs, total, walkErrors = expandPaths(o.paths, framing, stdin, r.con, newPathFilter(o.policyFile))
	if o.stdinFilename != "" {
		for i := range inputs {
			if inputs[i].Path == "" {
				inputs[i].Name = o.stdinFilename
			}
		}
	}
	if err := sameInputs(inputs, stdin, "each of its cards is judged twice"); err != nil {
		return nil, nil, 0, 0, cmderr.UsageStop(err)
	}
	if inputs, err = checkOutputs(o, inputs, stdin, stdout, r.con); err != nil {
		return nil, nil, 0, 0, cmderr.UsageStop(err)
	}
	return inputs, inputs, total, walkErrors, nil
}

// configure maps the flags to the pipeline's configuration.
func (r *scanRun) configure(stdin io.Reader, slice pipeline.Slice) {
	o, sigs := r.o, r.cfg.Signatures
	r.cfg = pipeline.Config{
		Slice:      slice,
		Profile:    o.Profile,
		Jobs:       o.Jobs,
		ChunkSize:  int(o.ChunkSize),
		MaxRecord:  int(o.MaxRecord),
		All:        o.all,
		MaxInvalid: o.maxInvalid,
		// A card that fails the run is reported and copied as failing.
		FailOnWarning:  o.failOn == "warning",
		HoldCompressed: o.onCorrupt == "drop",
		Options:        append(policyOptions(o.Policy), overrideOptions(o.overrides)...),
		Stdin:          stdin,
		Progress:       new(pipeline.Progress),
		Signatures:     sigs,
	}
	if o.minLevel == "error" {
		r.cfg.MinLevel = fastvalidate.SeverityError
	}
	if sigs != nil {
		sigs.Overrides = overrideTable(o.overrides)
	}
}

// openOutputs creates the files the run writes before the first record
// is read, so that a path that cannot be written is found at once rather
// than after the whole dump. release closes or discards them.
func (r *scanRun) openOutputs(all []pipeline.Input) error {
	o := r.o
	for _, spec := range []struct {
		flag, path string
		dst        *io.Writer
	}{{"--valid-out", o.validOut, &r.cfg.ValidOut}, {"--invalid-out", o.invalidOut, &r.cfg.InvalidOut}} {
		if spec.path == "" {
			continue
		}
		f, err := createOutput(spec.path)
		if err != nil {
			return cmderr.IOf("%s %s: %s", spec.flag, spec.path, describe(err))
		}
		r.outs = append(r.outs, f)
		*spec.dst = f
	}
	if o.summary != "" && o.summary != "-" {
		f, err := createPending(o.summary)
		if err != nil {
			return cmderr.IOf("--summary %s: %s", o.summary, describe(err))
		}
		r.sumFile = f
	}
	if err := r.formats.openFormatFiles(o, &r.cfg); err != nil {
		return &cmderr.IOError{Err: err}
	}
	if o.crossCard {
		cross, err := dump.NewCross(int64(o.memory))
		if err != nil {
			return cmderr.IOf("--cross-card: %s", describe(err))
		}
		r.cross = cross
		cross.Levels, cross.MinLevel = overrideTable(o.overrides), r.cfg.MinLevel
		cross.Jobs = o.Jobs
		// Room for a chunk's claims at 235 B a card of 1.8 KB
		// (docs/cli.md), no more than the default chunk's.
		cross.ClaimRoom = int(min(o.ChunkSize/4, pipeline.DefaultChunkSize/4))
		cross.Reread(inputFiles(all))
		r.cfg.Extract, r.cfg.Collect = cross.Extract, cross.Add
	}
	if o.digestOut != "" {
		if err := checkDigestOut(o.digestOut, o.digestParts); err != nil {
			return err
		}
		r.digests = dump.NewClaimDigests(int64(o.memory), inputOrder(all))
		r.cfg.Extract, r.cfg.Collect = r.digests.Extract(0), r.digests.Add
	}
	return nil
}

// startStdout chooses stdout's writer and writes its head.
func (r *scanRun) startStdout(stdout io.Writer, prog *progress) error {
	o := r.o
	wo := report.WriterOptions{All: o.all}
	if prog.tty && console.New(stdout).Terminal() {
		wo.Through = r.con.Around(stdout)
	}
	format := o.parsedFormat
	switch {
	case o.quiet:
		format = report.FormatNone
	case format == report.FormatText && cmdflag.WantColor(o.color, stdout):
		wo.Style = report.Color
	}
	r.formats.stdout = format.Writer(stdout, wo)
	r.cfg.Findings = r.formats.stdout
	if err := r.formats.stdout.Head(); err != nil {
		return cmderr.IOf("writing stdout: %s", describe(err))
	}
	r.cfg.Diagnose = func(msg string) {
		r.con.Errorf("%s", msg)
		r.formats.note(msg)
	}
	r.cfg.Note = func(msg string) { r.con.Printf("%s", msg) }
	return nil
}

// closeOuts puts --valid-out and --invalid-out in place at the end of a
// run, unless writing them failed. An interrupted run's hold the records
// it judged, whole; an interrupted shard's are dropped, so that the shard
// run again replaces its files whole.
func (r *scanRun) closeOuts(st *pipeline.Stats, runErr error) {
	r.closed = true
	for _, f := range r.outs {
		if runErr != nil || st.Interrupted && r.o.sharding.sharded() {
			f.drop()
			continue
		}
		if err := f.Close(); err != nil {
			r.fail(fmt.Errorf("%s %s: %s", f.flagName(r.o), f.path, describe(err)))
		}
	}
}

// release closes what a run that ended early left open, and discards the
// outputs it did not finish.
func (r *scanRun) release() {
	if !r.closed {
		closeOutputs(r.outs)
	}
	if r.sumFile != nil {
		r.sumFile.discard()
	}
	r.formats.discard()
	if r.cross != nil {
		r.cross.Close()
	}
	if r.digests != nil {
		r.digests.Close()
	}
}

// fail reports err, an input or output that failed, and goes on: the run
// ends with exit status 3.
func (r *scanRun) fail(err error) {
	r.con.Errorf("%s", err)
	r.ioFailed = true
}

// result is the run's way out: an I/O failure before a verdict.
func (r *scanRun) result(verdict error) error {
	if r.ioFailed {
		return cmderr.ErrIOReported
	}
	return verdict
}

// summarize derives the run's summary from its counts and writes it where
// --summary says.
func (r *scanRun) summarize(st *pipeline.Stats, took time.Duration, walkErrors int, slice pipeline.Slice, stdout io.Writer) summary.Summary {
	o := r.o
	sum := summary.Summary{
		Counts:            st.Counts,
		Inputs:            st.Inputs + int64(walkErrors),
		InputErrors:       st.InputErrors + int64(walkErrors),
		Framings:          st.Framings,
		BytesRead:         st.BytesRead,
		BytesDecompressed: st.BytesDecompressed,
		Seconds:           took.Seconds(),
		StoppedEarly:      st.Stopped,
		Interrupted:       st.Interrupted,
		Shards:            1,
		Overrides:         overridesInForce(o.overrides),
		SchemaWouldPass:   st.SchemaWouldPass,
		WorstInputs:       st.WorstInputs,
	}
	if r.cfg.Signatures != nil {
		sum.Signatures = &summary.Signatures{Signed: st.Signed, Verified: st.Verified, Findings: st.SignatureFindings, Outcomes: st.SignatureOutcomes}
	}
	// A summary names the cards no profile judged "none", and splits each
	// profile's cards by verdict.
	sum.Profiles = map[string]int64{}
	for name, n := range st.Profiles {
		invalid := st.ProfileInvalid[name]
		if name == "" {
			name = "none"
		}
		sum.Profiles[name] += n
		if sum.ProfileVerdicts == nil {
			sum.ProfileVerdicts = map[string]summary.Verdicts{}
		}
		v := sum.ProfileVerdicts[name]
		v.Valid += n - invalid
		v.Invalid += invalid
		sum.ProfileVerdicts[name] = v
	}
	sum.Finish()
	if sum.InputErrors > 0 {
		r.ioFailed = true
	}
	if slice.Count > 1 && slice.Index != 0 {
		// Sliced by record, every shard reads every input: the first
		// counts them, so that the shards' summaries add up to one run's.
		sum.Inputs, sum.InputErrors, sum.BytesRead, sum.BytesDecompressed = 0, 0, 0, 0
		sum.Framings = map[string]int64{}
	}
	if o.summary != "" {
		if err := writeSummary(&sum, r.sumFile, stdout); err != nil {
			r.fail(fmt.Errorf("--summary %s: %s", o.summary, describe(err)))
		}
	}
	return sum
}

// crossCard writes --cross-card's findings after the verdicts, in the
// run's format, counts them under their rules and levels, and returns how
// many are errors. A run that ended early has seen part of the dump, whose
// claims would mislead.
func crossCard(cross *dump.Cross, cfg pipeline.Config, st *pipeline.Stats, con *console.Console) (int64, error) {
	if st.Stopped || st.Interrupted {
		con.Printf("note: --cross-card skipped: the run ended before its inputs did")
		return 0, nil
	}
	counts, err := cross.Finish(cfg.Findings)
	var changed *dump.ChangedError
	if errors.As(err, &changed) {
		// An input read again, before any finding was written.
		return 0, err
	}
	for rule, n := range counts.Rules {
		st.Rules[rule] += n
	}
	st.Errors += counts.Errors
	st.Warnings += counts.Warnings
	if err != nil {
		return counts.Errors, &pipeline.OutputError{Name: "stdout", Err: err}
	}
	return counts.Errors, nil
}

// inputFiles maps each input name that stands for one file to that file,
// for --cross-card to read again the records whose content it needs:
// standard input, and a name that two inputs have (--stdin-filename can
// give stdin a file's), are left out.
func inputFiles(inputs []pipeline.Input) map[string]string {
	files := make(map[string]string, len(inputs))
	var shared []string
	for _, in := range inputs {
		if path, seen := files[in.Name]; in.Path == "" || seen && path != in.Path {
			shared = append(shared, in.Name)
		}
		files[in.Name] = in.Path
	}
	for _, name := range shared {
		delete(files, name)
	}
	return files
}

// writeOut writes text to stdout; it fails (exit status 3) when the text
// could not be written (a full disk, /dev/full), since a script would
// otherwise take the missing text for success. A closed pipe is a reader
// that has all it wanted.
func writeOut(stdout io.Writer, text string) error {
	if _, err := io.WriteString(stdout, text); err != nil && !isClosedPipe(err) {
		return cmderr.IOf("writing stdout: %s", describe(err))
	}
	return nil
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

// writeDigests writes --digest-out, for a run that judged all its records.
func writeDigests(digests *dump.DigestSet, o *options, st *pipeline.Stats, walkErrors int, runErr error, con *console.Console) error {
	if digests == nil || runErr != nil || st.Interrupted {
		return nil
	}
	if st.InputErrors > 0 || walkErrors > 0 {
		// A merge would take the shard for whole and miss the records
		// it did not read.
		return fmt.Errorf("--digest-out %s not written: an input could not be read completely", o.digestOut)
	}
	if st.Stopped {
		con.Printf("note: --digest-out not written: the run ended before its inputs did")
		return nil
	}
	if err := digests.Write(o.digestOut, o.digestParts); err != nil {
		return fmt.Errorf("--digest-out %s: %s", o.digestOut, describe(err))
	}
	return nil
}
