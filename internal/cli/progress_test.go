package cli

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// TestProgressCountsAsTheSummary: on a compressed input the progress line
// counts the bytes judged, decompressed, as the summary line does, not the
// compressed bytes read; both lines say MB of the same thing.
func TestProgressCountsAsTheSummary(t *testing.T) {
	old := nonTTYProgressEvery
	nonTTYProgressEvery = time.Millisecond
	defer func() { nonTTYProgressEvery = old }()
	plain := bigInput(t, 400)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(plain)
	w.Close()
	if gz.Len()*4 > len(plain) {
		t.Fatalf("the input compresses only to %d of %d bytes", gz.Len(), len(plain))
	}
	var out, errOut bytes.Buffer
	code := Run([]string{"--progress", "always", "-q", "-j", "1", "--chunk-size", "1KiB"}, &trickleReader{r: &gz}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
	summary := lines[len(lines)-1]
	if !strings.Contains(summary, " "+strconv.FormatFloat(float64(len(plain))/1e6, 'f', 1, 64)+" MB in ") {
		t.Fatalf("the summary %q does not count %d decompressed bytes", summary, len(plain))
	}
	mb := regexp.MustCompile(`records, ([0-9.]+) MB judged, `)
	most := 0.0
	for _, l := range lines[:len(lines)-1] {
		m := mb.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("progress line %q does not say MB judged", l)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		most = max(most, v)
	}
	// Half the input judged is already far more than all of it compressed.
	if stored := float64(gz.Len()) / 1e6; most < 2*stored {
		t.Errorf("progress counted at most %.1f MB for an input of %.2f MB stored, %.1f MB decompressed:\n%s", most, stored, float64(len(plain))/1e6, errOut.String())
	}
}

// trickleReader hands out 512 bytes per read, a millisecond apart, so that
// a compressed input takes many progress lines.
type trickleReader struct{ r io.Reader }

func (s *trickleReader) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	return s.r.Read(p[:min(len(p), 512)])
}

// TestProgressLine: the counts read in English at one record too.
func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		records, judged, read, total int64
		want                         string
	}{
		{1, 2e6, 1e6, 0, "1 record, 2.0 MB judged, 1.0 MB/s"},
		{2, 2e6, 1e6, 4e6, "2 records, 2.0 MB judged, 1.0 MB/s, 25% of the input read, ETA 6s"},
	} {
		if got := progressLine(c.records, c.judged, c.read, c.total, 2); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
