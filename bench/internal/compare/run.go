// Package compare runs cardscan and the validators users would pick
// instead on the same corpora, interleaved and repeated, and renders the
// medians as markdown tables with the verdict differences explained.
package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cardscan/cardscan/bench/internal/driver"
	"github.com/cardscan/cardscan/fastvalidate"
)

// Config says what to compare and where things are.
type Config struct {
	BenchDir string // the bench module
	RepoDir  string // the cardscan module
	OutDir   string // generated dumps; compare.md is written here
	Shared   string // specs/ and corpus/real/
	Runs     int
	// MaxBytes, when positive, judges only the first MaxBytes of each
	// generated dump, for a quicker run.
	MaxBytes int64
	Corpora  []string       // keys of Corpora to run, in order
	Tools    *regexp.Regexp // rows to keep, by key; nil keeps all
	Log      io.Writer      // progress
	Verbose  bool           // log every sample
}

// Corpora lists the inputs the comparison knows, by key. Each is read from
// a dump in Config.OutDir, a file under the bench directory, or (neither)
// the real cards.
var Corpora = []struct {
	Corpus
	Dump, File string
	// Expect names a file of expected verdicts for File (see ReadExpected),
	// which the tools judging by the JSON Schema are scored against.
	Expect string
}{
	{Corpus: Corpus{Name: "draft", Title: "AgentCard dump, draft dialect", Dialect: DialectDraft, Targets: true}, Dump: "agentcard-100mb.ndjson"},
	{Corpus: Corpus{Name: "schema", Title: "AgentCard dump, JSON Schema dialect", Dialect: DialectSchema, Targets: true}, Dump: "schema-100mb.ndjson"},
	{Corpus: Corpus{Name: "a2a", Title: "A2A dump", Dialect: DialectA2A, Targets: true}, Dump: "a2a-100mb.ndjson"},
	{Corpus: Corpus{Name: "real", Title: "Real cards from public repositories", Dialect: DialectMixed}},
	{Corpus: Corpus{Name: "edges", Title: "Edge cases of the JSON Schema's keywords (testdata/schema-edges.ndjson)", Dialect: DialectSchema},
		File: "testdata/schema-edges.ndjson", Expect: "testdata/schema-edges.expected.tsv"},
}

// realMinBytes is how large the repeated real-card file is made, so that
// even the fastest tool's loop runs long enough to time.
const realMinBytes = 8 << 20

// Sample is one run of one tool.
type Sample struct {
	Report driver.Report
	Wall   float64 // seconds, process start to exit
	Err    error
}

// Row is a tool's results on one corpus.
type Row struct {
	Tool    Tool
	Samples []Sample
	// Loop, CPU and Wall are the medians over the successful samples:
	// the loop's wall time, its CPU time, and the process's wall time.
	Loop, CPU, Wall float64
	// Report holds the counts, which every run must agree on.
	Report driver.Report
	Err    error
}

// Table is one corpus's results.
type Table struct {
	Corpus      Corpus
	Rows        []*Row
	Verdicts    map[string][]Verdict // by tool key, one per distinct card
	Comparisons []*Comparison
	Expected    []Expected // when the corpus comes with expected verdicts
	ExpectFile  string
	Scores      []Score
}

// Result is everything the report needs.
type Result struct {
	Tables  []*Table
	Runs    int
	Notes   []string // tools or corpora left out, and why
	Machine string
	Started time.Time
	Elapsed time.Duration
}

// Run prepares the tools and corpora, takes a verdict listing from every
// tool that can give one (which also warms the page cache), then times
// cfg.Runs rounds in which every tool runs once on every corpus, in an order
// that rotates from round to round so that no tool always runs first or
// after the same neighbour.
func Run(cfg Config) (*Result, error) {
	res := &Result{Runs: cfg.Runs, Started: time.Now(), Machine: machine()}
	tmp, err := os.MkdirTemp("", "cardscan-compare-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	env, notes, err := setup(cfg, tmp)
	res.Notes = append(res.Notes, notes...)
	if err != nil {
		return nil, err
	}
	for _, key := range cfg.Corpora {
		c, err := prepare(cfg, key, tmp)
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("corpus %s left out: %v", key, err))
			continue
		}
		t := &Table{Corpus: c, Verdicts: map[string][]Verdict{}}
		if t.ExpectFile = expectFile(key); t.ExpectFile != "" {
			if t.Expected, err = ReadExpected(filepath.Join(cfg.BenchDir, t.ExpectFile)); err != nil {
				return nil, err
			}
		}
		for _, tool := range env.Tools(c) {
			if cfg.Tools == nil || cfg.Tools.MatchString(tool.Key) {
				t.Rows = append(t.Rows, &Row{Tool: tool})
			}
		}
		res.Tables = append(res.Tables, t)
	}
	if len(res.Tables) == 0 {
		return nil, errors.New("no corpus to compare: run make corpus first")
	}

	for _, t := range res.Tables {
		fmt.Fprintf(cfg.Log, "compare: %s: verdict listing and warm-up\n", t.Corpus.Name)
		for _, row := range t.Rows {
			vpath := ""
			if row.Tool.Verdicts {
				vpath = filepath.Join(tmp, t.Corpus.Name+"."+row.Tool.Key+".verdicts")
			}
			s := runTool(cfg.BenchDir, row.Tool, t.Corpus, vpath, tmp)
			if s.Err != nil {
				row.Err = s.Err
				fmt.Fprintf(cfg.Log, "compare: %s: %s: %v\n", t.Corpus.Name, row.Tool.Key, s.Err)
				continue
			}
			if vpath != "" {
				v, err := readVerdicts(vpath, s.Report.Records/t.Corpus.Repeat)
				if err != nil {
					return nil, err
				}
				t.Verdicts[row.Tool.Key] = v
			}
		}
		cards, err := distinctCards(t.Corpus)
		if err != nil {
			return nil, err
		}
		if t.Expected != nil && len(t.Expected) != len(cards) {
			return nil, fmt.Errorf("%s: %d expected verdicts for %d cards", t.ExpectFile, len(t.Expected), len(cards))
		}
		analyze(t, cards)
	}

	for r := 0; r < cfg.Runs; r++ {
		for _, t := range res.Tables {
			start := time.Now()
			order := rotate(t.Rows, r)
			for _, row := range order {
				if row.Err != nil {
					continue
				}
				s := runTool(cfg.BenchDir, row.Tool, t.Corpus, "", tmp)
				row.Samples = append(row.Samples, s)
				if cfg.Verbose {
					fmt.Fprintf(cfg.Log, "compare:   %-32s loop %.3fs process %.3fs err=%v\n", row.Tool.Key, s.Report.Seconds, s.Wall, s.Err)
				}
			}
			fmt.Fprintf(cfg.Log, "compare: round %d/%d: %s: %.1fs\n", r+1, cfg.Runs, t.Corpus.Name, time.Since(start).Seconds())
		}
	}
	for _, t := range res.Tables {
		for _, row := range t.Rows {
			row.summarize()
		}
	}
	res.Elapsed = time.Since(res.Started)
	return res, nil
}

// rotate returns rows starting at index r mod len(rows).
func rotate[T any](rows []T, r int) []T {
	if len(rows) == 0 {
		return nil
	}
	r %= len(rows)
	return append(slices.Clone(rows[r:]), rows[:r]...)
}

// setup builds the Go drivers and the cardscan binary and finds node.
func setup(cfg Config, tmp string) (Env, []string, error) {
	var notes []string
	env := Env{
		Bin:      filepath.Join(tmp, "bin"),
		BenchDir: cfg.BenchDir,
		Schema:   filepath.Join(cfg.Shared, "specs", "agentcard-schema-v1.0.json"),
		Profiles: fastvalidate.Profiles(),
	}
	if _, err := os.Stat(env.Schema); err != nil {
		return env, notes, err
	}
	build := exec.Command("go", "build", "-o", env.Bin+string(filepath.Separator), "./peers/...")
	build.Dir = cfg.BenchDir
	if out, err := build.CombinedOutput(); err != nil {
		return env, notes, fmt.Errorf("building the drivers: %v\n%s", err, out)
	}
	build = exec.Command("go", "build", "-o", filepath.Join(env.Bin, "cardscan"), "./cmd/cardscan")
	build.Dir = cfg.RepoDir
	if out, err := build.CombinedOutput(); err != nil {
		notes = append(notes, "cardscan CLI left out: it does not build: "+firstLine(string(out)))
	} else {
		env.CLI = true
	}
	if node, err := exec.LookPath("node"); err != nil {
		notes = append(notes, "ajv left out: node is not installed")
	} else if _, err := os.Stat(filepath.Join(cfg.BenchDir, "ajv", "node_modules", "ajv-formats")); err != nil {
		notes = append(notes, "ajv left out: run npm ci in bench/ajv")
	} else {
		env.Node = node
	}
	for _, p := range []string{"agentcard", "agentcard-schema", "a2a", "auto"} {
		if !env.has(p) {
			notes = append(notes, "fastvalidate has no "+p+" profile yet: its rows are left out")
		}
	}
	return env, notes, nil
}

func expectFile(key string) string {
	for _, known := range Corpora {
		if known.Name == key {
			return known.Expect
		}
	}
	return ""
}

func prepare(cfg Config, key, tmp string) (Corpus, error) {
	for _, known := range Corpora {
		if known.Name != key {
			continue
		}
		switch {
		case known.Dump != "":
			return prepareDump(known.Corpus, filepath.Join(cfg.OutDir, known.Dump), cfg.MaxBytes, tmp)
		case known.File != "":
			return prepareLines(known.Corpus, filepath.Join(cfg.BenchDir, known.File), realMinBytes, tmp)
		}
		return prepareReal(known.Corpus, filepath.Join(cfg.Shared, "corpus", "real"), realMinBytes, tmp)
	}
	return Corpus{}, fmt.Errorf("unknown corpus %q", key)
}

// runTool runs one tool once. A run that fails to report is an error; an
// exit status of 1 from the cardscan binary only says some card was
// invalid.
func runTool(dir string, t Tool, c Corpus, verdicts, tmp string) Sample {
	summary := ""
	if t.Kind == KindCLI {
		summary = filepath.Join(tmp, "summary.json")
		os.Remove(summary)
	}
	argv := t.argv(c, verdicts, summary)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), t.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	s := Sample{Wall: time.Since(start).Seconds()}
	if t.Kind == KindCLI {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 {
			err = nil
		}
	}
	if err != nil {
		s.Err = fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, firstLine(stderr.String()))
		return s
	}
	if t.Kind == KindCLI {
		sum, err := readCLISummary(summary)
		if err != nil {
			s.Err = err
			return s
		}
		s.Report = driver.Report{Tool: t.Name, Records: sum.Records, Valid: sum.Valid, Invalid: sum.Invalid, Bytes: c.Bytes, Seconds: sum.Seconds,
			CPUSeconds: (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()}
		if s.Report.Seconds <= 0 {
			s.Report.Seconds = s.Wall
		}
		return s
	}
	out := bytes.TrimSpace(stdout.Bytes())
	if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	if err := json.Unmarshal(out, &s.Report); err != nil {
		s.Err = fmt.Errorf("%s: no report line: %v", t.Key, err)
	}
	return s
}

// summarize takes the medians and checks that every run counted alike:
// a tool whose verdicts change from run to run is broken, not slow.
func (r *Row) summarize() {
	var loops, cpus, walls []float64
	for _, s := range r.Samples {
		if s.Err != nil {
			r.Err = s.Err
			continue
		}
		if len(loops) == 0 {
			r.Report = s.Report
		} else if s.Report.Records != r.Report.Records || s.Report.Valid != r.Report.Valid {
			r.Err = fmt.Errorf("counts differ between runs: %d/%d then %d/%d",
				r.Report.Valid, r.Report.Records, s.Report.Valid, s.Report.Records)
		}
		loops = append(loops, s.Report.Seconds)
		cpus = append(cpus, s.Report.CPUSeconds)
		walls = append(walls, s.Wall)
	}
	r.Loop, r.CPU, r.Wall = median(loops), median(cpus), median(walls)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// distinctCards reads the corpus's cards once over (the real cards are
// repeated for timing).
func distinctCards(c Corpus) ([][]byte, error) {
	data, err := os.ReadFile(c.Path)
	if err != nil {
		return nil, err
	}
	var cards [][]byte
	for rest := data; len(rest) > 0; {
		var rec []byte
		rec, rest = driver.Next(rest)
		if len(rec) > 0 {
			cards = append(cards, rec)
		}
	}
	return cards[:len(cards)/c.Repeat], nil
}

// machine describes the CPU and toolchain, for the report's header.
func machine() string {
	cpu := "unknown CPU"
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	goVersion, _ := exec.Command("go", "env", "GOVERSION").Output()
	nodeVersion, _ := exec.Command("node", "--version").Output()
	return fmt.Sprintf("%s, %d logical CPUs; %s; node %s", cpu, runtime.NumCPU(), strings.TrimSpace(string(goVersion)), strings.TrimSpace(string(nodeVersion)))
}
