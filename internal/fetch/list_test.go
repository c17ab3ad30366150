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

// TestURLListBOM: a URL list saved by an editor that writes a byte order
// mark had its first line refused as no URL, the mark shown in the
// message. The mark is skipped, as the validation run skips it.
func TestURLListBOM(t *testing.T) {
	for _, list := range []string{"\ufeffhttps://a.example/\nhttps://b.example/\n", "\ufeff\r\nhttps://a.example/\nhttps://b.example/\n"} {
		s := newURLSource(nil, strings.NewReader(list), nil, nil)
		var got []string
		for u, ok := s.next(); ok; u, ok = s.next() {
			got = append(got, u)
		}
		if want := []string{"https://a.example/", "https://b.example/"}; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("list %q: URLs %q, want %q", list, got, want)
		}
	}
	// A mark on a later line is no mark of the file: that line is not a URL.
	s := newURLSource(nil, strings.NewReader("https://a.example/\n\ufeffhttps://b.example/\n"), nil, nil)
	s.next()
	if u, _ := s.next(); u != "\ufeffhttps://b.example/" {
		t.Errorf("a mark on line 2 was taken away: %q", u)
	}
}
