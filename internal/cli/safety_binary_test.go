package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitExit waits up to limit for cmd to end, killing it and failing the
// test if it does not.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v still running after %v", cmd.Args, limit)
		return nil
	}
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestBinaryOutFileReaderGoes: an out file that is a pipe whose reader
// goes away ends the run as stdout's does, instead of blocking for ever.
func TestBinaryOutFileReaderGoes(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	input := writeFile(t, filepath.Join(dir, "big.ndjson"), bigInput(t, 300))

	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip(err)
		}
		cmd := exec.Command(bin, "-q", "--fail-on", "never", "--valid-out", fifo, input)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r, err := os.OpenFile(fifo, os.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(r, make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if code := exitCode(t, waitExit(t, cmd, 20*time.Second)); code != exitOK || errOut.Len() != 0 {
			t.Errorf("exit %d, stderr %q; want 0 and nothing", code, errOut.String())
		}
	})

	t.Run("dev-stdout", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-q", "--fail-on", "never", "--valid-out", "/dev/stdout", input)
		cmd.Stdout = pw
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pw.Close()
		if _, err := io.ReadFull(pr, make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
		pr.Close() // | head -c 100
		if code := exitCode(t, waitExit(t, cmd, 20*time.Second)); code != exitOK || errOut.Len() != 0 {
			t.Errorf("exit %d, stderr %q; want 0 and nothing", code, errOut.String())
		}
	})
}

// TestBinarySignals: SIGINT, SIGTERM and SIGHUP end a run in order. The
// records read are judged and written whole, the zstd and gzip outputs
// are complete streams, the summary is written and printed, marked
// interrupted, and the exit status is 128 plus the signal's number.
func TestBinarySignals(t *testing.T) {
	bin := binary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			valid, invalid, sum := filepath.Join(dir, "v.ndjson.zst"), filepath.Join(dir, "i.ndjson.gz"), filepath.Join(dir, "s.json")
			sarif := filepath.Join(dir, "run.sarif")
			cmd := exec.Command(bin, "--format", "jsonl", "--all", "-j", "2", "--valid-out", valid, "--invalid-out", invalid, "--summary", sum, "--format", "sarif="+sarif)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Records, then a line cut in the middle; standard input stays
			// open, as a producer's pipe would. More than the 64 KiB that
			// --input auto may look at before it picks a framing.
			if _, err := stdin.Write(append(bigInput(t, 60), `{"cut":`...)); err != nil {
				t.Fatal(err)
			}
			out := bufio.NewReader(stdout)
			first, err := out.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			cmd.Process.Signal(sig)
			rest, _ := io.ReadAll(out)
			code := exitCode(t, waitExit(t, cmd, 20*time.Second))
			stdin.Close()
			if code != 128+int(sig) {
				t.Errorf("exit %d, want %d; stderr %q", code, 128+int(sig), errOut.String())
			}
			if !strings.Contains(errOut.String(), "; interrupted") {
				t.Errorf("stderr %q does not say the run was interrupted", errOut.String())
			}
			stdoutAll := first + string(rest)
			if !strings.HasSuffix(stdoutAll, "\n") {
				t.Errorf("stdout ends mid-line: %q", stdoutAll[max(0, len(stdoutAll)-40):])
			}
			vs := parseVerdicts(t, stdoutAll)
			s := readSummary(t, sum)
			if !s.Interrupted || s.Records != int64(len(vs)) || s.Records == 0 {
				t.Errorf("summary %+v for %d verdicts", s, len(vs))
			}
			// decompressFile fails the test on a stream without its end.
			copies := len(splitRecords(decompressFile(t, valid))) + len(splitRecords(decompressFile(t, invalid)))
			if int64(copies) != s.Records {
				t.Errorf("out files hold %d records, the summary counts %d", copies, s.Records)
			}
			// The log's invocation states the exit status the process ends
			// with, not the verdict of the cards judged before the signal.
			log := checkSARIF(t, sarifSchema(t), string(readFile(t, sarif)))
			if inv := log.Runs[0].Invocations; len(inv) != 1 || inv[0].ExitCode != code || inv[0].Successful {
				t.Errorf("sarif invocations %+v, want one, unsuccessful, of exit code %d", inv, code)
			}
		})
	}
}

// TestBinarySecondSignal: a run that cannot finish its in-flight work (its
// stdout is not read) ends at once on a second signal.
func TestBinarySecondSignal(t *testing.T) {
	bin := binary(t)
	input := writeFile(t, filepath.Join(t.TempDir(), "big.ndjson"), bigInput(t, 300))
	cmd := exec.Command(bin, "--format", "jsonl", "--all", input)
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
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	if code := exitCode(t, waitExit(t, cmd, 10*time.Second)); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
}

// TestBinaryPeakMemory runs inputs whose verdicts are many times their size
// and checks the peak heap against the documented bound: (2 × jobs + 2) ×
// 4.0625 × chunk size, plus 2.0625 × the largest record, plus 16 bytes per JSON
// value of the largest record (the validator's tape). The Go
// collector lets the heap grow to twice what is live before it collects,
// so the ceiling is twice the bound, plus 16 MiB for the runtime and the
// decompressors. The heap is read from the child's GC trace: the child's
// rusage would count the RSS of the test process it was forked from.
func TestBinaryPeakMemory(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	const jobs, chunk = 2, 1 << 20
	zeros := "[" + strings.Repeat("0,", 2<<20-1) + "0]" // 4 MiB, 2 Mi elements
	doc := writeFile(t, filepath.Join(dir, "zeros.json.zst"), zstdBytes(t, []byte(zeros)))
	lines := writeFile(t, filepath.Join(dir, "zeros.ndjson"), bytes.Repeat([]byte("0\n"), 2<<20))
	long := filepath.Join(dir, strings.Repeat("d", 200), strings.Repeat("e", 200), strings.Repeat("f", 200), "zeros.ndjson")
	writeFile(t, long, bytes.Repeat([]byte("0\n"), 512<<10))
	for _, tc := range []struct {
		largest, values int
		args            []string
	}{
		// Read as NDJSON, the array is one record of 2 Mi values; read as
		// JSON (as --input auto reads an array), each of them is a record.
		{len(zeros), 2 << 20, []string{"--format", "jsonl", "--input", "ndjson", doc}},
		{2, 1, []string{"--format", "jsonl", doc}},
		{2, 1, []string{"--format", "jsonl", lines}},
		{2, 1, []string{"--format", "text", lines}},
		{2, 1, []string{"--format", "github", lines}},
		{2, 1, []string{"--format", "jsonl", long}},
	} {
		bound := (2*jobs+2)*(4*chunk+chunk/16) + 2*tc.largest + tc.largest/16 + 16*tc.values
		ceiling := 2*bound + 16<<20
		cmd := exec.Command(bin, append([]string{"-j", fmt.Sprint(jobs), "--chunk-size", fmt.Sprint(chunk)}, tc.args...)...)
		cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
		var trace bytes.Buffer
		cmd.Stderr = &trace
		if err := cmd.Run(); exitCode(t, err) != exitInvalid {
			t.Fatalf("%v: %v", tc.args, err)
		}
		peak := peakHeap(t, trace.String())
		t.Logf("%v: peak heap %d MiB, ceiling %d MiB", tc.args[:len(tc.args)-1], peak>>20, ceiling>>20)
		if peak > ceiling {
			t.Errorf("%v: peak heap %d MiB, over the ceiling of %d MiB", tc.args, peak>>20, ceiling>>20)
		}
	}
}

// peakHeap reads a GODEBUG=gctrace=1 trace: the largest goal a collection
// set the heap (twice what it found live), or heap it ended with. The heap
// at a collection's start is not read: it runs past the goal when the
// collector's background marking waits for a CPU, as on a loaded machine
// running every package's tests at once (52 MiB against a goal-bound 50
// in one such run, 30 to 39 MiB alone), which says how busy the machine
// was, not what the program holds.
func peakHeap(t *testing.T, trace string) int {
	t.Helper()
	re := regexp.MustCompile(`\d+->(\d+)->\d+ MB, (\d+) MB goal`)
	peak, gcs := 0, 0
	for _, m := range re.FindAllStringSubmatch(trace, -1) {
		end, _ := strconv.Atoi(m[1])
		goal, _ := strconv.Atoi(m[2])
		peak = max(peak, end<<20, goal<<20)
		gcs++
	}
	if gcs == 0 {
		t.Fatalf("no GC trace in %q", trace[:min(len(trace), 500)])
	}
	return peak
}
