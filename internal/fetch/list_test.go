package fetch

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// endlessLine is a reader of n bytes of 'a' and no newline, then tail.
type endlessLine struct {
	n    int64
	tail *strings.Reader
}

func (r *endlessLine) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return r.tail.Read(p)
	}
	k := min(int64(len(p)), r.n)
	for i := range k {
		p[i] = 'a'
	}
	r.n -= k
	return int(k), nil
}

// TestURLListLongLine: a URL list is untrusted input, and a line without
// end (--urls /dev/zero, a binary file) was held whole, however long. It
// is now reported by its line and skipped, holding no more than a URL's
// bound, and the URLs after it are still fetched.
func TestURLListLongLine(t *testing.T) {
	list := &endlessLine{n: 256 << 20, tail: strings.NewReader("\nhttps://127.0.0.1:1/\n")}
	var out, errOut bytes.Buffer
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := Run([]string{"--urls", "-", "--format", "jsonl", "--all"}, list, &out, &errOut)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Error("a list with a line too long to be a URL: no error")
	}
	if !strings.Contains(errOut.String(), "--urls -:1: longer than") {
		t.Errorf("stderr %q does not name the list's line 1", errOut.String())
	}
	if !strings.Contains(out.String(), `"input":"https://127.0.0.1:1/"`) {
		t.Errorf("the URL after the long line was not fetched: %q", out.String())
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("reading a 256 MiB line allocated %d MiB; want at most 64", grew>>20)
	}
}
