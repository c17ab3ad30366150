package cardbeam

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/cardscan/cardscan/corpus"
	"github.com/klauspost/compress/zstd"
)

// TestMain lets beam.Init tell a worker started for the pipeline from a
// test run (loopback workers run in this process).
func TestMain(m *testing.M) {
	beam.Init()
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// dumps writes a generated dump as cardscan's tests write one: cards of
// every dialect with defects, as plain, gzip and zstd NDJSON, with a blank
// line and a CRLF line, and a gzip dump cut short (an input error whose
// records before the cut are judged).
func dumps(t *testing.T, dir string) []string {
	t.Helper()
	g, err := corpus.New(corpus.Options{Seed: 39, Dialects: corpus.Dialects(), DefectRate: 0.15})
	if err != nil {
		t.Fatal(err)
	}
	parts := make([][]byte, 4)
	for i := range 1200 {
		k := i % len(parts)
		parts[k] = append(append(parts[k], g.Next().JSON...), '\n')
		if i == 5 {
			parts[k] = append(parts[k], " \t\n"...)
		}
		if i == 9 {
			parts[k] = append(parts[k][:len(parts[k])-1], "\r\n"...)
		}
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	zs := func(b []byte) []byte {
		w, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		return w.EncodeAll(b, nil)
	}
	cut := gz(parts[3])
	files := map[string][]byte{
		"a.ndjson":    parts[0],
		"b.ndjson.gz": gz(parts[1]),
		// A zstd dump named as plain: its framing is told by content.
		"c.ndjson":     zs(parts[2]),
		"d.ndjson.gz":  cut[:len(cut)*2/3],
		"e.ndjson.zst": zs(parts[0][:len(parts[0])/3]),
	}
	var names []string
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	slices.Sort(names)
	return names
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// cardscan builds the main module's cardscan, once for the tests.
func cardscan(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "cardbeam-test-"); binErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, "cardscan"), "./cmd/cardscan")
		cmd.Dir = "../../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building cardscan: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "cardscan")
}

func sortedLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(l)
	return l
}

// comparable is a summary without what depends on the machine, the
// clock, the number of runs and, after an input error, the reader.
func comparable(t *testing.T, b []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	for _, k := range []string{"seconds", "mb_per_second", "shards"} {
		delete(m, k)
	}
	// How many bytes of a stream cut short are decompressed before the
	// error shows depends on the reader's buffer sizes, which the two
	// readers do not share; with an input error the totals may differ by
	// the few bytes of the broken tail, so they are not compared then.
	if n, _ := m["input_errors"].(float64); n > 0 {
		delete(m, "bytes_decompressed")
	}
	out, _ := json.MarshalIndent(m, "", " ")
	return string(out)
}

// TestPipelineOnPrismEqualsCLI runs the pipeline on Prism, in this
// process, over a generated dump and checks its valid and invalid
// records (as multisets) and its summary equal cardscan's over the same
// files, and that cardscan summary merge takes the pipeline's summary.
func TestPipelineOnPrismEqualsCLI(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.Mkdir(in, 0o755); err != nil {
		t.Fatal(err)
	}
	files := dumps(t, in)
	bin := cardscan(t)
	cli := filepath.Join(dir, "cli")
	out := filepath.Join(dir, "beam")
	for _, d := range []string{cli, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, append([]string{"-q", "--fail-on", "never", "--input", "ndjson",
		"--valid-out", filepath.Join(cli, "valid.ndjson"), "--invalid-out", filepath.Join(cli, "invalid.ndjson"),
		"--summary", filepath.Join(cli, "summary.json")}, files...)...)
	if b, err := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 3 { // 3: the dump cut short
		t.Fatalf("cardscan: %v, want exit 3\n%s", err, b)
	}

	p, s := beam.NewPipelineWithRoot()
	o := Options{Inputs: filepath.Join(in, "*"), ValidOut: filepath.Join(out, "valid.ndjson"),
		InvalidOut: filepath.Join(out, "invalid.ndjson"), Summary: filepath.Join(out, "summary.json")}
	if err := Build(s, o); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := prism.Execute(ctx, p); err != nil {
		t.Fatalf("prism: %v", err)
	}

	for _, name := range []string{"valid.ndjson", "invalid.ndjson"} {
		got, want := sortedLines(t, filepath.Join(out, name)), sortedLines(t, filepath.Join(cli, name))
		if len(want) < 100 || !slices.Equal(got, want) {
			t.Errorf("%s: the pipeline's %d records are not cardscan's %d", name, len(got), len(want))
		}
	}
	beamSum, err := os.ReadFile(o.Summary)
	if err != nil {
		t.Fatal(err)
	}
	cliSum, err := os.ReadFile(filepath.Join(cli, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := comparable(t, beamSum), comparable(t, cliSum); got != want {
		t.Errorf("the pipeline's summary:\n%s\ncardscan's:\n%s", got, want)
	}
	merged, err := exec.Command(bin, "summary", "merge", o.Summary, filepath.Join(cli, "summary.json")).Output()
	if err != nil {
		t.Fatalf("summary merge of the pipeline's summary and cardscan's: %v", err)
	}
	var m struct{ Records, Shards int64 }
	if err := json.Unmarshal(merged, &m); err != nil || m.Shards != 2 || m.Records < 200 {
		t.Errorf("summary merge: %v %s", err, merged)
	}
}
