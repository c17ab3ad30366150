package pipeline

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// watchReading sets readHook for the test: then runs as each input read
// (not mapped) from a regular file starts to be read.
func watchReading(t *testing.T, then func(Input)) {
	readHook = then
	t.Cleanup(func() { readHook = nil })
}

// TestReadFileTruncated: a file cut short after it was opened, while it
// is read rather than mapped (one worker, or compressed), ends as a
// mapped one does: the input counts as unreadable, the diagnostic names
// the line start after which nothing was judged, and the line the cut
// went through is not judged as a card of its own. Before, the end of
// the bytes left passed for the end of the input: the run succeeded on
// part of it, and the cut line was an invalid card made up by the cut.
func TestReadFileTruncated(t *testing.T) {
	unit := card + "\n" + `{"name":1}` + "\n"
	input := []byte(strings.Repeat(unit, (1<<20)/len(unit)))
	for _, keep := range []int{100, 64<<10 + 7, len(input) / 2, len(input) - 3} {
		where := fmt.Sprintf("%d of %d bytes kept, read", keep, len(input))
		path := filepath.Join(t.TempDir(), "in.ndjson")
		if err := os.WriteFile(path, input, 0o644); err != nil {
			t.Fatal(err)
		}
		watchReading(t, func(Input) {
			if err := os.Truncate(path, int64(keep)); err != nil {
				t.Error(err)
			}
		})
		st, out, line, offset := judgeCutShort(t, path, 1, where)
		if offset > keep || offset > 0 && input[offset-1] != '\n' || line != 1+bytes.Count(input[:offset], nl) {
			t.Fatalf("%s: stopped at line %d, offset %d: not a line start within what was kept", where, line, offset)
		}
		if want := int64(bytes.Count(input[:offset], nl)); st.Records != want || int64(strings.Count(out.String(), "\n")) != want {
			t.Errorf("%s: %d records judged and %d written, want the %d before offset %d", where, st.Records, strings.Count(out.String(), "\n"), want, offset)
		}
	}

	// A gzip file cut at the end of a member is a whole stream to the
	// decompressor: only the file's size can tell.
	half := bytes.LastIndexByte(input[:len(input)/2], '\n') + 1
	var gz bytes.Buffer
	for _, member := range [][]byte{input[:half], input[half:]} {
		zw := gzip.NewWriter(&gz)
		zw.Write(member)
		zw.Close()
	}
	first := bytes.Index(gz.Bytes()[10:], []byte{0x1f, 0x8b, 8}) + 10
	path := filepath.Join(t.TempDir(), "in.ndjson.gz")
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	watchReading(t, func(Input) {
		if err := os.Truncate(path, int64(first)); err != nil {
			t.Error(err)
		}
	})
	var diags []string
	st, err := Run(Config{Profile: "agentcard", Jobs: 2, ChunkSize: 64 << 10,
		Diagnose: func(m string) { diags = append(diags, m) }}, []Input{{Name: "in", Path: path}})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("in: line %d, offset %d (%d bytes read as stored): reading gzip stream: %s; the rest of the input was not judged",
		1+bytes.Count(input[:half], nl), half, first, errShrank)
	if st.InputErrors != 1 || len(diags) != 1 || diags[0] != want || st.Records != int64(bytes.Count(input[:half], nl)) {
		t.Errorf("gzip cut after its first member: %d input errors, %d records, diagnostics %q; want 1, %d and %q",
			st.InputErrors, st.Records, diags, bytes.Count(input[:half], nl), want)
	}
}

// TestStdinFileTruncated: standard input redirected from a regular file
// (cardscan < dump.ndjson) is read as a file is, from where its offset
// stands: cut short while it is read, it ends with the same diagnostic,
// and read whole from a later offset it ends cleanly with the records
// after that offset.
func TestStdinFileTruncated(t *testing.T) {
	unit := card + "\n" + `{"name":1}` + "\n"
	input := []byte(strings.Repeat(unit, (1<<20)/len(unit)))
	path := filepath.Join(t.TempDir(), "in.ndjson")
	run := func(skip int, cut func()) (Stats, []string) {
		t.Helper()
		if err := os.WriteFile(path, input, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Seek(int64(skip), 0); err != nil {
			t.Fatal(err)
		}
		watchReading(t, func(Input) { cut() })
		var diags []string
		st, err := Run(Config{Profile: "agentcard", Jobs: 1, ChunkSize: 64 << 10, Stdin: f,
			Diagnose: func(m string) { diags = append(diags, m) }}, []Input{{Name: "<stdin>"}})
		if err != nil {
			t.Fatal(err)
		}
		return st, diags
	}
	keep := len(input) / 2
	st, diags := run(0, func() {
		if err := os.Truncate(path, int64(keep)); err != nil {
			t.Error(err)
		}
	})
	if st.InputErrors != 1 || len(diags) != 1 || !strings.Contains(diags[0], errShrank) {
		t.Errorf("stdin cut to %d of %d bytes: %d input errors, diagnostics %q; want 1 saying %q",
			keep, len(input), st.InputErrors, diags, errShrank)
	}
	if max := int64(bytes.Count(input[:keep], nl)); st.Records > max {
		t.Errorf("stdin cut to %d bytes: %d records, more than the %d lines kept", keep, st.Records, max)
	}

	skip := len(unit) * 3
	st, diags = run(skip, func() {})
	if want := int64(bytes.Count(input[skip:], nl)); st.InputErrors != 0 || len(diags) != 0 || st.Records != want {
		t.Errorf("stdin read whole from offset %d: %d input errors, diagnostics %q, %d records; want none, none, %d",
			skip, st.InputErrors, diags, st.Records, want)
	}
}
