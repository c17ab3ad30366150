package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/klauspost/compress/zstd"
)

const indexedJob = "../../contrib/kubernetes/cardscan-indexed-job.yaml"

// jobManifest is what the test reads of the Indexed Job.
type jobManifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Args []string `yaml:"args"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// readJob parses the manifest and checks it is an Indexed Job whose pods
// each take their slice: --shards equal to completions.
func readJob(t *testing.T) *jobManifest {
	t.Helper()
	var job jobManifest
	if err := yaml.Unmarshal(readFile(t, indexedJob), &job); err != nil {
		t.Fatalf("%s: %v", indexedJob, err)
	}
	s := &job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || s.CompletionMode != "Indexed" {
		t.Fatalf("%s is %s %s, completionMode %q: want an Indexed batch/v1 Job", indexedJob, job.APIVersion, job.Kind, s.CompletionMode)
	}
	if s.Completions < 1 || s.Parallelism < 1 || s.Parallelism > s.Completions {
		t.Errorf("completions %d, parallelism %d", s.Completions, s.Parallelism)
	}
	if s.Template.Spec.RestartPolicy != "Never" && s.Template.Spec.RestartPolicy != "OnFailure" {
		t.Errorf("restartPolicy %q: a Job's pods must be Never or OnFailure", s.Template.Spec.RestartPolicy)
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(s.Template.Spec.Containers))
	}
	args := s.Template.Spec.Containers[0].Args
	i := slices.Index(args, "--shards")
	if i < 0 || i+1 >= len(args) || args[i+1] != strconv.Itoa(s.Completions) {
		t.Fatalf("args %q: want --shards %d, the Job's completions", args, s.Completions)
	}
	return &job
}

// podArgs are the container's args as the pod of index i runs them: with
// $(JOB_COMPLETION_INDEX) expanded, as Kubernetes expands a variable of
// the container's environment, and the volumes' mount paths at dirs.
func podArgs(args []string, i int, data, out string) []string {
	var got []string
	for _, a := range args {
		a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(i))
		a = strings.Replace(a, "/data", data, 1)
		a = strings.Replace(a, "/out", out, 1)
		got = append(got, a)
	}
	return got
}

// TestIndexedJob runs the manifest's command as its N pods would, each a
// process with its own JOB_COMPLETION_INDEX over the same inputs, the
// merge after them as its header says, and checks every record is judged
// once and the merged outputs are one run's. One pod is killed (SIGKILL)
// mid-run and run again, as the Job controller would.
func TestIndexedJob(t *testing.T) {
	job := readJob(t)
	bin := binary(t)
	dir := t.TempDir()
	shardDumps(t, dir, 600)
	data := filepath.Join(dir, "new")
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	args := job.Spec.Template.Spec.Containers[0].Args
	n := job.Spec.Completions

	one := runBinary(t, nil, "--quiet", "--fail-on", "never", "--cross-card", "--format", "jsonl",
		"--valid-out", filepath.Join(dir, "valid.ndjson"), "--invalid-out", filepath.Join(dir, "invalid.ndjson"),
		"--summary", filepath.Join(dir, "summary.json"), data)
	if one.code != 0 {
		t.Fatalf("one run: %d %s", one.code, one.stderr)
	}
	oneFindings := runBinary(t, nil, "--format", "jsonl", "--fail-on", "never", "--cross-card", data)
	_, findings := splitFindings(oneFindings.stdout)

	pod := func(i int) *exec.Cmd {
		cmd := exec.Command(bin, podArgs(args, i, data, out)...)
		cmd.Env = append(os.Environ(), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
		return cmd
	}
	killed := 5
	for i := range n {
		cmd := pod(i)
		if i == killed {
			killMidRun(t, cmd, data, out, i)
			cmd = pod(i)
		}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pod %d: %v %s", i, err, b)
		}
	}

	var valid, invalid []string
	var summaries, digests []string
	for i := range n {
		valid = append(valid, sortedLines(zstdFile(t, filepath.Join(out, fmt.Sprintf("valid-%d.ndjson.zst", i))))...)
		invalid = append(invalid, sortedLines(zstdFile(t, filepath.Join(out, fmt.Sprintf("invalid-%d.ndjson.zst", i))))...)
		summaries = append(summaries, filepath.Join(out, fmt.Sprintf("summary-%d.json", i)))
		digests = append(digests, filepath.Join(out, fmt.Sprintf("claims-%d.digest", i)))
	}
	slices.Sort(valid)
	slices.Sort(invalid)
	if !slices.Equal(valid, sortedLines(readFile(t, filepath.Join(dir, "valid.ndjson")))) {
		t.Errorf("the pods' %d valid records are not one run's", len(valid))
	}
	if !slices.Equal(invalid, sortedLines(readFile(t, filepath.Join(dir, "invalid.ndjson")))) {
		t.Errorf("the pods' %d invalid records are not one run's", len(invalid))
	}
	m := runBinary(t, nil, append([]string{"merge", "--format", "jsonl", "--summary", filepath.Join(out, "merge-summary.json")}, digests...)...)
	if m.code != 0 || m.stdout != strings.Join(findings, "") || len(findings) == 0 {
		t.Errorf("merge: %d %s\n%s\nwant one run's:\n%s", m.code, m.stderr, m.stdout, strings.Join(findings, ""))
	}
	sm := runBinary(t, nil, append([]string{"summary", "merge", filepath.Join(out, "merge-summary.json")}, summaries...)...)
	// 16 pods over 5 inputs slice by record (docs/cli.md).
	if got, want := comparableSummary(t, []byte(sm.stdout), true), comparableSummary(t, readFile(t, filepath.Join(dir, "summary.json")), true); got != want {
		t.Errorf("merged summary:\n%s\nwant one run's:\n%s", got, want)
	}
}

// killMidRun runs pod i with its last input a FIFO in place of the
// file, named as the walk of the data directory names it, feeds it half
// the file and SIGKILLs the pod while it waits for the rest: certainly
// mid-run. It checks the pod left none of its outputs in place.
func killMidRun(t *testing.T, cmd *exec.Cmd, data, out string, i int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(data, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: %v", data, err)
	}
	slices.Sort(files)
	last := files[len(files)-1]
	content := readFile(t, last)
	if err := os.Rename(last, last+".held"); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(last+".held", last)
	if err := syscall.Mkfifo(last, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	defer os.Remove(last)
	// The files by name in place of the directory: the same names, in the
	// same order, as the walk gives.
	var args []string
	for _, a := range cmd.Args[1:] {
		if a == data {
			args = append(args, files...)
			continue
		}
		args = append(args, a)
	}
	cmd.Args = append(cmd.Args[:1], args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fifo, err := os.OpenFile(last, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fifo.Write(content[:len(content)/2]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	fifo.Close()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("pod %d ended before the kill: %v %s", i, err, stderr.String())
	}
	for _, p := range []string{"valid-%d.ndjson.zst", "invalid-%d.ndjson.zst", "summary-%d.json", "claims-%d.digest"} {
		if p := filepath.Join(out, fmt.Sprintf(p, i)); fileExists(p) {
			t.Errorf("a pod killed mid-run left %s in place", p)
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func zstdFile(t *testing.T, path string) []byte {
	t.Helper()
	d, err := zstd.NewReader(bytes.NewReader(readFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b.Bytes()
}
