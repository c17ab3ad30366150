package cardbeam

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// An output that is one of the inputs, or that the inputs' glob would
// match on the next run, or another output, is refused before the
// pipeline runs, as cardscan refuses an out file that is an input: Beam
// would write it over a dump, or read a run's own output as a dump.
func TestBuildRefusesOutputsOverInputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "a.ndjson")
	if err := os.WriteFile(in, []byte(`{"name":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	glob := filepath.Join(dir, "*.ndjson")
	other := filepath.Join(t.TempDir(), "out.ndjson")
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"valid-out is an input", Options{Inputs: glob, ValidOut: in}, "--valid-out " + in + " is also an input"},
		{"invalid-out is an input", Options{Inputs: in, InvalidOut: in}, "--invalid-out " + in + " is also an input"},
		{"summary is an input", Options{Inputs: glob, Summary: in}, "--summary " + in + " is also an input"},
		{"valid-out the glob matches", Options{Inputs: glob, ValidOut: filepath.Join(dir, "valid.ndjson")}, "--valid-out " + filepath.Join(dir, "valid.ndjson") + " is matched by --inputs " + glob},
		{"two outputs", Options{Inputs: glob, ValidOut: other, InvalidOut: other}, "--invalid-out " + other + " is also --valid-out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := beam.NewPipelineWithRoot()
			err := Build(s, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Build: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	_, s := beam.NewPipelineWithRoot()
	if err := Build(s, Options{Inputs: glob, ValidOut: other, Summary: filepath.Join(filepath.Dir(other), "summary.json")}); err != nil {
		t.Errorf("outputs apart from the inputs: %v", err)
	}
}

// Digest files the inputs' glob would match are refused too: a later run
// would judge them as dumps (each NDJSON line of cards it is not).
func TestBuildRefusesDigestsTheInputsMatch(t *testing.T) {
	dir := t.TempDir()
	all := filepath.Join(dir, "*")
	dumps := filepath.Join(dir, "*.ndjson")
	for _, tc := range []struct {
		name  string
		build func(beam.Scope) error
		want  string // "" for none
	}{
		{"claims beside the dumps", func(s beam.Scope) error {
			return Build(s, Options{Inputs: all, Digest: filepath.Join(dir, "claims")})
		}, "--digest " + filepath.Join(dir, "claims") + ": its files (" + filepath.Join(dir, "claims") + "-00000-of-00001) are matched by " + all},
		{"claims shards beside the dumps", func(s beam.Scope) error {
			return Build(s, Options{Inputs: all, Digest: filepath.Join(dir, "claims"), DigestShards: 4})
		}, "are matched by " + all},
		{"diff digests under the new crawl", func(s beam.Scope) error {
			return BuildDiff(s, DiffOptions{Old: filepath.Join(t.TempDir(), "*"), New: all, Digest: filepath.Join(dir, "d")})
		}, "are matched by " + all},
		{"claims the glob does not match", func(s beam.Scope) error {
			return Build(s, Options{Inputs: dumps, Digest: filepath.Join(dir, "claims")})
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := beam.NewPipelineWithRoot()
			err := tc.build(s)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
