package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

// TestLineReaderFramesAsThePipeline reads NDJSON with LineReader, through
// small buffers and short reads, and judges its records the way the
// pipeline does: the verdicts (line numbers, offsets, too-large lines and
// all) are the pipeline's own, byte for byte. The inputs are random, and
// lines at the record bound, '\r' counted or not.
func TestLineReaderFramesAsThePipeline(t *testing.T) {
	pad := func(n int) string { return `{"padding":"` + strings.Repeat("x", n-len(`{"padding":""}`)) + `"}` }
	bound := "\n" + pad(99) + "\n" + pad(100) + "\n" + pad(101) + "\n" + pad(99) + "\r\n" + pad(100) + "\r\n" + pad(100)
	for _, size := range []int{16, 64, 99, 100, 101, 102, 512} {
		checkLineReader(t, []byte(bound), 100, size, iotest.HalfReader)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 60 {
		input, maxRecord := randomInput(r), 64+r.IntN(4096)
		for _, wrap := range []func(io.Reader) io.Reader{nil, iotest.HalfReader, iotest.OneByteReader} {
			checkLineReader(t, input, maxRecord, 16+r.IntN(512), wrap)
		}
	}
}

func checkLineReader(t *testing.T, input []byte, maxRecord, bufSize int, wrap func(io.Reader) io.Reader) {
	t.Helper()
	var want bytes.Buffer
	if _, err := Run(Config{Profile: "agentcard", MaxRecord: maxRecord, All: true, Findings: jsonlTo(&want, true),
		Stdin: bytes.NewReader(input)}, []Input{{Name: "in", Framing: FramingNDJSON}}); err != nil {
		t.Fatal(err)
	}
	var in io.Reader = bytes.NewReader(input)
	if wrap != nil {
		in = wrap(in)
	}
	v := fastvalidate.MustNew("agentcard")
	lr := NewLineReader(in, bufSize)
	var got []byte
	var enc report.Encoder
	var offset int64
	grow := func(n int) error {
		if n > 2*(maxRecord+1)+bufSize {
			return fmt.Errorf("asked for %d bytes of a line, past twice the bound", n)
		}
		return nil
	}
	for line := 1; ; line++ {
		rec, n, tooLarge, err := lr.Next(int64(maxRecord), grow)
		if n == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			t.Fatalf("line %d: %v", line, err)
		}
		switch {
		case tooLarge:
			vd := report.TooLarge("in", line, 1, offset, int64(maxRecord))
			vd.Profile = "agentcard"
			got = enc.AppendJSONL(got, &vd)
		case !BlankRecord(rec):
			vd := report.FromResult("in", line, 1, offset, rec, v.Validate(rec))
			if vd.Profile == "" {
				vd.Profile = "agentcard"
			}
			got = enc.AppendJSONL(got, &vd)
		}
		offset += n
		if err == io.EOF {
			break
		}
	}
	if string(got) != want.String() {
		t.Fatalf("%d bytes, buffer %d, max record %d: verdicts differ\n got %s\nwant %s",
			len(input), bufSize, maxRecord, got, want.String())
	}
}

// A line the caller has no room for ends Next with the caller's error.
func TestLineReaderGrowRefused(t *testing.T) {
	full := errors.New("no room")
	lr := NewLineReader(strings.NewReader(strings.Repeat("x", 100)+"\n{}\n"), 16)
	if _, _, _, err := lr.Next(1000, func(int) error { return full }); err != full {
		t.Fatalf("err %v, want %v", err, full)
	}
	lr.Reset(strings.NewReader("{}\r\n \n"))
	for _, want := range []string{"{}", " "} {
		rec, _, tooLarge, err := lr.Next(3, func(int) error { return full })
		if string(rec) != want || tooLarge || err != nil {
			t.Errorf("record %q, too large %v, %v; want %q", rec, tooLarge, err, want)
		}
	}
	if rec, _, tooLarge, _ := NewLineReader(strings.NewReader("{} \r\n"), 16).Next(3, nil); !tooLarge {
		t.Errorf("a line of 4 bytes, '\\r' counted, is not too large for a bound of 3: record %q", rec)
	}
}
