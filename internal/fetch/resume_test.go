package fetch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/cmderr"
)

// resumeRecords are two whole records of --format cards.
const resumeRecords = `{"url":"https://a.example/","input":"https://a.example/.well-known/agentcard","line":1,"offset":0,"valid":true,"profile":"agentcard","errors":[],"warnings":[],"card":{}}` + "\n" +
	`{"url":"https://b.example/","input":"https://b.example/","line":1,"offset":0,"valid":false,"profile":"","errors":[],"warnings":[],"card":null}` + "\n"

// resumeRun is what openResume returned for a file, and what it
// allocated.
type resumeRun struct {
	path  string
	done  map[string]int
	tail  resumeTail
	err   error
	alloc uint64
}

// openResumeMeasured runs openResume on a file holding content.
func openResumeMeasured(t *testing.T, content []byte) resumeRun {
	t.Helper()
	r := resumeRun{path: filepath.Join(t.TempDir(), "out.ndjson")}
	if err := os.WriteFile(r.path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, done, tail, err := openResume(r.path, maxResumeLine(defaultMaxRecord))
	runtime.ReadMemStats(&after)
	if f != nil {
		f.Close()
	}
	r.done, r.tail, r.err, r.alloc = done, tail, err, after.TotalAlloc-before.TotalAlloc
	return r
}

// TestResumeDamagedTail: a damaged tail after the last record (NUL bytes
// a crash left, with or without newlines, and a record cut short) is cut
// off and reported from its first line, the records before it are kept,
// and reading it costs no more memory than a record whatever its length.
// 64 MB of NUL bytes took 41 s and 582 MB when a line was read whole.
func TestResumeDamagedTail(t *testing.T) {
	// The first JSON decoding compiles sonic's decoder for the record's
	// type; do it before anything is measured.
	openResumeMeasured(t, []byte(resumeRecords))
	const allocBound = 4 << 20
	nuls := bytes.Repeat([]byte{0}, 16<<20)
	for _, c := range []struct {
		name string
		tail []byte
		// held says the tail starts as a record does, so that it is
		// held up to the longest a record can be.
		held bool
	}{
		{"NUL bytes", nuls, false},
		{"NUL lines", bytes.Join([][]byte{nuls[:1<<20], nuls[:3], {}, nuls[:5]}, []byte("\n")), false},
		{"NUL lines, then a record cut short", append(append(bytes.Clone(nuls[:1<<20]), "\n\n"...), `{"url":"https://c.exa`...), false},
		{"a record cut short", []byte(`{"url":"https://c.example/","input":"https://c.example/","li`), true},
		{"a line longer than any record, cut short", []byte(`{"url":"` + strings.Repeat("x", int(maxResumeLine(defaultMaxRecord)))), true},
		{"a line not a record, cut short", bytes.Repeat([]byte("x"), 16<<20), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := openResumeMeasured(t, append([]byte(resumeRecords), c.tail...))
			path, done, tail, err, alloc := r.path, r.done, r.tail, r.err, r.alloc
			if err != nil {
				t.Fatal(err)
			}
			if tail.line != 3 || tail.bytes != int64(len(c.tail)) {
				t.Errorf("cut from line %d, %d bytes; want line 3, %d bytes", tail.line, tail.bytes, len(c.tail))
			}
			if done["https://a.example/"] != 1 || done["https://b.example/"] != 1 || len(done) != 2 {
				t.Errorf("URLs held: %v", done)
			}
			if b, _ := os.ReadFile(path); string(b) != resumeRecords {
				t.Errorf("left %d bytes, want the %d of the records", len(b), len(resumeRecords))
			}
			bound := uint64(allocBound)
			if c.held {
				bound += heldBound
			}
			if alloc > bound {
				t.Errorf("allocated %d MB, want at most %d MB", alloc>>20, bound>>20)
			}
		})
	}
	if r := openResumeMeasured(t, []byte(resumeRecords)); r.err != nil || r.tail != (resumeTail{}) {
		t.Errorf("whole records: tail %+v, error %v; want no tail", r.tail, r.err)
	}
}

// TestResumeRefusesOtherFiles: a line that is not a record, and a
// damaged line with records after it, show the file is not an output of
// fetch --format cards: nothing is cut or written, and the error names
// the file and line, having held no more than a record of an overlong
// line.
func TestResumeRefusesOtherFiles(t *testing.T) {
	openResumeMeasured(t, []byte(resumeRecords))
	const allocBound = 4 << 20
	long := `{"url":"` + strings.Repeat("x", int(maxResumeLine(defaultMaxRecord))) + "\n"
	for _, c := range []struct {
		name, content, want string
		held                bool // as in TestResumeDamagedTail
	}{
		{"a line not a record", "a,b,c\n" + resumeRecords, ":1: not a record of --format cards; not appending to it", false},
		{"a record without a URL", resumeRecords + "{\"input\":\"x\"}\n" + resumeRecords, ":3: not a record of --format cards", false},
		{"NUL lines before records", resumeRecords + "\x00\x00\n\n" + resumeRecords, ":3: not a record of --format cards, and records follow", false},
		{"an overlong line", resumeRecords + long, fmt.Sprintf(":3: longer than %d bytes", maxResumeLine(defaultMaxRecord)), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := openResumeMeasured(t, []byte(c.content))
			path, err, alloc := r.path, r.err, r.alloc
			if err == nil || !strings.HasPrefix(err.Error(), path+c.want) {
				t.Errorf("error %v, want %s%s", err, path, c.want)
			}
			if b, _ := os.ReadFile(path); string(b) != c.content {
				t.Errorf("the file was changed")
			}
			bound := uint64(allocBound)
			if c.held {
				bound += heldBound
			}
			if alloc > bound {
				t.Errorf("allocated %d MB, want at most %d MB", alloc>>20, bound>>20)
			}
		})
	}
}

// heldBound is what reading a line that starts as a record does may
// allocate, beyond the few megabytes of anything else: it is held up to
// the longest a record can be, in an array that doubles as it grows.
var heldBound = 2 * uint64(maxResumeLine(defaultMaxRecord))

// TestResumeReportsTail: the command says what it cut, naming the file
// and line, and fetches the URL of the record cut short again.
func TestResumeReportsTail(t *testing.T) {
	_, srv := newSite(t, map[string]page{"/.well-known/agentcard": {body: httpCard}})
	path := filepath.Join(t.TempDir(), "out.ndjson")
	if err := os.WriteFile(path, []byte(resumeRecords+strings.Repeat("\x00", 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runFetch(t, nil, "--resume", path, srv.URL)
	want := fmt.Sprintf("cardscan: --resume %s:3: cut off the damaged tail from this line on (%d bytes", path, 1<<20)
	if code != cmderr.StatusOK || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 0 and %q", code, errOut, want)
	}
	b, _ := os.ReadFile(path)
	recs := decodeRecords(t, string(b))
	if len(recs) != 3 || recs[2].URL != srv.URL {
		t.Errorf("resumed file holds %d records, want the 2 kept and %s's", len(recs), srv.URL)
	}
}
