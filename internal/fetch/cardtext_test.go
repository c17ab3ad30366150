package fetch

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/visible"
)

// TestCardsRecordShowsHiddenCharacters: --format cards embeds the card
// served; its hidden characters and C1 controls are \u escapes there as
// in the rest of the record, so that the record decodes to the card as it
// was, and a U+2028 or U+202E cannot break or reorder the line.
func TestCardsRecordShowsHiddenCharacters(t *testing.T) {
	card := []byte("{\"name\": \"a\u202eb\u200b\u0085\u2028c\U000E0041\", \"n\u2066\": 1}")
	rd := renderer{cards: true}
	out := rd.append(nil, &record{requested: "https://example.com/", card: card})
	if visible.Has(out) || strings.Contains(string(out), "\u0085") || strings.Count(string(out), "\n") != 1 {
		t.Errorf("hidden characters written raw:\n%s", out)
	}
	var rec struct{ Card map[string]any }
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rec.Card["name"] != "a\u202eb\u200b\u0085\u2028c\U000E0041" || rec.Card["n\u2066"] != 1.0 {
		t.Errorf("card decodes to %q", rec.Card)
	}
}

// TestProbeRecordShowsHiddenCharacters: a probe record's probe member
// repeats the card's interface URL and binding and the server's answer;
// their hidden characters are \u escapes as in the verdict members.
func TestProbeRecordShowsHiddenCharacters(t *testing.T) {
	it := &iface{url: "https://example.com/a\u202eb", binding: "JSONRPC\u200b", pointer: "/supportedInterfaces/0", version: "1.0\u2028"}
	o := &outcome{class: "wrong-binding", answer: "answered \u0085\u2066x", server: "1.0\U000E0041"}
	out := appendProbeJSON(nil, &probeCard{input: "c.json"}, it, o)
	if visible.Has(out) || strings.Contains(string(out), "\u0085") {
		t.Errorf("hidden characters written raw: %s", out)
	}
	var pj probeJSON
	if err := json.Unmarshal(out, &pj); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if pj.URL != it.url || pj.Binding != it.binding || pj.Version != it.version || pj.Answer != o.answer || pj.Server != o.server {
		t.Errorf("decodes to %+v", pj)
	}
}

// TestProbeEmptyCardFile: an empty card file, or one of white space only,
// holds no card, as an empty NDJSON dump holds none; probe counted it as
// one invalid card with no findings.
func TestProbeEmptyCardFile(t *testing.T) {
	dir := t.TempDir()
	for _, text := range []string{"", " \n\t\r\n"} {
		path := filepath.Join(dir, "empty.json")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := openCards(path, path, nil, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if b, line, err := r.next(); err != io.EOF {
			t.Errorf("%q: record %q at line %d, %v; want io.EOF", text, b, line, err)
		}
		r.Close()
	}
}

// TestDirectoryNamedOnce: probe DIR and fetch --urls DIR said
// "dir: line 1: read dir: is a directory" and "read dir: is a
// directory", the system call's words around the name.
func TestDirectoryNamedOnce(t *testing.T) {
	dir := t.TempDir()
	var out, errOut strings.Builder
	if err := RunProbe([]string{dir}, strings.NewReader(""), &out, &errOut); err == nil {
		t.Errorf("probe of a directory succeeded")
	}
	if want := "cardscan: error: probe: " + dir + ": is a directory\n"; !strings.HasPrefix(errOut.String(), want) {
		t.Errorf("probe: stderr %q, want it to start %q", errOut.String(), want)
	}
	errOut.Reset()
	err := Run([]string{"--urls", dir}, strings.NewReader(""), &out, &errOut)
	if want := "--urls " + dir + ": is a directory"; err == nil || err.Error() != want {
		t.Errorf("fetch --urls: %v, want %q", err, want)
	}
}
