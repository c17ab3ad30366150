package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
)

// skewedIDs returns n agent_ids, each width bytes or more, whose keys all
// fell in partition 0 of the 64 that diff and --cross-card once spread
// spilled digests over, by the unkeyed xxhash of the key: diff's key is
// the id, --cross-card's "agent_id " and the id (claim). Any distribution
// of keys a dump's author can choose must keep to the memory bound.
func skewedIDs(n int, claim string, width int) []string {
	ids := make([]string, 0, n)
	key := []byte(claim + strings.Repeat("x", width) + "-")
	base := len(key)
	for i := 0; len(ids) < n; i++ {
		key = strconv.AppendInt(key[:base], int64(i), 10)
		if xxhash.Sum64(key)%64 == 0 {
			ids = append(ids, string(key[len(claim):]))
		}
	}
	return ids
}

// agentCards writes an NDJSON dump of an AgentCard per id, the version
// and name of each made from version and its place.
func agentCards(t *testing.T, path string, ids []string, version int) string {
	t.Helper()
	var b bytes.Buffer
	for i, id := range ids {
		fmt.Fprintf(&b, `{"agent_id":%q,"name":"Agent %d","version":"1.%d.0","description":"An agent that does one thing for the tests of memory bounds","capabilities":[{"id":"thing.do","description":"does the thing"}],"endpoint":{"protocol":"https","url":"https://agents.example.com/%d"}}`+"\n", id, i, version+i%2, i%1000)
	}
	return writeFile(t, path, b.Bytes())
}

// spillMemory is the --memory of the tests below, and spillCeiling the
// peak heap they allow: --memory, plus the validation pipeline's own bound
// at -j 1 and a 64 KiB chunk ((2 × 1 + 2) × 4 × 64 KiB, TestBinaryPeakMemory),
// twice, since Go's collector lets the heap grow to twice what is live,
// plus 16 MiB for the runtime. A small pipeline leaves diff's and
// --cross-card's own memory to be measured. Before the digests were sorted
// to runs, the skewed dumps took 173 MiB.
const (
	spillMemory  = 16 << 20
	spillCeiling = 2*(spillMemory+(2*1+2)*4*64<<10) + 16<<20
)

// TestBinarySpillMemoryBound runs diff and --cross-card with --memory
// 16MiB on dumps whose digests spill: ids that all fell in one hash
// partition, and 150,000 records of one id. The peak heap, read from the
// child's GC trace as TestBinaryPeakMemory reads it, stays under
// spillCeiling.
func TestBinarySpillMemoryBound(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	skewed := skewedIDs(60_000, "", 0)
	// Long ids, so that the claims that fell in one partition outweigh
	// the budget many times.
	skewedClaims := skewedIDs(60_000, "agent_id ", 400)
	one := make([]string, 150_000)
	for i := range one {
		one[i] = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
	}
	skewOld := agentCards(t, filepath.Join(dir, "skew-old.ndjson"), skewed, 0)
	skewNew := agentCards(t, filepath.Join(dir, "skew-new.ndjson"), skewed, 1)
	oneOld := agentCards(t, filepath.Join(dir, "one-old.ndjson"), one, 0)
	oneNew := agentCards(t, filepath.Join(dir, "one-new.ndjson"), one, 1)
	skewClaims := agentCards(t, filepath.Join(dir, "skew-claims.ndjson"), skewedClaims, 0)
	mem := fmt.Sprint(spillMemory)
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"diff skewed", []string{"diff", "--memory", mem, "--format", "jsonl", skewOld, skewNew}, exitInvalid},
		{"diff one id", []string{"diff", "--memory", mem, "--format", "jsonl", oneOld, oneNew}, exitInvalid},
		{"cross-card skewed", []string{"-q", "--cross-card", "--memory", mem, "--format", "jsonl", skewClaims}, exitInvalid},
		{"cross-card one id", []string{"-q", "--cross-card", "--memory", mem, "--format", "jsonl", oneOld}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{tc.args[0], "-j", "1", "--chunk-size", "64KiB", "--summary", filepath.Join(dir, "sum.json")}, tc.args[1:]...)
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1", "TMPDIR="+t.TempDir())
			var trace bytes.Buffer
			cmd.Stderr = &trace
			if code := exitCode(t, cmd.Run()); code != tc.want {
				t.Fatalf("exit %d, want %d: %s", code, tc.want, lastLines(trace.String(), 3))
			}
			if !bytes.Contains(readFile(t, filepath.Join(dir, "sum.json")), []byte(`"spill_bytes"`)) && tc.args[0] == "diff" {
				t.Fatal("no spill_bytes in the summary")
			}
			peak := peakHeap(t, trace.String())
			t.Logf("peak heap %d MiB, ceiling %d MiB", peak>>20, spillCeiling>>20)
			if peak > spillCeiling {
				t.Errorf("peak heap %d MiB, over the ceiling of %d MiB", peak>>20, spillCeiling>>20)
			}
		})
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// spillDirs lists what diff and --cross-card left in dir, as TMPDIR.
func spillDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "cardscan-") {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestBinaryDiffTmpdir: a run that does not spill needs no TMPDIR; one
// that does names the directory it could not use.
func TestBinaryDiffTmpdir(t *testing.T) {
	bin := binary(t)
	file := writeFile(t, filepath.Join(t.TempDir(), "file"), []byte("x"))
	for _, tmp := range []string{"/nonexistent-cardscan-tmp", file} {
		for _, args := range [][]string{{"diff", cardsFile, cardsFile}, {"--cross-card", "-q", cardsFile}} {
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			out, err := cmd.CombinedOutput()
			if code := exitCode(t, err); code == exitIO {
				t.Errorf("TMPDIR=%s %v, which does not spill: exit %d, %s", tmp, args, code, out)
			}
			spill := append([]string{args[0], "--memory", "1KiB"}, args[1:]...)
			cmd = exec.Command(bin, spill...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			out, err = cmd.CombinedOutput()
			if code := exitCode(t, err); code != exitIO || !bytes.Contains(out, []byte(tmp)) {
				t.Errorf("TMPDIR=%s %v: exit %d, %s; want %d naming the directory", tmp, spill, code, out, exitIO)
			}
		}
	}
}

// TestBinaryDiffSecondSignal: a diff that spilled and cannot finish (its
// stdout is not read) ends at once on a second SIGTERM, and its temporary
// directory goes with it.
func TestBinaryDiffSecondSignal(t *testing.T) {
	bin := binary(t)
	dir, tmp := t.TempDir(), t.TempDir()
	ids := make([]string, 3000)
	for i := range ids {
		ids[i] = fmt.Sprintf("agent-%d", i)
	}
	// Every other card changes: far more than a pipe holds.
	old := agentCards(t, filepath.Join(dir, "old.ndjson"), ids, 0)
	new := agentCards(t, filepath.Join(dir, "new.ndjson"), ids, 1)
	cmd := exec.Command(bin, "diff", "--memory", "64KiB", "--format", "jsonl", old, new)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := stdout.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	if len(spillDirs(t, tmp)) == 0 {
		t.Fatal("diff --memory 64KiB made no temporary directory")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(t, waitExit(t, cmd, 10*time.Second)); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	if left := spillDirs(t, tmp); len(left) > 0 {
		t.Errorf("left %v in TMPDIR", left)
	}
}

// TestBinaryStaleSpillDirs: a run removes the spill directories of runs
// that were killed, whose process is gone or whose lock nobody holds, and
// leaves those of live runs.
func TestBinaryStaleSpillDirs(t *testing.T) {
	bin := binary(t)
	tmp := t.TempDir()
	// The ID of a process that has ended.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	self := os.Getpid()
	mkdir := func(name string, age time.Duration) string {
		path := filepath.Join(tmp, name)
		writeFile(t, filepath.Join(path, "old-0001"), bytes.Repeat([]byte("x"), 4096))
		writeFile(t, filepath.Join(path, "lock"), nil)
		when := time.Now().Add(-age)
		if err := os.Chtimes(path, when, when); err != nil {
			t.Fatal(err)
		}
		return path
	}
	dead := mkdir(fmt.Sprintf("cardscan-spill-%d-1", gone.Process.Pid), 0)
	reused := mkdir(fmt.Sprintf("cardscan-spill-%d-2", self), time.Hour)
	starting := mkdir(fmt.Sprintf("cardscan-spill-%d-3", self), 0)
	live := mkdir(fmt.Sprintf("cardscan-spill-%d-4", self), time.Hour)
	other := mkdir("cardscan-other-1", time.Hour)
	lock, err := os.OpenFile(filepath.Join(live, "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "diff", cardsFile, cardsFile)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if out, err := cmd.CombinedOutput(); exitCode(t, err) != 0 {
		t.Fatalf("diff: %s", out)
	}
	for _, c := range []struct {
		path string
		kept bool
	}{{dead, false}, {reused, false}, {starting, true}, {live, true}, {other, true}} {
		_, err := os.Stat(c.path)
		if kept := err == nil; kept != c.kept {
			t.Errorf("%s: kept %v, want %v", filepath.Base(c.path), kept, c.kept)
		}
	}
}
