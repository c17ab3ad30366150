package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mappingsOf counts this process's mappings of path (Linux only).
func mappingsOf(t *testing.T, path string) int {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps:", err)
	}
	return strings.Count(string(maps), path)
}

// TestMappedStopReleases: a run stopped early (--max-invalid) leaves no
// mapping of its inputs behind once it has returned: chunks still in
// flight at the stop let go of theirs.
func TestMappedStopReleases(t *testing.T) {
	input := bytes.Repeat([]byte(`{"name":1}`+"\n"), (4<<20)/11)
	path := filepath.Join(t.TempDir(), "in.ndjson")
	if err := os.WriteFile(path, input, 0o644); err != nil {
		t.Fatal(err)
	}
	mapped := watchMapping(t, nil)
	for range 5 {
		o := runTimed(t, Config{Jobs: 2, ChunkSize: 64 << 10, MaxInvalid: 1}, []Input{{Name: "in", Path: path}}, false)
		if !o.stats.Stopped {
			t.Fatal("the run did not stop at the first invalid card")
		}
	}
	if *mapped != 5 {
		t.Fatalf("%d runs mapped the file, want 5", *mapped)
	}
	deadline := time.Now().Add(5 * time.Second)
	for mappingsOf(t, path) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := mappingsOf(t, path); n > 0 {
		t.Errorf("%d mappings of the input left 5 s after 5 runs stopped early", n)
	}
}
