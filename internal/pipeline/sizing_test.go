package pipeline

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeGzip writes input, gzip-compressed, to path and returns path.
func writeGzip(tb testing.TB, path string, input []byte) string {
	tb.Helper()
	return writeCompressed(tb, path, input, func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriter(w), nil })
}

// writeFraming writes input to dir as stored by compression ("", "gzip"
// or "zstd") and returns its path.
func writeFraming(tb testing.TB, dir, compression string, input []byte) string {
	tb.Helper()
	switch compression {
	case "gzip":
		return writeGzip(tb, filepath.Join(dir, "in.ndjson.gz"), input)
	case "zstd":
		return writeZstd(tb, filepath.Join(dir, "in.ndjson.zst"), input)
	}
	path := filepath.Join(dir, "in.ndjson")
	if err := os.WriteFile(path, input, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// checkFileFraming runs path, which holds input, at jobs workers in
// chunks of chunkSize, and holds its verdicts and out files to the
// line-by-line reference.
func checkFileFraming(t *testing.T, path string, input []byte, chunkSize, maxRecord, jobs int) {
	t.Helper()
	var out, valid, invalid bytes.Buffer
	_, err := Run(Config{
		Profile: "agentcard", Jobs: jobs, ChunkSize: chunkSize, MaxRecord: maxRecord,
		All: true, Findings: jsonlTo(&out, true), ValidOut: &valid, InvalidOut: &invalid,
	}, []Input{{Name: "in", Path: path, Framing: FramingNDJSON}})
	if err != nil {
		t.Fatal(err)
	}
	wantOut, wantValid, wantInvalid := reference(input, maxRecord)
	if out.String() != string(wantOut) {
		t.Fatalf("%s, chunk %d, max record %d, -j %d: verdicts differ\n got %.600s\nwant %.600s",
			filepath.Base(path), chunkSize, maxRecord, jobs, out.String(), wantOut)
	}
	if !bytes.Equal(valid.Bytes(), wantValid) || !bytes.Equal(invalid.Bytes(), wantInvalid) {
		t.Fatalf("%s, chunk %d, max record %d, -j %d: out files differ (valid %d bytes, want %d; invalid %d, want %d)",
			filepath.Base(path), chunkSize, maxRecord, jobs, valid.Len(), len(wantValid), invalid.Len(), len(wantInvalid))
	}
}

// ratioShiftInput is NDJSON whose one half compresses a hundredfold and
// whose other half hardly at all, in the order asked: an estimate of the
// decompressed size made from the first half is far off for the second.
func ratioShiftInput(compressibleFirst bool, half int) []byte {
	r := rand.New(rand.NewPCG(5, 6))
	var dense, sparse bytes.Buffer
	for i := 0; dense.Len() < half; i++ {
		switch i % 4 {
		case 0:
			dense.WriteString(card + "\n")
		case 1:
			dense.WriteString("{}\n")
		case 2:
			dense.WriteString("\n")
		default:
			dense.WriteString(" \r\n")
		}
	}
	for sparse.Len() < half {
		fmt.Fprintf(&sparse, `{"name":"%x%x","version":"%x"}`+"\n", r.Uint64(), r.Uint64(), r.Uint32())
	}
	if compressibleFirst {
		return append(dense.Bytes(), sparse.Bytes()...)
	}
	return append(sparse.Bytes(), dense.Bytes()...)
}

// TestCompressedRatioShiftFraming: a compressed file whose ratio changes
// sharply midway has its decompressed size misjudged by the chunk sizing
// of several workers; the chunks it cuts must still each hold at most a
// chunk size, none empty, all the bytes in order, and give the verdicts
// and out files of the line-by-line reference.
func TestCompressedRatioShiftFraming(t *testing.T) {
	const chunkSize = 16 << 10
	dir := t.TempDir()
	for _, first := range []bool{true, false} {
		input := ratioShiftInput(first, 12*chunkSize)
		for _, compression := range []string{"gzip", "zstd"} {
			path := writeFraming(t, dir, compression, input)
			for jobs := 1; jobs <= 3; jobs++ {
				sizes := chunkSizes(t, path, jobs, chunkSize)
				total := 0
				for i, n := range sizes {
					total += n
					if n == 0 || n > chunkSize {
						t.Errorf("%s, compressible first %v, -j %d: chunk %d of %d bytes; want 1 to %d",
							compression, first, jobs, i, n, chunkSize)
					}
				}
				if total != len(input) {
					t.Errorf("%s, compressible first %v, -j %d: the chunks carried %d bytes of %d",
						compression, first, jobs, total, len(input))
				}
				checkFileFraming(t, path, input, chunkSize, DefaultMaxRecord, jobs)
			}
		}
	}
}

// tinyThenLong is NDJSON of more tiny lines than a chunk keeps the ends
// of, then a line longer than the chunk size and one longer than the
// record bound, each followed by tiny lines again, a CRLF and a last line
// without a newline.
func tinyThenLong(chunkSize, maxRecord int) []byte {
	var b bytes.Buffer
	b.WriteString(strings.Repeat("{}\n", chunkSize/lineEndsPer*3))
	b.WriteString(`{"padding":"` + strings.Repeat("x", chunkSize+100) + `"}` + "\n")
	b.WriteString(strings.Repeat("\n", chunkSize/lineEndsPer*2))
	b.WriteString(card + "\r\n")
	b.WriteString(`{"padding":"` + strings.Repeat("y", maxRecord+1) + `"}` + "\n")
	b.WriteString(strings.Repeat("1\n \n", chunkSize/lineEndsPer))
	b.WriteString(card)
	return b.Bytes()
}

// TestTinyLinesThenLongFraming: chunks of more lines than they keep the
// ends of, then a record longer than a chunk (which grows one) and one
// over the bound, in a file read plain, gzip and zstd, at one to three
// workers: the verdicts and out files of the line-by-line reference.
func TestTinyLinesThenLongFraming(t *testing.T) {
	const chunkSize, maxRecord = 8 << 10, 24 << 10
	input := tinyThenLong(chunkSize, maxRecord)
	dir := t.TempDir()
	for _, compression := range []string{"", "gzip", "zstd"} {
		path := writeFraming(t, dir, compression, input)
		for jobs := 1; jobs <= 3; jobs++ {
			checkFileFraming(t, path, input, chunkSize, maxRecord, jobs)
		}
	}
}

// FuzzFileFramingMatchesReference: NDJSON read from a file, plain, gzip
// or zstd, at one to three workers in chunks sized by the file's (or its
// estimated) size, gives the verdicts and out files of a line-by-line
// reference. The input is repeated so that it spans the several chunks a
// worker that the sizing needs.
func FuzzFileFramingMatchesReference(f *testing.F) {
	f.Add([]byte(card+"\n\n{}\r\n"), uint8(200), uint16(4096), uint16(512), uint8(1), uint8(2))
	f.Add([]byte("{}\n"), uint8(255), uint16(0), uint16(40), uint8(2), uint8(1))
	f.Add([]byte(strings.Repeat("\n", 63)+card), uint8(90), uint16(9000), uint16(300), uint8(0), uint8(0))
	f.Add([]byte("\x00\xff\r\n \t\n"+card+"\r\n"), uint8(180), uint16(5000), uint16(100), uint8(2), uint8(2))
	f.Fuzz(func(t *testing.T, unit []byte, repeat uint8, chunk, maxRecord uint16, jobs, compression uint8) {
		if len(unit) == 0 || len(unit)*int(repeat) > 1<<18 {
			return
		}
		input := bytes.Repeat(unit, int(repeat))
		chunkSize, limit, j := minChunk+int(chunk)%(16<<10), 64+int(maxRecord)%8192, 1+int(jobs)%3
		path := writeFraming(t, t.TempDir(), []string{"", "gzip", "zstd"}[compression%3], input)
		checkFileFraming(t, path, input, chunkSize, limit, j)
	})
}

// paddedLine is a line of exactly n bytes, '\n' included: a card while n
// leaves room for one, an object not a card, or a number, when shorter.
func paddedLine(n int) string {
	prefix := card[:len(card)-1] + `,"x":"`
	if fill := n - len(prefix) - 3; fill >= 0 {
		return prefix + strings.Repeat("p", fill) + "\"}\n"
	}
	if n >= 9 {
		return `{"x":"` + strings.Repeat("p", n-9) + "\"}\n"
	}
	return strings.Repeat("1", n-1) + "\n"
}

// TestBoundaryLinesFraming: lines that end exactly on a multiple of the
// 64 bytes a kept place stands for, and on a chunk's last byte, or one
// byte either side of them, with CRLF, NUL and invalid UTF-8 lines among
// them and a last line without a newline: the verdicts and out files of
// the line-by-line reference, read plain, gzip and zstd at one to three
// workers.
func TestBoundaryLinesFraming(t *testing.T) {
	const chunkSize = 4 << 10
	var b strings.Builder
	for _, n := range []int{64, 63, 65, 1, 128, chunkSize, chunkSize - 1, chunkSize + 1, 2 * chunkSize, 200} {
		for i := range 2 * chunkSize / n {
			b.WriteString(paddedLine(n))
			switch i % 7 {
			case 3:
				b.WriteString("{\"name\":\"\xff\xfe\"}\r\n")
			case 5:
				b.WriteString("\x00\n \t \r\n")
			}
		}
	}
	b.WriteString(card)
	input := []byte(b.String())
	dir := t.TempDir()
	for _, compression := range []string{"", "gzip", "zstd"} {
		path := writeFraming(t, dir, compression, input)
		for jobs := 1; jobs <= 3; jobs++ {
			for _, chunk := range []int{chunkSize, chunkSize + lineEndsPer, 2*chunkSize + 1} {
				checkFileFraming(t, path, input, chunk, 3*chunkSize, jobs)
			}
		}
	}
}
