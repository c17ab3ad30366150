package dump

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// writeDigest writes a zstd digest file of the given decompressed bytes,
// with the window cardscan writes them with.
func writeDigest(t *testing.T, raw []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shard.dig")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z, err := zstd.NewWriter(f, zstd.WithWindowSize(digestWindow))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDigestFileHostileLength: a record length a digest file claims is
// not memory taken before its bytes arrive. A 50-byte file claiming a
// record of 1 GiB, cut short after it, took 1 GiB at once.
func TestDigestFileHostileLength(t *testing.T) {
	raw := append([]byte(digestMagic), ClaimsFile, 0)
	raw = binary.AppendUvarint(raw, 0) // part
	raw = binary.AppendUvarint(raw, 1) // parts
	raw = binary.AppendUvarint(raw, 1<<30)
	raw = append(raw, make([]byte, 100)...)
	path := writeDigest(t, raw)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d, err := openDigestFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	_, err = d.next()
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("a record cut short: %v, want cut short", err)
	}
	// The decoder and its buffers take a few MiB; the claim took 1 GiB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("reading a 100-byte record that claims 1 GiB allocated %d MiB; want at most 64", grew>>20)
	}
}

// TestMergeSameDigestTwice: a shard's file given twice would have each
// of its records claim its identities against itself, findings about
// records that are one record; it is refused by name, under any path.
func TestMergeSameDigestTwice(t *testing.T) {
	raw := append([]byte(digestMagic), ClaimsFile, 0)
	raw = binary.AppendUvarint(raw, 0) // part
	raw = binary.AppendUvarint(raw, 1) // parts
	raw = append(binary.AppendUvarint(append(raw, 0), 0), digestTrailer...)
	path := writeDigest(t, raw)
	link := filepath.Join(t.TempDir(), "link.dig")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	c, err := NewCross(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, paths := range [][]string{{path, path}, {path, link}} {
		_, err := c.MergeFiles(paths, nil)
		if err == nil || !strings.Contains(err.Error(), "given twice") || !strings.Contains(err.Error(), paths[1]) {
			t.Errorf("merge %q: %v; want an error naming %s as given twice", paths, err, paths[1])
		}
	}
	if _, err := c.MergeFiles([]string{path}, nil); err != nil {
		t.Errorf("the file alone: %v", err)
	}
}

// TestDigestFileOtherVersion: a digest file of another format version (a
// shard run by another cardscan) is named as such, not as a file that
// is no digest at all.
func TestDigestFileOtherVersion(t *testing.T) {
	raw := []byte(digestMagic)
	raw[len(raw)-1]++ // the format version
	raw = append(raw, ClaimsFile, 0, 0, 1)
	path := writeDigest(t, raw)
	_, err := openDigestFile(path, 0)
	if err == nil || !strings.Contains(err.Error(), "format version 2") || !strings.Contains(err.Error(), "another cardscan") {
		t.Errorf("a file of format version 2: %v", err)
	}
}

// TestDigestFileHugeWindow: digest files are written with a window of
// digestWindow; a frame that claims more (here 64 MiB, the most the
// reader took) is no digest file cardscan wrote, and would take its
// window of memory for each of up to MaxMergeFiles files.
func TestDigestFileHugeWindow(t *testing.T) {
	raw := append([]byte(digestMagic), ClaimsFile, 0)
	raw = binary.AppendUvarint(raw, 0)
	raw = binary.AppendUvarint(raw, 1)
	rec := append([]byte{0, 0, 0}, bytes.Repeat([]byte("a"), 8<<20)...)
	raw = binary.AppendUvarint(raw, uint64(len(rec)))
	raw = append(raw, rec...)
	raw = append(binary.AppendUvarint(append(raw, 0), 1), digestTrailer...)
	// A stream that declares its window, and a frame of one segment, whose
	// window is its content's size (what zstd --long writes).
	streamed := filepath.Join(t.TempDir(), "wide.dig")
	f, err := os.Create(streamed)
	if err != nil {
		t.Fatal(err)
	}
	z, err := zstd.NewWriter(f, zstd.WithWindowSize(64<<20), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	z.Write(raw)
	z.Close()
	f.Close()
	enc, _ := zstd.NewWriter(nil)
	single := filepath.Join(t.TempDir(), "single.dig")
	if err := os.WriteFile(single, enc.EncodeAll(raw, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{streamed, single} {
		d, err := openDigestFile(path, 0)
		if err == nil {
			_, err = d.next()
			d.close()
		}
		if err == nil || !strings.Contains(err.Error(), "window") {
			t.Errorf("%s: %v, want it refused for its window", filepath.Base(path), err)
		}
	}
}

// TestMergeHeldRecordsBounded: each file of a merge holds its current
// record, and a record is read whatever length it states, so many files
// of one huge record each (2 KB apiece, compressed) held them all: eight
// of 60 MiB took 1.1 GB. What the files hold at once is bounded; here the
// bound is lowered to 8 MiB and three files hold 4 MiB each.
func TestMergeHeldRecordsBounded(t *testing.T) {
	defer func(old int64) { maxHeldRecords = old }(maxHeldRecords)
	maxHeldRecords = 8 << 20
	raw := append([]byte(digestMagic), ClaimsFile, 0)
	raw = binary.AppendUvarint(raw, 0)
	raw = binary.AppendUvarint(raw, 1)
	rec := append([]byte{0, 0, 0}, bytes.Repeat([]byte("a"), 4<<20)...)
	raw = binary.AppendUvarint(raw, uint64(len(rec)))
	raw = append(raw, rec...)
	raw = append(binary.AppendUvarint(append(raw, 0), 1), digestTrailer...)
	var paths []string
	for range 3 {
		paths = append(paths, writeDigest(t, raw))
	}
	c, err := NewCross(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.MergeFiles(paths, nil)
	if err == nil || !strings.Contains(err.Error(), "records held at once") {
		t.Errorf("three files of a 4 MiB record each, against 8 MiB: %v", err)
	}
	if _, err := c.MergeFiles(paths[:1], nil); err != nil && strings.Contains(err.Error(), "held at once") {
		t.Errorf("one file of a 4 MiB record: %v", err)
	}
}

// TestDigestFileCutOrCorrupt: a digest file cut short or with a byte
// flipped inside its zstd stream (a copy between machines that stopped,
// a bad disk) was called "not a cardscan digest file", sending the user
// to look for the wrong file. It is named as cut short or corrupt, with
// the decoder's reason; a file that is not zstd at all is still no
// digest file.
func TestDigestFileCutOrCorrupt(t *testing.T) {
	raw := append([]byte(digestMagic), ClaimsFile, 0)
	raw = binary.AppendUvarint(raw, 0) // part
	raw = binary.AppendUvarint(raw, 1) // parts
	// Records enough that the stream is a few blocks, not all of it
	// in the frame's first bytes.
	for i := range 5000 {
		raw = binary.AppendUvarint(raw, 8)
		raw = binary.BigEndian.AppendUint64(raw, uint64(i)*0x9E3779B97F4A7C15)
	}
	whole, err := os.ReadFile(writeDigest(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	flipped := bytes.Clone(whole)
	flipped[len(flipped)/2] ^= 0xff
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"cut", whole[:len(whole)/2], "cut short"},
		{"cut-in-frame-header", whole[:6], "cut short"},
		{"flipped", flipped, "corrupt"},
		{"not-zstd", []byte("{\"name\":\"a card\"}\n"), "not a cardscan digest file"},
	} {
		path := filepath.Join(dir, tc.name+".dig")
		if err := os.WriteFile(path, tc.b, 0o644); err != nil {
			t.Fatal(err)
		}
		err := readAll(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// readAll opens a digest file and reads its records to the end.
func readAll(path string) error {
	d, err := openDigestFile(path, 0)
	if err != nil {
		return err
	}
	defer d.close()
	for {
		more, err := d.next()
		if err != nil || !more {
			return err
		}
	}
}
