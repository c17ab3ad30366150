package compare

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Dialect says which kind of card a corpus holds, and so which peers can
// judge it meaningfully.
type Dialect int

const (
	// DialectDraft is AgentCard as draft-aevum-agentcard-00 writes it.
	DialectDraft Dialect = iota
	// DialectSchema is AgentCard as the JSON Schema v1.0 writes it.
	DialectSchema
	// DialectA2A is the A2A protocol's agent card.
	DialectA2A
	// DialectMixed is whatever real repositories publish.
	DialectMixed
)

// Corpus is one input of the comparison, prepared as an NDJSON file and a
// zstd copy of it.
type Corpus struct {
	Name    string // short key: "draft", "schema", "a2a", "real"
	Title   string // heading of its table
	Dialect Dialect
	Path    string // NDJSON
	Zst     string // the same bytes, zstd-compressed
	Bytes   int64
	// Repeat is how many times the cards are concatenated in Path: the
	// real cards are too few to time, so they are judged many times over
	// and the counts divided back.
	Repeat int
	// Note says how the corpus was prepared, for the report.
	Note string
	// Targets marks the corpora the project's speed targets are judged on.
	Targets bool
}

// prepareDump makes a corpus from a generated NDJSON dump. With maxBytes >
// 0 it uses the dump's first maxBytes (cut at a line end) instead; it
// writes copies and compressed copies in tmp, never beside the dump.
func prepareDump(c Corpus, dump string, maxBytes int64, tmp string) (Corpus, error) {
	st, err := os.Stat(dump)
	if err != nil {
		return c, err
	}
	c.Path, c.Bytes, c.Repeat = dump, st.Size(), 1
	if maxBytes > 0 && st.Size() > maxBytes {
		c.Path = filepath.Join(tmp, c.Name+".ndjson")
		if c.Bytes, err = truncateLines(dump, c.Path, maxBytes); err != nil {
			return c, err
		}
		c.Note = fmt.Sprintf("first %.1f MB of %s", float64(c.Bytes)/1e6, filepath.Base(dump))
	} else {
		c.Note = filepath.Base(dump)
	}
	if zst := dump + ".zst"; c.Path == dump && sameLength(zst, dump) {
		c.Zst = zst
		return c, nil
	}
	c.Zst = filepath.Join(tmp, c.Name+".ndjson.zst")
	return c, compressFile(c.Path, c.Zst)
}

// sameLength reports whether zst exists and decompresses to as many bytes
// as plain has: a cheap guard against a stale copy left by an earlier
// generator run.
func sameLength(zst, plain string) bool {
	st, err := os.Stat(plain)
	if err != nil {
		return false
	}
	f, err := os.Open(zst)
	if err != nil {
		return false
	}
	defer f.Close()
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
	if err != nil {
		return false
	}
	defer dec.Close()
	n, err := io.Copy(io.Discard, dec)
	return err == nil && n == st.Size()
}

// truncateLines copies the first lines of src, up to limit bytes and at
// least one line, to dst.
func truncateLines(src, dst string, limit int64) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriterSize(out, 1<<20)
	var n int64
	for n < limit {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: keep copying it whole.
			w.Write(line)
			n += int64(len(line))
			continue
		}
		w.Write(line)
		n += int64(len(line))
		if err == io.EOF {
			break
		}
		if err != nil {
			out.Close()
			return 0, err
		}
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return 0, err
	}
	return n, out.Close()
}

func compressFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	// The content size goes in the frame header, as zstd(1) writes it.
	enc, err := zstd.NewWriter(out, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		out.Close()
		return err
	}
	enc.ResetContentSize(out, st.Size())
	if _, err := io.Copy(enc, in); err != nil {
		enc.Close()
		out.Close()
		return err
	}
	if err := enc.Close(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// realCards turns each *.json file of dir into one NDJSON line: compacted
// with encoding/json.Compact, which keeps every byte of a value (invalid
// UTF-8, duplicate members and all) and drops only whitespace between
// tokens. A file that is not JSON at all cannot be compacted; its line
// breaks become spaces, which keeps it invalid for every tool alike.
func realCards(dir string) (lines [][]byte, uncompacted []string, err error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(names)
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			return nil, nil, err
		}
		lines = append(lines, compactLine(raw))
		if !json.Valid(raw) {
			uncompacted = append(uncompacted, filepath.Base(name))
		}
	}
	if len(lines) == 0 {
		return nil, nil, fmt.Errorf("no *.json files in %s", dir)
	}
	return lines, uncompacted, nil
}

func compactLine(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.Bytes()
	}
	line := bytes.TrimSpace(raw)
	line = bytes.ReplaceAll(line, []byte("\r\n"), []byte(" "))
	line = bytes.ReplaceAll(line, []byte("\n"), []byte(" "))
	return bytes.ReplaceAll(line, []byte("\r"), []byte(" "))
}

// prepareReal writes the real cards, one per line and repeated until the
// file holds at least minBytes, to tmp.
func prepareReal(c Corpus, dir string, minBytes int64, tmp string) (Corpus, error) {
	lines, uncompacted, err := realCards(dir)
	if err != nil {
		return c, err
	}
	var once []byte
	for _, l := range lines {
		once = append(append(once, l...), '\n')
	}
	c.Note = fmt.Sprintf("%d files from %s, each compacted to one line", len(lines), dir)
	if len(uncompacted) > 0 {
		c.Note += fmt.Sprintf(" (not JSON, so only their line breaks became spaces: %s)", strings.Join(uncompacted, ", "))
	}
	return writeRepeated(c, once, minBytes, tmp)
}

// prepareLines is prepareReal for a small NDJSON file.
func prepareLines(c Corpus, path string, minBytes int64, tmp string) (Corpus, error) {
	once, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if len(once) == 0 {
		return c, fmt.Errorf("%s is empty", path)
	}
	if once[len(once)-1] != '\n' {
		once = append(once, '\n')
	}
	c.Note = filepath.Base(path)
	return writeRepeated(c, once, minBytes, tmp)
}

// writeRepeated writes once, repeated until the file holds at least
// minBytes, and its zstd copy to tmp: too few cards to time are judged many
// times over, and the counts divided back.
func writeRepeated(c Corpus, once []byte, minBytes int64, tmp string) (Corpus, error) {
	c.Repeat = int(max(1, (minBytes+int64(len(once))-1)/int64(len(once))))
	c.Path = filepath.Join(tmp, c.Name+".ndjson")
	if err := os.WriteFile(c.Path, bytes.Repeat(once, c.Repeat), 0o644); err != nil {
		return c, err
	}
	c.Bytes = int64(len(once) * c.Repeat)
	c.Note += fmt.Sprintf("; %.1f KB repeated %d times for timing", float64(len(once))/1e3, c.Repeat)
	c.Zst = c.Path + ".zst"
	return c, compressFile(c.Path, c.Zst)
}
