package agreement

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// byteOffset is the byte offset of line and column, counted as lineColumn
// counts them, in text.
func byteOffset(text []byte, line, column int) int {
	for i := 0; i <= len(text); i++ {
		if l, c := lineColumn(text, i); l == line && c == column {
			return i
		}
	}
	return -1
}

var offsetInMessage = regexp.MustCompile(`at offset (\d+)`)

// TestMessagesPlaceAsFindingsDo: a finding is placed by its line and
// column (docs/cli.md, "Locations"); a message that also names a byte
// offset must name the same place, whatever comes before the card in its
// input (blank lines, another record, the quote of the embedded form).
// json.utf8 and json.duplicate-key said "at offset N", N counted from the
// card's first byte that is not white space and, for an embedded card, in
// the decoded card: neither the input's offset nor the record's.
func TestMessagesPlaceAsFindingsDo(t *testing.T) {
	dup := `{"name": "é😀", "name": "x", "version": "1.0.0"}`
	utf := "{\"name\": \"caf\xe9\", \"version\": \"1.0.0\"}"
	inputs := map[string]string{
		"blank-lines.json":  "\n\n   " + dup + "\n",
		"second.ndjson":     dup + "\n" + utf + "\n",
		"embedded.json":     jsonString(dup),
		"leading-utf8.json": "\t\r\n" + utf,
	}
	dir := t.TempDir()
	for name, text := range inputs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outs := cliRun(t, dir)
	checked := 0
	for line := range bytes.Lines(outs["jsonl"]) {
		var v jsonVerdict
		parseInto(t, line, &v)
		text := []byte(inputs[filepath.Base(v.Input)])
		for _, f := range append(v.Errors, v.Warnings...) {
			if !strings.HasPrefix(f.Rule, "json.") {
				continue
			}
			checked++
			m := offsetInMessage.FindStringSubmatch(f.Message)
			if m == nil {
				continue
			}
			n, _ := strconv.Atoi(m[1])
			if at := byteOffset(text, f.Line, f.Column); n != at {
				t.Errorf("%s:%d:%d: %s: %q names offset %d; the finding is at byte %d of the input", v.Input, f.Line, f.Column, f.Rule, f.Message, n, at)
			}
		}
	}
	if checked != len(inputs)+1 {
		t.Errorf("checked %d json.* findings, want %d", checked, len(inputs)+1)
	}
}
