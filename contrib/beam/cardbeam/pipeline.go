// Package cardbeam is cardscan's validation as an Apache Beam pipeline:
// dumps (NDJSON, plain, gzip or zstd) matched by a glob on any Beam
// filesystem, each card judged by fastvalidate, the valid and invalid
// records written as cardscan's --valid-out and --invalid-out write them,
// and the counts as cardscan's --summary, which cardscan summary merge
// adds to other runs'. It runs unchanged on any Beam runner: Prism here,
// Dataflow, Flink or Spark (docs/cli.md).
package cardbeam

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	// to a digest file of cardscan's format beside it (DigestSpec), for
	// cardscan merge. DigestParts and Memory are as DigestSpec's.
	Digest      string
	DigestParts int
	Memory      int64
}

func init() {
	register.DoFn6x1[context.Context, fileio.ReadableFile, []string, func(string), func(string), func(Summary), error](&judgeFileFn{})
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
	d := DigestSpec{Path: o.Digest, Parts: o.DigestParts, Memory: o.Memory, Kind: ClaimsDigest}
	if err := d.check(); err != nil {
		return err
	}
	for _, path := range []string{o.Inputs, o.ValidOut, o.InvalidOut, o.Summary, o.Digest} {
		if err := checkScheme(path); err != nil {
			return err
		}
	}
	valid, invalid, sums := judgeFiles(s, o.Inputs, o.Profile, d)
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
	if o.Summary != "" {
		beam.ParDo0(s, &writeSummaryFn{Path: o.Summary}, total)
	}
	if o.Digest != "" {
		beam.ParDo0(s, &checkReadFn{Glob: o.Inputs}, total)
	}
	return nil
}

// judgeFiles judges the files glob matches: their valid and invalid
// records, and a summary of each file.
func judgeFiles(s beam.Scope, glob, profile string, d DigestSpec) (valid, invalid, sums beam.PCollection) {
	matches := fileio.MatchFiles(s, glob)
	// Every input's place among all, as one cardscan run given the
	// matches in order would read them: the digests' records carry it,
	// so that a merge orders them as that run would.
	inputs := beam.Combine(s, &listFn{}, beam.ParDo(s, pathOf, matches))
	// Uncompressed: the file's bytes as stored are counted, and its
	// compression is told by content, as cardscan tells it.
	files := fileio.ReadMatches(s, matches, fileio.ReadUncompressed())
	// A file is the unit of work: a reshuffle spreads the files among
	// workers before each is read whole.
	files = beam.Reshuffle(s, files)
	return beam.ParDo3(s, &judgeFileFn{Profile: profile, Digests: d}, files, beam.SideInput{Input: inputs})
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

// checkReadFn fails the pipeline when an input could not be read whole:
// its digest file is not written, and a merge of the others' would miss
// its records, as cardscan's --digest-out is not written then.
type checkReadFn struct {
	Glob string
}

func (c *checkReadFn) ProcessElement(s Summary) error {
	if s.InputErrors > 0 {
		return fmt.Errorf("%s: %d of %d inputs could not be read completely, and have no digest file: %s",
			c.Glob, s.InputErrors, s.Inputs, strings.Join(s.Unread, "; "))
	}
	return nil
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
// records to the first output, the invalid to the second, and the file's
// summary to the third; with Digests, it writes the file's digest file.
type judgeFileFn struct {
	Profile string
	Digests DigestSpec

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
	sum := newSummary()
	sum.Inputs = 1
	name := file.Metadata.Path
	sink, err := f.Digests.open(name, inputs)
	if err != nil {
		return err
	}
	defer sink.close()
	rc, err := file.Open(ctx)
	if err == nil {
		stored := &countingReader{r: rc}
		in := InputCount{Input: name}
		err = f.judge(stored, &sum, &in, sink, valid, invalid)
		rc.Close()
		if sink.err != nil {
			// Not the input's fault: the bundle fails, and is run again.
			return sink.err
		}
		sum.BytesRead = stored.n
		if in.Invalid > 0 {
			sum.WorstInputs = []InputCount{in}
		}
	}
	if err != nil {
		// As cardscan: the records before the fault are judged, the rest
		// of the input is not, and the input counts as an input error,
		// for which no digest file is written.
		sum.InputErrors = 1
		sum.Unread = []string{name + ": " + err.Error()}
		emitSum(sum)
		return sink.discard(ctx)
	}
	emitSum(sum)
	return sink.write(ctx)
}

// judge reads one input's records into sum, in and sink.
func (f *judgeFileFn) judge(stored io.Reader, sum *Summary, in *InputCount, sink *digestSink, valid, invalid func(string)) error {
	r, done, err := decompress(stored)
	if err != nil {
		return err
	}
	defer done()
	sum.Framings["ndjson"] = 1
	n, err := eachLine(r, func(line []byte, number, offset int64) {
		// cardscan judges a record without the '\r' of a CRLF line and
		// copies it as read.
		rec := bytes.TrimSuffix(line, []byte{'\r'})
		res := f.v.Validate(rec)
		sum.Records++
		in.Records++
		profile := res.Profile
		if profile == "" {
			profile = "none"
		}
		sum.Profiles[profile]++
		pv := sum.ProfileVerdicts[profile]
		sum.Errors += int64(res.Errors())
		sum.Warnings += int64(res.Warnings())
		for _, fd := range res.Findings() {
			sum.Rules[fd.Code.String()]++
		}
		for _, u := range res.Unlisted() {
			sum.Rules[u.Code.String()] += int64(u.Count)
		}
		if sink.enabled() {
			sink.add(report.FromResult(in.Input, int(number), 1, offset, rec, res), f.v)
		}
		if res.Valid() {
			sum.Valid++
			pv.Valid++
			valid(string(line))
		} else {
			sum.Invalid++
			in.Invalid++
			pv.Invalid++
			if profile == "agentcard" && f.schema.Validate(rec).Valid() {
				sum.SchemaWouldPass++
			}
			invalid(string(line))
		}
		sum.ProfileVerdicts[profile] = pv
	})
	sum.BytesDecompressed = n
	return err
}

// mergeSummaryFn adds the files' summaries up.
type mergeSummaryFn struct{}

func (mergeSummaryFn) CreateAccumulator() Summary { return newSummary() }

func (mergeSummaryFn) AddInput(acc, s Summary) Summary { acc.add(s); return acc }

func (mergeSummaryFn) MergeAccumulators(a, b Summary) Summary { a.add(b); return a }

// writeSummaryFn writes the one summary to Path on a Beam filesystem.
type writeSummaryFn struct {
	Path string
}

func (w *writeSummaryFn) ProcessElement(ctx context.Context, s Summary) error {
	b, err := MarshalSummary(s)
	if err != nil {
		return err
	}
	return writeFile(ctx, w.Path, b)
}
