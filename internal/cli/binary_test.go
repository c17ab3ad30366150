package cli

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/golden"
	"github.com/cardscan/cardscan/internal/summary"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds cmd/cardscan once per test run.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cardscan-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "cardscan")
		out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/cardscan").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("go build: %v", buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

func runBinary(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	checkStderr(t, errOut.String())
	return result{code, out.String(), errOut.String()}
}

func TestBinaryMatchesInProcess(t *testing.T) {
	cards := readFile(t, cardsFile)
	for _, args := range [][]string{
		{"--profile", "agentcard", "--color", "never", cardsFile},
		{"--profile", "agentcard", "--format", "jsonl", "--all", "-j", "3", cardsFile},
		{"--profile", "agentcard", "--format", "github"},
		{"--version"}, {"--list-rules"}, {"--nope"}, {"no/such.ndjson"}, {"--fail-on", "never", "-q", cardsFile},
	} {
		in := run(t, string(cards), args...)
		bin := runBinary(t, cards, args...)
		if bin.code != in.code || bin.stdout != in.stdout {
			t.Errorf("%v: binary exit %d, in-process %d; stdout equal: %v", args, bin.code, in.code, bin.stdout == in.stdout)
		}
		// stderr differs only in timings.
		if strings.Count(bin.stderr, "\n") != strings.Count(in.stderr, "\n") {
			t.Errorf("%v: stderr %q vs %q", args, bin.stderr, in.stderr)
		}
	}
	golden.Check(t, "cards.text.golden", runBinary(t, nil, "--profile", "agentcard", cardsFile).stdout)
}

// TestBinaryClosedPipe is `cardscan ... | head -1`: the run ends quietly.
func TestBinaryClosedPipe(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "big.ndjson"), bigInput(t, 3000))
	cmd := exec.Command(binary(t), "--format", "jsonl", "--all", path)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, `{"input":`) {
		t.Fatalf("first line %q, %v", line, err)
	}
	stdout.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		ws := ee.Sys().(syscall.WaitStatus)
		if !(ws.Signaled() && ws.Signal() == syscall.SIGPIPE) && ee.ExitCode() != cmderr.StatusFailed {
			t.Errorf("exit %v, want SIGPIPE or %d", err, cmderr.StatusFailed)
		}
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr %q, want nothing", errOut.String())
	}
}

// TestGNUParallelRecipe is docs/cli.md's sharding recipe: GNU parallel cuts
// a dump at line boundaries, one cardscan per block writes a summary, and
// summary merge adds them up to what one process reports.
func TestGNUParallelRecipe(t *testing.T) {
	if _, err := exec.LookPath("parallel"); err != nil {
		t.Skip("GNU parallel is not installed (make debian-packages installs it)")
	}
	bin := binary(t)
	dir := t.TempDir()
	dump := writeFile(t, filepath.Join(dir, "dump.ndjson"), bigInput(t, 300))
	shards := filepath.Join(dir, "shards")
	os.Mkdir(shards, 0o755)
	cmd := exec.Command("parallel", "--pipepart", "--block", "64k", "-a", dump,
		bin, "--input", "ndjson", "--fail-on", "never", "-q", "--summary", filepath.Join(shards, "{#}.json"))
	cmd.Env = append(os.Environ(), "HOME="+dir) // parallel keeps its state under $HOME
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("parallel: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(shards, "*.json"))
	if len(files) < 2 {
		t.Fatalf("%d shards; the recipe should have split the dump", len(files))
	}
	merged := runBinary(t, nil, append([]string{"summary", "merge"}, files...)...)
	if merged.code != cmderr.StatusOK {
		t.Fatalf("merge: %d %s", merged.code, merged.stderr)
	}
	whole := runBinary(t, nil, "-q", "--summary", "-", dump)
	a, b := mustSummary(t, merged.stdout), mustSummary(t, whole.stdout)
	if a.Shards != int64(len(files)) {
		t.Errorf("merged %d shards of %d", a.Shards, len(files))
	}
	// The shards read parts of one file, so their worst inputs are
	// parts too; summary's tests merge whole inputs.
	a.Seconds, a.MBPerSecond, a.Shards, a.Inputs, a.Framings, a.WorstInputs = 0, 0, 0, 0, nil, nil
	b.Seconds, b.MBPerSecond, b.Shards, b.Inputs, b.Framings, b.WorstInputs = 0, 0, 0, 0, nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Errorf("shards add up to\n%+v\none process says\n%+v", a, b)
	}
}

func mustSummary(t *testing.T, s string) *summary.Summary {
	t.Helper()
	sum, err := summary.Unmarshal([]byte(s))
	if err != nil {
		t.Fatalf("%v in %q", err, s)
	}
	return sum
}
