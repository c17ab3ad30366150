// Package cardbeam is cardscan's validation as an Apache Beam pipeline:
// dumps (NDJSON, plain, gzip or zstd) matched by a glob on any Beam
// filesystem, each card judged by fastvalidate, the valid and invalid
// records written as cardscan's --valid-out and --invalid-out write them,
// and the counts as cardscan's --summary, which cardscan summary merge
// adds to other runs'. It runs unchanged on any Beam runner: Prism here,
// Dataflow, Flink or Spark (docs/cli.md).
package cardbeam

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/cardscan/cardscan/fastvalidate"
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
}

func init() {
	register.DoFn5x1[context.Context, fileio.ReadableFile, func(string), func(string), func(Summary), error](&judgeFileFn{})
	register.Emitter1[Summary]()
	register.Emitter1[string]()
	register.DoFn2x1[context.Context, Summary, error](&writeSummaryFn{})
	register.Combiner3[Summary, Summary, Summary](&mergeSummaryFn{})
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
	for _, path := range []string{o.Inputs, o.ValidOut, o.InvalidOut, o.Summary} {
		if err := checkScheme(path); err != nil {
			return err
		}
	}
	// Uncompressed: the file's bytes as stored are counted, and its
	// compression is told by content, as cardscan tells it.
	files := fileio.ReadMatches(s, fileio.MatchFiles(s, o.Inputs), fileio.ReadUncompressed())
	// A file is the unit of work: a reshuffle spreads the files among
	// workers before each is read whole.
	files = beam.Reshuffle(s, files)
	valid, invalid, sums := beam.ParDo3(s, &judgeFileFn{Profile: o.Profile}, files)
	if o.ValidOut != "" {
		textio.Write(s, o.ValidOut, valid)
	}
	if o.InvalidOut != "" {
		textio.Write(s, o.InvalidOut, invalid)
	}
	if o.Summary != "" {
		total := beam.Combine(s, &mergeSummaryFn{}, sums)
		beam.ParDo0(s, &writeSummaryFn{Path: o.Summary}, total)
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
// summary to the third.
type judgeFileFn struct {
	Profile string

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

func (f *judgeFileFn) ProcessElement(ctx context.Context, file fileio.ReadableFile, valid, invalid func(string), emitSum func(Summary)) error {
	sum := newSummary()
	sum.Inputs = 1
	name := file.Metadata.Path
	rc, err := file.Open(ctx)
	if err != nil {
		sum.InputErrors = 1
		emitSum(sum)
		return nil
	}
	defer rc.Close()
	stored := &countingReader{r: rc}
	in := InputCount{Input: name}
	err = f.judge(stored, &sum, &in, valid, invalid)
	sum.BytesRead = stored.n
	if err != nil {
		// As cardscan: the records before the fault are judged, the rest
		// of the input is not, and the input counts as an input error.
		sum.InputErrors = 1
	}
	if in.Invalid > 0 {
		sum.WorstInputs = []InputCount{in}
	}
	emitSum(sum)
	return nil
}

// judge reads one input's records into sum and in.
func (f *judgeFileFn) judge(stored io.Reader, sum *Summary, in *InputCount, valid, invalid func(string)) error {
	r, done, err := decompress(stored)
	if err != nil {
		return err
	}
	defer done()
	sum.Framings["ndjson"] = 1
	n, err := eachLine(r, func(line []byte, _ int64) {
		res := f.v.Validate(line)
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
		if res.Valid() {
			sum.Valid++
			pv.Valid++
			valid(string(line))
		} else {
			sum.Invalid++
			in.Invalid++
			pv.Invalid++
			if profile == "agentcard" && f.schema.Validate(line).Valid() {
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
