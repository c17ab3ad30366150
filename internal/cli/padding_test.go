package cli

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/cmderr"
)

// TestGzipTrailingZeros: a gzip input padded with NUL bytes after its last
// member (tar pads to its 10 KiB records, some uploaders to a block; GNU
// gzip -d says "decompression OK, trailing zero bytes ignored") ended the
// run with status 3. The padding is ignored now, whatever its length,
// from a file and from standard input, and said once on stderr; the
// cards are judged as those of the stream without it.
func TestGzipTrailingZeros(t *testing.T) {
	input := bigInput(t, 4)
	dir := t.TempDir()
	plain := writeFile(t, filepath.Join(dir, "cards.ndjson"), input)
	want := run(t, "", "--format", "jsonl", "--all", plain)
	half := bytes.IndexByte(input[len(input)/2:], '\n') + len(input)/2 + 1
	one := gzipBytes(t, input)
	two := append(gzipBytes(t, input[:half]), gzipBytes(t, input[half:])...)
	for _, tc := range []struct {
		name    string
		members []byte
		zeros   int
	}{
		{"one member padded to a tar record", one, 10240 - len(one)%10240},
		{"two members and one zero", two, 1},
		{"two MiB of zeros", one, 2 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			padded := append(bytes.Clone(tc.members), make([]byte, tc.zeros)...)
			path := writeFile(t, filepath.Join(dir, "padded.ndjson.gz"), padded)
			note := fmt.Sprintf("cardscan: %%s: trailing zero bytes ignored (%d after the last gzip member)\n", tc.zeros)
			for _, r := range []struct {
				name string
				res  result
			}{
				{path, run(t, "", "--format", "jsonl", "--all", path)},
				{path, run(t, "", "--format", "jsonl", "--all", "--on-corrupt", "drop", path)},
				{"<stdin>", run(t, string(padded), "--format", "jsonl", "--all")},
			} {
				if got := strings.ReplaceAll(r.res.stdout, r.name, plain); r.res.code != want.code || got != want.stdout {
					t.Errorf("%s: exit %d (want %d), stderr %q; verdicts differ from the stream without padding", r.name, r.res.code, want.code, r.res.stderr)
				}
				if n := strings.Count(r.res.stderr, "trailing zero bytes ignored"); n != 1 || !strings.Contains(r.res.stderr, fmt.Sprintf(note, r.name)) {
					t.Errorf("%s: stderr %q, want the padding noted once as %q", r.name, r.res.stderr, fmt.Sprintf(note, r.name))
				}
			}
		})
	}
}

// TestCompressedTrailingGarbage: bytes after the last member or frame
// that are no zero padding of gzip, or any padding of zstd (zstd -d
// refuses it), end the input with status 3, the cards before them
// judged, and a message that says what was found where.
func TestCompressedTrailingGarbage(t *testing.T) {
	input := bigInput(t, 2)
	dir := t.TempDir()
	plain := writeFile(t, filepath.Join(dir, "cards.ndjson"), input)
	judged := strings.Count(run(t, "", "--format", "jsonl", "--all", plain).stdout, "\n")
	const gzipMsg = "reading gzip stream: bytes after the last gzip member that are neither a gzip member nor zero padding; the rest of the input was not judged"
	const zstdMsg = "reading zstd stream: bytes after a zstd frame that start no zstd frame (trailing garbage or padding, which zstd -d refuses too); the rest of the input was not judged"
	for _, tc := range []struct {
		name   string
		stream []byte
		msg    string
	}{
		{"gzip, text", append(gzipBytes(t, input), "hello\n"...), gzipMsg},
		{"gzip, zeros then a byte", append(append(gzipBytes(t, input), make([]byte, 70000)...), 'x'), gzipMsg},
		{"gzip, a byte then zeros", append(append(gzipBytes(t, input), 'x'), make([]byte, 512)...), gzipMsg},
		{"zstd, zeros", append(zstdBytes(t, input), make([]byte, 512)...), zstdMsg},
		{"zstd, text", append(zstdBytes(t, input), "hello\n"...), zstdMsg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, "bad.ndjson.z"), tc.stream)
			r := run(t, "", "--format", "jsonl", "--all", path)
			if r.code != cmderr.StatusIO || !strings.Contains(r.stderr, "cardscan: error: "+path+": line ") || !strings.Contains(r.stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, cmderr.StatusIO, tc.msg)
			}
			if got := strings.Count(r.stdout, "\n"); got != judged {
				t.Errorf("%d verdicts, want the %d of the stream before the garbage", got, judged)
			}
		})
	}
}
