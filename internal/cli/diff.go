package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/dump"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
)

// DefaultMemory is --memory's default: the digests diff and --cross-card
// hold before they spill to temporary files.
const DefaultMemory = 1 << 30

// diffFormats are the formats of diff records.
var diffFormats = []report.Format{report.FormatText, report.FormatJSONL}

type diffOptions struct {
	readOptions
	signatureOptions
	key     string
	format  string
	parsed  report.Format // format, parsed
	summary string
}

const diffUsageHead = `usage: cardscan diff [flags] OLD NEW

Compares two dumps of cards (files or directories, any framing and
compression validation reads, or cardscan fetch --format cards output):
one record per key that was added, removed, broke (valid before, invalid
now), was fixed, or changed, sorted by key. With --keys or --trust the
cards' signatures are verified as validation verifies them, and a key
whose card is signed by other keys than before (by RFC 7638 thumbprint)
is signer-changed. Cards are matched by key (see
--key); cards whose canonical forms (RFC 8785) are equal are unchanged.
Of several records with one key in a dump, the last is compared.

flags:
`

const diffUsageTail = `
exit status: 0 no key changed, 1 some key changed, 2 usage error,
3 an input could not be read or an output written.
`

func newDiffFlagSet(o *diffOptions) *cmdflag.Set {
	var fs cmdflag.Set
	o.addReadingFlags(&fs)
	fs.String(&o.key, "--key KEY", "auto", "auto, source or id: what matches a card across dumps\n"+
		"(source: the URL of fetch output; id: agent_id, the A2A\n"+
		"url, or the MA2D invocation.endpoint; auto: source for\n"+
		"fetch output, else id; a card with neither is keyed by\n"+
		"its content, xxh128:...)")
	fs.String(&o.format, "--format FORMAT", "text", report.Choice(diffFormats))
	cmdflag.AddColorFlag(&fs, &o.color)
	fs.String(&o.summary, "--summary FILE", "", "write the counts as JSON to FILE ('-' for stdout)")
	o.memory = DefaultMemory
	fs.Var(&o.memory, "--memory SIZE", "digests held in memory before they spill to\n"+
		"sorted temporary files, made only then")
	o.addShardFlags(&fs, "both dumps' digests")
	o.signatureOptions.addFlags(&fs)
	return &fs
}

func runDiff(args []string, stdin io.Reader, stdout io.Writer, con *console.Console) error {
	start := time.Now()
	o, paths, err := parseDiffArgs(args, stdin, stdout)
	if err != nil || o == nil {
		return err
	}
	sigs, err := o.signatureOptions.config(nil)
	if err != nil {
		return cmderr.Usage("cardscan diff", err)
	}
	mode, _ := dump.ParseKeyMode(o.key)
	if o.digestOut != "" {
		return diffDigests(o, paths, mode, stdin, con)
	}
	var sumFile *pendingFile
	if o.summary != "" && o.summary != "-" {
		if sumFile, err = createPending(o.summary); err != nil {
			return cmderr.IOf("--summary %s: %s", o.summary, describe(err))
		}
		defer sumFile.discard()
	}
	d, err := dump.NewDiffer(int64(o.memory))
	if err != nil {
		return cmderr.IOf("diff: %s", describe(err))
	}
	defer d.Close()
	d.Format = o.parsed
	d.Jobs = o.Jobs
	d.Signatures = sigs != nil
	if o.parsed == report.FormatText && cmdflag.WantColor(o.color, stdout) {
		d.Style = report.Color
	}
	sig := catchSignals()
	defer sig.stop()
	bytes, err := readDumps(d, o, paths, mode, sigs, sig, stdin, con)
	if err != nil {
		return err
	}
	sum, err := d.Finish(stdout)
	if err != nil {
		if isClosedPipe(err) {
			return cmderr.ErrFailed
		}
		return cmderr.IOf("diff: writing: %s", describe(err))
	}
	sum.Seconds = time.Since(start).Seconds()
	if sum.Seconds > 0 {
		sum.MBPerSecond = float64(bytes) / 1e6 / sum.Seconds
	}
	var verdict error
	if sum.Added+sum.Removed+sum.Broke+sum.Fixed+sum.Changed > 0 || sum.SignerChanged != nil && *sum.SignerChanged > 0 {
		verdict = cmderr.ErrFailed
	}
	if o.summary != "" {
		if err := writeDiffSummary(&sum, sumFile, stdout); err != nil {
			con.Errorf("--summary %s: %s", o.summary, describe(err))
			verdict = cmderr.ErrIOReported
		}
	}
	con.Printf("%s", diffHuman(&sum))
	return verdict
}

// parseDiffArgs parses and checks diff's command line. It returns no
// options and no error when --help was written.
func parseDiffArgs(args []string, stdin io.Reader, stdout io.Writer) (*diffOptions, []string, error) {
	o := &diffOptions{}
	paths, err := newDiffFlagSet(o).Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, nil, writeOut(stdout, diffUsageHead+newDiffFlagSet(&diffOptions{}).Help()+diffUsageTail)
	}
	if err == nil {
		err = checkDiffOptions(o, paths)
	}
	if err == nil {
		read := []clobber.File{{Role: "OLD", Path: paths[0]}, {Role: "NEW", Path: paths[1]}}
		for _, k := range o.Keys {
			read = append(read, clobber.File{Role: "--keys", Path: k})
		}
		if o.TrustFile != "" {
			read = append(read, clobber.File{Role: "--trust", Path: o.TrustFile})
		}
		err = guardFiles(read,
			append(digestFiles(o.digestOut, o.digestParts), clobber.File{Role: "--summary", Path: o.summary}, clobber.File{Role: "standard output", Path: "-"}),
			stdin, stdout)
	}
	if err != nil {
		return nil, nil, cmderr.Usage("cardscan diff", err)
	}
	return o, paths, nil
}

// readDumps reads OLD and then NEW into d, and returns the bytes they
// held once decompressed. A dump read in part would show its unread cards
// as removed or added: it is an error, and no diff is written.
func readDumps(d *dump.Differ, o *diffOptions, paths []string, mode dump.KeyMode, sigs *pipeline.Signatures, sig *signals, stdin io.Reader, con *console.Console) (int64, error) {
	framing, _ := pipeline.ParseFraming(o.Input)
	var bytes int64
	var prior func(kind byte, key []byte) ([]byte, bool)
	var recall func() func(dst, rec []byte, input string, line int) ([]byte, bool)
	for i, add := range []func([]byte) error{d.AddOld, d.AddNew} {
		if i == 1 {
			prior, recall = d.OldRead()
		}
		inputs, _, walkErrors := expandPaths(paths[i:i+1], framing, stdin, con, nil)
		cfg := pipeline.Config{
			Profile:   o.Profile,
			Jobs:      o.Jobs,
			ChunkSize: int(o.ChunkSize),
			MaxRecord: int(o.MaxRecord),
			Options:   policyOptions(o.Policy),
			// One verifier for both dumps: a trusted jku is fetched once,
			// and a card is judged alike on either side.
			Signatures: sigs,
			Stdin:      stdin,
			Diagnose:   func(msg string) { con.Errorf("%s", msg) },
			Note:       func(msg string) { con.Printf("%s", msg) },
			Interrupt:  sig.interrupt,
			Extract: func() func([]byte, report.Verdict, *fastvalidate.Validator) []byte {
				x := dump.NewExtractor(mode)
				if i == 1 {
					x.SetPrior(prior)
				}
				return x.Append
			},
			Recall:  recall,
			Collect: add,
		}
		st, err := pipeline.Run(cfg, inputs)
		if st.Interrupted {
			return 0, cmderr.Interrupted(sig.signal())
		}
		if err != nil {
			return 0, cmderr.IOf("diff: %s", describe(err))
		}
		if st.InputErrors > 0 || walkErrors > 0 {
			return 0, cmderr.IOf("diff: %s could not be read completely; no diff written", paths[i])
		}
		bytes += st.BytesDecompressed
	}
	return bytes, nil
}

// writeDiffSummary writes --summary: the diff's counts as JSON, to its
// prepared file, or to stdout when there is none ('-').
func writeDiffSummary(sum *dump.DiffSummary, f *pendingFile, stdout io.Writer) error {
	b, err := json.MarshalIndent(struct {
		Diff dump.DiffSummary `json:"diff"`
	}{*sum}, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if f == nil {
		_, err = stdout.Write(b)
		return err
	}
	return f.commit(b)
}

func checkDiffOptions(o *diffOptions, paths []string) error {
	if len(paths) != 2 {
		return usagef("want two dumps, OLD and NEW; got %d", len(paths))
	}
	if paths[0] == "-" && paths[1] == "-" {
		return usagef("OLD and NEW cannot both be standard input")
	}
	if err := o.readOptions.check(); err != nil {
		return err
	}
	if err := o.signatureOptions.check(false); err != nil {
		return err
	}
	if err := cmdflag.CheckProfile(o.Profile); err != nil {
		return usageError{err.Error()}
	}
	if _, ok := dump.ParseKeyMode(o.key); !ok {
		return usagef("--key %q: want auto, source or id", o.key)
	}
	var err error
	if o.parsed, err = report.ParseFormat(o.format, diffFormats...); err != nil {
		return usagef("--format %s", err)
	}
	if o.digestOut == "-" {
		return usagef("--digest-out -: want a file (cardscan merge reads several)")
	}
	if o.sharding.sharded() && o.digestOut == "" {
		return usagef("--shard: a shard of a diff writes --digest-out, which cardscan merge of every shard's compares")
	}
	return nil
}

// diffHuman is diff's line on stderr.
func diffHuman(s *dump.DiffSummary) string {
	signers := ""
	if s.SignerChanged != nil {
		signers = fmt.Sprintf(", %d signer changed", *s.SignerChanged)
	}
	return fmt.Sprintf("%d old and %s: %d added, %d removed, %d broke, %d fixed, %d changed%s, %d unchanged (%.1f MB/s)",
		s.OldRecords, countOf(s.NewRecords, "new record"), s.Added, s.Removed, s.Broke, s.Fixed, s.Changed, signers, s.Unchanged, s.MBPerSecond)
}

// diffDigests reads the shard's slice of both dumps into a digest file
// (--digest-out), for cardscan merge to compare with the other shards'.
func diffDigests(o *diffOptions, paths []string, mode dump.KeyMode, stdin io.Reader, con *console.Console) error {
	if err := checkDigestOut(o.digestOut, o.digestParts); err != nil {
		return err
	}
	sig := catchSignals()
	defer sig.stop()
	framing, _ := pipeline.ParseFraming(o.Input)
	set := dump.NewDiffDigests(int64(o.memory), mode, nil)
	defer set.Close()
	for i := range 2 {
		all, _, walkErrors := expandPaths(paths[i:i+1], framing, stdin, con, nil)
		inputs, slice := o.sharding.pick(all)
		set.SetOrder(inputOrder(all))
		st, err := pipeline.Run(pipeline.Config{
			Slice:     slice,
			Profile:   o.Profile,
			Jobs:      o.Jobs,
			ChunkSize: int(o.ChunkSize),
			MaxRecord: int(o.MaxRecord),
			Options:   policyOptions(o.Policy),
			Stdin:     stdin,
			Diagnose:  func(msg string) { con.Errorf("%s", msg) },
			Note:      func(msg string) { con.Printf("%s", msg) },
			Interrupt: sig.interrupt,
			Extract:   set.Extract(byte(i)),
			Collect:   set.Add,
		}, inputs)
		if st.Interrupted {
			return cmderr.Interrupted(sig.signal())
		}
		if err != nil {
			return cmderr.IOf("diff: %s", describe(err))
		}
		if st.InputErrors > 0 || walkErrors > 0 {
			return cmderr.IOf("diff: %s could not be read completely; no digests written", paths[i])
		}
	}
	if err := set.Write(o.digestOut, o.digestParts); err != nil {
		return cmderr.IOf("--digest-out %s: %s", o.digestOut, describe(err))
	}
	return nil
}
