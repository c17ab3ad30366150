// Package cardbeam is cardscan's validation as an Apache Beam pipeline:
// dumps (NDJSON, plain, gzip or zstd) matched by a glob on any Beam
// filesystem, each card judged by fastvalidate, the valid and invalid
// records written as cardscan's --valid-out and --invalid-out write them,
// the counts as cardscan's --summary, which cardscan summary merge adds
// to other runs', and the digest files of cardscan's --digest-out, which
// cardscan merge turns into one run's --cross-card findings (or, of two
// crawls, BuildDiff's, into cardscan diff's records). It runs unchanged
// on any Beam runner: Prism here, Dataflow, Flink or Spark (docs/cli.md).
package cardbeam

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

// Options are what a pipeline reads and writes.
type Options struct {
	// Inputs is a glob of dump files on a Beam filesystem (a local path,
	// gs://...): every file it matches is read as NDJSON.
	Inputs string
	// Profile is the fastvalidate profile, "auto" as cardscan's default.
	Profile string
	// ValidOut, InvalidOut and Summary are the files written; an empty
	// name writes none.
	ValidOut, InvalidOut, Summary string
	// Digest, when set, has every input's --cross-card claims written
	// to a digest file of cardscan's format (DigestSpec), for cardscan
	// merge. DigestParts, DigestShards and Memory are as DigestSpec's
	// Parts, Shards and Memory.
	Digest       string
	DigestParts  int
	DigestShards int
	Memory       int64
}

func init() {
	register.DoFn6x1[context.Context, fileio.ReadableFile, []string, func(string), func(string), func(Summary), error](&judgeFileFn{})
	register.DoFn2x3[fileio.ReadableFile, []string, int, fileio.ReadableFile, error](&shardOfFn{})
	register.DoFn7x1[context.Context, int, func(*fileio.ReadableFile) bool, []string, func(string), func(string), func(Summary), error](&judgeShardFn{})
	register.Iter1[fileio.ReadableFile]()
	register.Emitter1[Summary]()
	register.Emitter1[string]()
	register.DoFn2x1[context.Context, Summary, error](&writeSummaryFn{})
	register.Combiner3[Summary, Summary, Summary](&mergeSummaryFn{})
	register.Combiner3[[]string, string, []string](&listFn{})
	register.Function1x1(pathOf)
	register.DoFn1x1[Summary, error](&checkReadFn{})
	beam.RegisterCoder(reflect.TypeOf(Summary{}), encodeSummary, decodeSummary)
}

// The summary travels between workers as its own JSON.
func encodeSummary(s Summary) ([]byte, error) { return json.Marshal(s) }

func decodeSummary(b []byte) (Summary, error) {
	s := newSummary()
	err := json.Unmarshal(b, &s)
	return s, err
}

// Build adds the pipeline to s.
func Build(s beam.Scope, o Options) error {
	if o.Profile == "" {
		o.Profile = "auto"
	}
	if _, err := fastvalidate.New(o.Profile); err != nil {
		return fmt.Errorf("profile %q: %w", o.Profile, err)
	}
	d := DigestSpec{Path: o.Digest, Parts: o.DigestParts, Shards: o.DigestShards, Memory: o.Memory, Kind: ClaimsDigest}
	if err := d.check(); err != nil {
		return err
	}
	for _, path := range []string{o.Inputs, o.ValidOut, o.InvalidOut, o.Summary, o.Digest} {
		if err := checkScheme(path); err != nil {
			return err
		}
	}
	if err := checkOutputs(context.Background(), o); err != nil {
		return err
	}
	if err := d.checkOutside(o.Inputs); err != nil {
		return err
	}
	valid, invalid, sums := judgeFiles(s, o.Inputs, judgeFileFn{Profile: o.Profile, Digests: d,
		CopyValid: o.ValidOut != "", CopyInvalid: o.InvalidOut != ""})
	if o.ValidOut != "" {
		textio.Write(s, o.ValidOut, valid)
	}
	if o.InvalidOut != "" {
		textio.Write(s, o.InvalidOut, invalid)
	}
	if o.Summary == "" && o.Digest == "" {
		return nil
	}
	total := beam.Combine(s, &mergeSummaryFn{}, sums)
	check := checkReadFn{}
	if o.Digest != "" {
		check.Glob = o.Inputs
	}
	if o.Summary != "" {
		// The one step, so that the summary is written before the check
		// fails the pipeline.
		beam.ParDo0(s, &writeSummaryFn{Path: o.Summary, Check: check}, total)
	} else {
		beam.ParDo0(s, &check, total)
	}
	return nil
}

// judgeFiles judges the files glob matches with judge: their valid and
// invalid records, and a summary of each file.
func judgeFiles(s beam.Scope, glob string, judge judgeFileFn) (valid, invalid, sums beam.PCollection) {
	matches := fileio.MatchFiles(s, glob)
	// Every input's place among all, as one cardscan run given the
	// matches in order would read them: the digests' records carry it,
	// so that a merge orders them as that run would.
	inputs := beam.Combine(s, &listFn{}, beam.ParDo(s, pathOf, matches))
	// Uncompressed: the file's bytes as stored are counted, and its
	// compression is told by content, as cardscan tells it.
	files := fileio.ReadMatches(s, matches, fileio.ReadUncompressed())
	side := beam.SideInput{Input: inputs}
	if d := judge.Digests; d.Path != "" && d.Shards > 0 {
		// A shard's files are judged by one worker, in order, into one
		// digest file.
		keyed := beam.ParDo(s, &shardOfFn{Shards: d.Shards}, files, side)
		return beam.ParDo3(s, &judgeShardFn{Judge: judge}, beam.GroupByKey(s, keyed), side)
	}
	// A file is the unit of work: a reshuffle spreads the files among
	// workers before each is read whole.
	files = beam.Reshuffle(s, files)
	return beam.ParDo3(s, &judge, files, side)
}

func pathOf(m fileio.FileMetadata) string { return m.Path }

// listFn gathers strings into one sorted list.
type listFn struct{}

func (listFn) CreateAccumulator() []string { return nil }

func (listFn) AddInput(acc []string, s string) []string { return append(acc, s) }

func (listFn) MergeAccumulators(a, b []string) []string { return append(a, b...) }

func (listFn) ExtractOutput(acc []string) []string {
	slices.Sort(acc)
	return acc
}

// checkReadFn fails the pipeline, when it writes digests of the inputs
// Glob matches, if an input could not be read whole: its digest file is
// not written, and a merge of the others' would miss its records, as
// cardscan's --digest-out is not written then.
type checkReadFn struct {
	Glob string
}

func (c *checkReadFn) ProcessElement(s Summary) error {
	if c.Glob != "" && s.InputErrors > 0 {
		return fmt.Errorf("%s: %d of %d inputs could not be read completely, and have no digest file: %s",
			c.Glob, s.InputErrors, s.Inputs, strings.Join(s.Unread, "; "))
	}
	return nil
}

// checkOutputs refuses an output that is one of the inputs, that the
// inputs' glob matches (a later run would read it as a dump), or that is
// another output, as cardscan refuses an out file that is an input:
// textio.Write would replace a dump with the run's output.
func checkOutputs(ctx context.Context, o Options) error {
	var inputs []string
	if fs, err := filesystem.New(ctx, o.Inputs); err == nil {
		// A glob that cannot be listed now fails the pipeline's own
		// match; the pattern is still checked below.
		inputs, _ = fs.List(ctx, o.Inputs)
		fs.Close()
	}
	for i := range inputs {
		inputs[i] = canonicalPath(inputs[i])
	}
	glob := canonicalPath(o.Inputs)
	seen := map[string]string{}
	for _, out := range []struct{ flag, path string }{{"--valid-out", o.ValidOut}, {"--invalid-out", o.InvalidOut}, {"--summary", o.Summary}} {
		if out.path == "" {
			continue
		}
		p := canonicalPath(out.path)
		if other, ok := seen[p]; ok {
			return fmt.Errorf("%s %s is also %s", out.flag, out.path, other)
		}
		seen[p] = out.flag
		if slices.Contains(inputs, p) {
			return fmt.Errorf("%s %s is also an input: writing it would destroy it", out.flag, out.path)
		}
		if matched, _ := path.Match(glob, p); matched {
			return fmt.Errorf("%s %s is matched by --inputs %s: a later run would read it as a dump", out.flag, out.path, o.Inputs)
		}
	}
	return nil
}

// checkOutside refuses a digest whose files glob matches: a later run
// would judge them as dumps.
func (d DigestSpec) checkOutside(glob string) error {
	if d.Path == "" {
		return nil
	}
	first := d.fileOf(0, 1, d.Shards > 0)
	if matched, _ := path.Match(canonicalPath(glob), canonicalPath(first)); matched {
		return fmt.Errorf("--digest %s: its files (%s) are matched by %s: a later run would read them as dumps", d.Path, first, glob)
	}
	return nil
}

// canonicalPath is p as the outputs are compared with the inputs: a local
// path absolute and clean, with slashes; another filesystem's URL as
// given.
func canonicalPath(p string) string {
	if strings.Contains(p, "://") {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return filepath.ToSlash(p)
}

// checkScheme is Beam's check that path's filesystem is registered (an
// import of its package, as beamx imports local and gcs), as an error
// naming the path rather than Beam's panic.
func checkScheme(path string) (err error) {
	if path == "" {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %v", path, r)
		}
	}()
	filesystem.ValidateScheme(path)
	return nil
}

// judgeFileFn reads one dump and judges each of its cards: the valid
// records to the first output (with CopyValid), the invalid to the second
// (with CopyInvalid), and the file's summary to the third; with Digests,
// it writes the file's digest file. A record no output wants is not
// copied: a diff's records, or a run's without --valid-out.
type judgeFileFn struct {
	Profile                string
	Digests                DigestSpec
	CopyValid, CopyInvalid bool

	v, schema *fastvalidate.Validator
}

func (f *judgeFileFn) Setup() error {
	var err error
	if f.v, err = fastvalidate.New(f.Profile); err != nil {
		return err
	}
	f.schema, err = fastvalidate.New("agentcard-schema")
	return err
}

func (f *judgeFileFn) ProcessElement(ctx context.Context, file fileio.ReadableFile, inputs []string, valid, invalid func(string), emitSum func(Summary)) error {
	return f.judgeFiles(ctx, []fileio.ReadableFile{file}, inputs, -1, valid, invalid, emitSum)
}

// judgeFiles judges files, in their order among inputs, into one digest
// file: input's own (shard -1) or shard's.
func (f *judgeFileFn) judgeFiles(ctx context.Context, files []fileio.ReadableFile, inputs []string, shard int, valid, invalid func(string), emitSum func(Summary)) error {
	names := make([]string, len(files))
	for i, file := range files {
		names[i] = file.Metadata.Path
	}
	sink, err := f.Digests.open(names, inputs, shard)
	if err != nil {
		return err
	}
	defer sink.close()
	whole := true
	for _, file := range files {
		sum, err := f.judgeFile(ctx, file, sink, valid, invalid)
		if err != nil {
			return err
		}
		whole = whole && sum.InputErrors == 0
		emitSum(sum)
	}
	if !whole {
		// No digest file for an input read in part (or the shard
		// holding it): a merge would miss its records.
		return sink.discard(ctx)
	}
	return sink.write(ctx)
}

// judgeFile judges one file into its summary. Its error is not the
// input's fault (its digest records could not be kept): the bundle fails,
// and is run again.
func (f *judgeFileFn) judgeFile(ctx context.Context, file fileio.ReadableFile, sink *digestSink, valid, invalid func(string)) (Summary, error) {
	sum := newSummary()
	sum.Inputs = 1
	name := file.Metadata.Path
	rc, err := file.Open(ctx)
	if err == nil {
		stored := &countingReader{r: rc}
		in := InputCount{Input: name}
		err = f.judge(stored, &sum, &in, sink, valid, invalid)
		rc.Close()
		if sink.err != nil {
			return sum, sink.err
		}
		sum.BytesRead = stored.n
		if in.Invalid > 0 {
			sum.WorstInputs = []InputCount{in}
		}
	}
	if err != nil {
		// As cardscan: the records before the fault are judged, the rest
		// of the input is not, and the input counts as an input error.
		sum.InputErrors = 1
		sum.Unread = []string{name + ": " + err.Error()}
	}
	return sum, nil
}

// shardOfFn keys each file by its shard: its place among the inputs
// (sorted) mod Shards.
type shardOfFn struct {
	Shards int
}

func (f *shardOfFn) ProcessElement(file fileio.ReadableFile, inputs []string) (int, fileio.ReadableFile, error) {
	i, found := slices.BinarySearch(inputs, file.Metadata.Path)
	if !found {
		return 0, file, fmt.Errorf("%s: not among the %d inputs matched", file.Metadata.Path, len(inputs))
	}
	return i % f.Shards, file, nil
}

// judgeShardFn judges the files of one shard, one after the other in
// their order among the inputs, into the shard's digest file.
type judgeShardFn struct {
	Judge judgeFileFn
}

func (f *judgeShardFn) Setup() error { return f.Judge.Setup() }

func (f *judgeShardFn) ProcessElement(ctx context.Context, shard int, iter func(*fileio.ReadableFile) bool, inputs []string, valid, invalid func(string), emitSum func(Summary)) error {
	var files []fileio.ReadableFile
	var file fileio.ReadableFile
	for iter(&file) {
		files = append(files, file)
	}
	slices.SortFunc(files, func(a, b fileio.ReadableFile) int { return strings.Compare(a.Metadata.Path, b.Metadata.Path) })
	return f.Judge.judgeFiles(ctx, files, inputs, shard, valid, invalid, emitSum)
}

// judge reads one input's records into sum, in and sink.
func (f *judgeFileFn) judge(stored io.Reader, sum *Summary, in *InputCount, sink *digestSink, valid, invalid func(string)) error {
	r, done, err := decompress(stored)
	if err != nil {
		return err
	}
	defer done()
	sum.Framings["ndjson"] = 1
	n, err := eachLine(r, func(line []byte, number, offset int64, tooLarge bool) {
		if tooLarge {
			f.judgeTooLarge(number, offset, sum, in, sink)
			return
		}
		// cardscan judges a record without the '\r' of a CRLF line and
		// copies it as read.
		rec := bytes.TrimSuffix(line, []byte{'\r'})
		res := f.v.Validate(rec)
		profile := res.Profile
		if profile == "" {
			profile = "none"
		}
		count(sum, in, profile, res.Valid(), int64(res.Errors()), int64(res.Warnings()))
		for _, fd := range res.Findings() {
			sum.Rules[fd.Code.String()]++
		}
		for _, u := range res.Unlisted() {
			sum.Rules[u.Code.String()] += int64(u.Count)
		}
		if sink.enabled() {
			sink.add(report.FromResult(in.Input, int(number), 1, offset, rec, res), f.v)
		}
		switch {
		case res.Valid() && f.CopyValid:
			valid(string(line))
		case !res.Valid():
			if profile == "agentcard" && f.schema.Validate(rec).Valid() {
				sum.SchemaWouldPass++
			}
			if f.CopyInvalid {
				invalid(string(line))
			}
		}
	})
	sum.BytesDecompressed = n
	return err
}

// judgeTooLarge counts a line longer than MaxRecord as cardscan does: one
// invalid record of rule input.too-large, of the profile asked for (none
// under auto). It is not copied to the invalid output: a Beam element is
// held whole, and the line was read without being held.
func (f *judgeFileFn) judgeTooLarge(number, offset int64, sum *Summary, in *InputCount, sink *digestSink) {
	vd := report.TooLarge(in.Input, int(number), 1, offset, MaxRecord)
	profile := "none"
	if f.Profile != "auto" {
		vd.Profile = f.v.Profile()
		profile = vd.Profile
	}
	count(sum, in, profile, false, 1, 0)
	sum.Rules[fastvalidate.CodeInputTooLarge.String()]++
	if sink.enabled() {
		sink.add(vd, nil)
	}
}

// count counts one record of profile in sum and in.
func count(sum *Summary, in *InputCount, profile string, valid bool, errors, warnings int64) {
	sum.Records++
	in.Records++
	sum.Profiles[profile]++
	pv := sum.ProfileVerdicts[profile]
	if valid {
		sum.Valid++
		pv.Valid++
	} else {
		sum.Invalid++
		in.Invalid++
		pv.Invalid++
	}
	sum.ProfileVerdicts[profile] = pv
	sum.Errors += errors
	sum.Warnings += warnings
}

// mergeSummaryFn adds the files' summaries up.
type mergeSummaryFn struct{}

func (mergeSummaryFn) CreateAccumulator() Summary { return newSummary() }

func (mergeSummaryFn) AddInput(acc, s Summary) Summary { acc.add(s); return acc }

func (mergeSummaryFn) MergeAccumulators(a, b Summary) Summary { a.add(b); return a }

// writeSummaryFn writes the one summary to Path on a Beam filesystem,
// and then runs Check.
type writeSummaryFn struct {
	Path  string
	Check checkReadFn
}

func (w *writeSummaryFn) ProcessElement(ctx context.Context, s Summary) error {
	b, err := MarshalSummary(s)
	if err != nil {
		return err
	}
	if err := writeFile(ctx, w.Path, b); err != nil {
		return err
	}
	return w.Check.ProcessElement(s)
}
