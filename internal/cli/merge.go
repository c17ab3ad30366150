package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/dump"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/summary"
)

type mergeOptions struct {
	format    string
	parsed    report.Format // format, parsed
	color     string
	summary   string
	memory    cmdflag.Size
	minLevel  string
	overrides []ruleOverride
}

const mergeUsageHead = `usage: cardscan merge [flags] DIGEST ...

Combines the digest files that sharded runs wrote (--digest-out) into what
one run over all the shards' inputs would write: of validation's shards,
the --cross-card findings; of diff's, the diff records. Give every shard's
file (of one part, with --digest-parts). The files are merged as sorted
runs, holding a record of each at a time.

flags:
`

const mergeUsageTail = `
exit status: 0 nothing to report (no error-level finding; no key changed),
1 otherwise, 2 usage error, 3 a digest file could not be read or an output
written.
`

func newMergeFlagSet(o *mergeOptions) *cmdflag.Set {
	var fs cmdflag.Set
	fs.String(&o.format, "--format FORMAT", "text", "claims: text, jsonl or github; diff: text or jsonl")
	cmdflag.AddColorFlag(&fs, &o.color)
	fs.String(&o.summary, "--summary FILE", "", "write the counts as JSON to FILE ('-' for stdout): of\n"+
		"claims, a summary that summary merge adds to the shards'")
	o.memory = DefaultMemory
	fs.Var(&o.memory, "--memory SIZE", "a group of claims held in memory before it spills")
	fs.Var(ruleFlag{&o.overrides}, "--rule RULE=LEVEL", "off, warning or error: a dump rule's level, as for\n"+
		"validation (repeatable)")
	fs.String(&o.minLevel, "--min-level LEVEL", "warning", "warning or error: hide findings below LEVEL")
	return &fs
}

func runMerge(args []string, stdout io.Writer, con *console.Console) error {
	start := time.Now()
	o := &mergeOptions{}
	paths, err := newMergeFlagSet(o).Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return writeOut(stdout, mergeUsageHead+newMergeFlagSet(&mergeOptions{}).Help()+mergeUsageTail)
	}
	if err == nil {
		err = checkMergeOptions(o, paths)
	}
	var kind byte
	if err == nil {
		if kind, err = dump.DigestFileKind(paths[0]); err != nil {
			return cmderr.IOf("merge: %s", err)
		}
		if kind == dump.DiffFile && !slices.Contains(diffFormats, o.parsed) {
			err = usagef("--format %q: diff digests give text or jsonl", o.format)
		}
	}
	if err == nil {
		ins := make([]clobber.File, 0, len(paths))
		for _, p := range paths {
			ins = append(ins, clobber.File{Role: "a digest file", Path: p})
		}
		err = guardFiles(ins, []clobber.File{{Role: "--summary", Path: o.summary}, {Role: "standard output", Path: "-"}}, nil, stdout)
	}
	if err != nil {
		return cmderr.Usage("cardscan merge", err)
	}
	var sumFile *pendingFile
	if o.summary != "" && o.summary != "-" {
		if sumFile, err = createPending(o.summary); err != nil {
			return cmderr.IOf("--summary %s: %s", o.summary, describe(err))
		}
		defer sumFile.discard()
	}
	style := report.Plain
	if o.parsed == report.FormatText && cmdflag.WantColor(o.color, stdout) {
		style = report.Color
	}
	var verdict error
	var sumJSON []byte
	if kind == dump.DiffFile {
		sumJSON, verdict = mergeDiff(o, paths, stdout, style, start, con)
	} else {
		sumJSON, verdict = mergeClaims(o, paths, stdout, style, start, con)
	}
	var failed *cmderr.IOError
	if errors.As(verdict, &failed) || o.summary == "" {
		return verdict
	}
	if sumFile == nil {
		_, err = stdout.Write(sumJSON)
	} else {
		err = sumFile.commit(sumJSON)
	}
	if err != nil {
		return cmderr.IOf("--summary %s: %s", o.summary, describe(err))
	}
	return verdict
}

func checkMergeOptions(o *mergeOptions, paths []string) error {
	if len(paths) == 0 {
		return usagef("no digest files given")
	}
	var err error
	if o.parsed, err = report.ParseFormat(o.format, report.FormatText, report.FormatJSONL, report.FormatGitHub); err != nil {
		return usagef("--format %s", err)
	}
	if !slices.Contains([]string{"auto", "always", "never"}, o.color) {
		return usagef("--color %q: want auto, always or never", o.color)
	}
	if !slices.Contains([]string{"warning", "error"}, o.minLevel) {
		return usagef("--min-level %q: want warning or error", o.minLevel)
	}
	if o.memory < 1<<10 {
		return usagef("--memory %d: want at least 1KiB", o.memory)
	}
	return nil
}

// mergeClaims writes the --cross-card findings of the claims in paths, and
// returns the summary and the verdict (cmderr.ErrFailed when some error was found): of no records, with the
// findings' counts, which summary merge adds to the shards' summaries to
// make what one run's says.
func mergeClaims(o *mergeOptions, paths []string, stdout io.Writer, style report.Style, start time.Time, con *console.Console) ([]byte, error) {
	cross, err := dump.NewCross(int64(o.memory))
	if err != nil {
		return nil, cmderr.IOf("merge: %s", describe(err))
	}
	defer cross.Close()
	cross.Levels = overrideTable(o.overrides)
	if o.minLevel == "error" {
		cross.MinLevel = fastvalidate.SeverityError
	}
	counts, err := cross.MergeFiles(paths, o.parsed.Writer(stdout, report.WriterOptions{Style: style}))
	if err != nil {
		if isClosedPipe(err) {
			return nil, cmderr.ErrFailed
		}
		return nil, cmderr.IOf("merge: %s", describe(err))
	}
	sum := summary.Summary{
		Counts:   summary.Counts{Rules: counts.Rules, Errors: counts.Errors, Warnings: counts.Warnings, Profiles: map[string]int64{}},
		Framings: map[string]int64{},
		Seconds:  time.Since(start).Seconds(),
	}
	sum.Finish()
	b, err := sum.Marshal()
	if err != nil {
		return nil, cmderr.IOf("merge: %s", err)
	}
	con.Printf("%s: %s, %s across cards", countOf(int64(len(paths)), "digest file"), countOf(counts.Errors, "error"), countOf(counts.Warnings, "warning"))
	if counts.Errors > 0 {
		return b, cmderr.ErrFailed
	}
	return b, nil
}

// mergeDiff writes the diff records of the digests in paths, and returns
// the summary, as diff's --summary writes it.
func mergeDiff(o *mergeOptions, paths []string, stdout io.Writer, style report.Style, start time.Time, con *console.Console) ([]byte, error) {
	d, err := dump.NewDiffer(int64(o.memory))
	if err != nil {
		return nil, cmderr.IOf("merge: %s", describe(err))
	}
	defer d.Close()
	d.Format, d.Style = o.parsed, style
	sum, err := d.MergeFiles(paths, stdout)
	if err != nil {
		if isClosedPipe(err) {
			return nil, cmderr.ErrFailed
		}
		return nil, cmderr.IOf("merge: %s", describe(err))
	}
	sum.Seconds = time.Since(start).Seconds()
	b, err := json.MarshalIndent(struct {
		Diff dump.DiffSummary `json:"diff"`
	}{sum}, "", "  ")
	if err != nil {
		return nil, cmderr.IOf("merge: %s", err)
	}
	con.Printf("%s", diffHuman(&sum))
	if sum.Added+sum.Removed+sum.Broke+sum.Fixed+sum.Changed > 0 {
		return append(b, '\n'), cmderr.ErrFailed
	}
	return append(b, '\n'), nil
}

// countOf is "1 error", "0 errors", "2 errors".
func countOf(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}
