package dump

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

// generatedCards is how many generated cards plantedDump's dump starts
// with.
const generatedCards = 300

// plantedDump returns an NDJSON dump of generatedCards generated cards
// with duplicates
// planted after them: of card 0 its keys reversed (the same canonical
// content in other bytes), of card 1 a byte-for-byte copy, of card 2 a
// copy with its name changed (same identity, other content), of card 3
// its keys reversed twice over and a changed copy (three records, two
// contents), and two copies of a card without identity, the second
// reformatted. It returns the agent_ids of cards 0 to 3.
func plantedDump(t *testing.T) ([]byte, []string) {
	t.Helper()
	g, err := corpus.New(corpus.Options{Seed: 7, Dialects: []string{"agentcard"}})
	if err != nil {
		t.Fatal(err)
	}
	var cards []map[string]any
	var b bytes.Buffer
	for len(cards) < generatedCards {
		card := g.Next().JSON
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader(card))
		d.UseNumber()
		if d.Decode(&m) != nil || m["agent_id"] == nil {
			continue // planted duplicates are made of cards encoding/json reads
		}
		cards = append(cards, m)
		b.Write(card)
		b.WriteByte('\n')
	}
	ids := make([]string, 4)
	for i := range ids {
		ids[i] = cards[i]["agent_id"].(string)
	}
	line := func(m map[string]any, reverse bool) {
		// encoding/json writes a map's keys sorted; reversed, they are
		// in another order than the generator's as well.
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		if reverse {
			for i, j := 0, len(keys)-1; i < j; i, j = i+1, j-1 {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			kb, _ := json.Marshal(k)
			vb, err := json.Marshal(m[k])
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s: %s", kb, vb)
		}
		b.WriteString("}\n")
	}
	line(cards[0], true)
	b.Write(cardLine(t, b.Bytes(), 2))
	changed := func(m map[string]any) map[string]any {
		c := map[string]any{}
		for k, v := range m {
			c[k] = v
		}
		c["name"] = "Another Name"
		return c
	}
	line(changed(cards[2]), false)
	line(cards[3], true)
	line(cards[3], false)
	line(changed(cards[3]), true)
	noID := changed(cards[4])
	delete(noID, "agent_id")
	line(noID, false)
	line(noID, true)
	return b.Bytes(), ids
}

// cardLine returns line n (1-based) of dump, with its newline.
func cardLine(t *testing.T, dump []byte, n int) []byte {
	t.Helper()
	lines := bytes.SplitAfter(dump, []byte("\n"))
	if n > len(lines) {
		t.Fatalf("no line %d", n)
	}
	return lines[n-1]
}

// crossOf takes the claims of dump, as the pipeline hands records of the
// input named name, in a Cross that holds memory bytes and reads the
// records of the input again from path when path is not "".
func crossOf(t *testing.T, dump []byte, name, path string, memory int64) *Cross {
	t.Helper()
	c, err := NewCross(memory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if path != "" {
		c.Reread(map[string]string{name: path})
	}
	v := fastvalidate.MustNew("auto")
	x := c.Extract()
	var claims []byte
	offset := 0
	for i, line := range bytes.SplitAfter(dump, []byte("\n")) {
		card := bytes.TrimSuffix(line, []byte("\n"))
		if len(card) > 0 {
			claims = x(claims, report.FromResult(name, i+1, 1, int64(offset), card, v.Validate(card)), v)
		}
		offset += len(line)
		if len(claims) > 4<<10 || offset == len(dump) {
			if err := c.Add(claims); err != nil {
				t.Fatal(err)
			}
			claims = claims[:0]
		}
	}
	return c
}

// pendingKinds counts the pending claims c holds in memory by kind.
func pendingKinds(c *Cross) map[byte]int {
	kinds := map[byte]int{}
	for rec := range eachDigest(c.pending.blocks) {
		kinds[rec[0]]++
	}
	return kinds
}

// TestCrossRereadSameFindings: the claims of a file read again for the
// content of the identities claimed twice give the findings, byte for
// byte, that the claims of the same records hashed as they were read (of
// standard input) give, in memory and spilled: a duplicate identity whose
// records differ only in the order of their members is a duplicate card
// and not a duplicate identity; one whose contents differ is both where
// two of its records are the same.
func TestCrossRereadSameFindings(t *testing.T) {
	dump, ids := plantedDump(t)
	path := filepath.Join(t.TempDir(), "d.ndjson")
	if err := os.WriteFile(path, dump, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, memory := range []int64{1 << 30, 16 << 10} {
		lazy := crossOf(t, dump, "d.ndjson", path, memory)
		if kinds := pendingKinds(lazy); memory == 1<<30 && (kinds[pendingRaw] < 300 || kinds[pendingSum] != 0) {
			t.Fatalf("pending claims of a file read again: %v, want only %q", kinds, pendingRaw)
		}
		upFront := crossOf(t, dump, "d.ndjson", "", memory)
		if kinds := pendingKinds(upFront); memory == 1<<30 && (kinds[pendingSum] < 300 || kinds[pendingRaw] != 0) {
			t.Fatalf("pending claims of standard input: %v, want only %q", kinds, pendingSum)
		}
		var got, want bytes.Buffer
		gotCounts, err := lazy.Finish(report.FormatJSONL.Writer(&got, report.WriterOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		wantCounts, err := upFront.Finish(report.FormatJSONL.Writer(&want, report.WriterOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		if memory < 1<<20 && (!lazy.st.spilled() || !upFront.st.spilled()) {
			t.Fatalf("%d bytes of memory did not spill", memory)
		}
		if got.String() != want.String() || fmt.Sprint(gotCounts) != fmt.Sprint(wantCounts) {
			t.Errorf("memory %d: read again:\n%s\n%v\nhashed as read:\n%s\n%v", memory, got.String(), gotCounts, want.String(), wantCounts)
		}
		out := got.String()
		n := generatedCards // the line before the first planted
		for _, check := range []struct {
			what string
			ok   bool
		}{
			{"card 0 and its keys reversed: one card", strings.Contains(out, fmt.Sprintf(`"records":[{"input":"d.ndjson","line":1},{"input":"d.ndjson","line":%d}]`, n+1))},
			{"card 1 and its copy: one card", strings.Contains(out, fmt.Sprintf(`"records":[{"input":"d.ndjson","line":2},{"input":"d.ndjson","line":%d}]`, n+2))},
			{"card 0: one content", !strings.Contains(out, ids[0]+" is claimed")},
			{"card 1: one content", !strings.Contains(out, ids[1]+" is claimed")},
			{"card 2: two contents", strings.Contains(out, ids[2]+" is claimed by 2 records with 2 different contents")},
			{"card 3: three records, two contents", strings.Contains(out, ids[3]+" is claimed by 4 records with 2 different contents")},
			{"card 3 reordered twice: one card", strings.Contains(out, fmt.Sprintf(`"records":[{"input":"d.ndjson","line":4},{"input":"d.ndjson","line":%d},{"input":"d.ndjson","line":%d}]`, n+4, n+5))},
			{"the card without identity, reformatted: one card", strings.Contains(out, fmt.Sprintf(`"records":[{"input":"d.ndjson","line":%d},{"input":"d.ndjson","line":%d}]`, n+7, n+8))},
		} {
			if !check.ok {
				t.Errorf("memory %d: %s: not so in\n%s", memory, check.what, out)
			}
		}
	}
}

// TestResolveHashCollisions: identities whose hashes collide, or only
// share the bit that tells them may be claimed again, are resolved as
// they are apart: the findings are the same byte for byte, the file read
// again or hashed as read.
func TestResolveHashCollisions(t *testing.T) {
	dump, _ := plantedDump(t)
	path := filepath.Join(t.TempDir(), "d.ndjson")
	if err := os.WriteFile(path, dump, 0o644); err != nil {
		t.Fatal(err)
	}
	finish := func(path string, hashOnly func(uint64) uint64) string {
		c := crossOf(t, dump, "d.ndjson", path, 1<<30)
		c.hashOnly = hashOnly
		var out bytes.Buffer
		counts, err := c.Finish(report.FormatJSONL.Writer(&out, report.WriterOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(out.String(), counts)
	}
	for _, p := range []string{path, ""} {
		want := finish(p, nil)
		if !strings.Contains(want, "dump.duplicate-id") {
			t.Fatalf("no duplicate identity found:\n%.500s", want)
		}
		for name, collide := range map[string]func(uint64) uint64{
			"three hashes": func(h uint64) uint64 { return h % 3 },
			"one hash":     func(uint64) uint64 { return 42 },
			"one bit":      func(h uint64) uint64 { return h &^ (1<<40 - 1) },
		} {
			if got := finish(p, collide); got != want {
				t.Errorf("read again %v, %s: other findings:\n%.500s\nwant\n%.500s", p != "", name, got, want)
			}
		}
	}
}

// TestCrossRereadChangedFile: a file that no longer holds, where a
// record whose content is needed lay, the bytes judged (changed,
// truncated, removed) fails Finish with a ChangedError naming the file and
// the record, before any finding is written.
func TestCrossRereadChangedFile(t *testing.T) {
	dump, _ := plantedDump(t)
	planted := generatedCards + 1
	for _, tc := range []struct {
		name   string
		change func(path string) error
		line   int
		err    error
	}{
		{"one byte", func(path string) error {
			b := bytes.Clone(dump)
			i := bytes.Index(b, cardLine(t, dump, planted+2)) // card 2's changed copy
			b[i+len(`{"`)] = 'X'
			return os.WriteFile(path, b, 0o644)
		}, planted + 2, nil},
		{"truncated", func(path string) error {
			// Within card 3's changed copy, the last record read again.
			return os.Truncate(path, int64(bytes.Index(dump, cardLine(t, dump, planted+5))+10))
		}, planted + 5, nil},
		{"removed", os.Remove, 0, fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.ndjson")
			if err := os.WriteFile(path, dump, 0o644); err != nil {
				t.Fatal(err)
			}
			c := crossOf(t, dump, "d.ndjson", path, 1<<30)
			if err := tc.change(path); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			_, err := c.Finish(report.FormatJSONL.Writer(&out, report.WriterOptions{}))
			var changed *ChangedError
			if !errors.As(err, &changed) {
				t.Fatalf("Finish: %v, want a ChangedError", err)
			}
			if changed.Path != path || tc.line != 0 && changed.Line != tc.line || !errors.Is(changed.Err, tc.err) && tc.err != nil {
				t.Errorf("Finish: %#v, want %s line %d", changed, path, tc.line)
			}
			if !strings.Contains(err.Error(), path) || tc.line != 0 && !strings.Contains(err.Error(), fmt.Sprintf("line %d ", tc.line)) {
				t.Errorf("error %q names neither %s nor line %d", err, path, tc.line)
			}
			if out.Len() != 0 {
				t.Errorf("findings written: %s", out.String())
			}
		})
	}
}

// TestCanReread: only a regular file of minRereadSize bytes or more,
// stored as read (not zstd nor gzip), and named for one file, has its
// records read again; a FIFO is never opened.
func TestCanReread(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte(`{"agent_id":"x"}`+"\n"), minRereadSize/16+1)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(big)
	zw.Close()
	files := map[string][]byte{
		"plain":   big,
		"small":   big[:minRereadSize-1],
		"gzip":    append(gz.Bytes(), big...),
		"zstd":    append([]byte{0x28, 0xb5, 0x2f, 0xfd}, big...),
		"skipped": append([]byte{0x5a, 0x2a, 0x4d, 0x18}, big...),
	}
	paths := map[string]string{"dir": dir, "missing": filepath.Join(dir, "missing")}
	for name, b := range files {
		paths[name] = filepath.Join(dir, name)
		if err := os.WriteFile(paths[name], b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	switch err := makeFIFO(fifo); {
	case err == nil:
		paths["fifo"] = fifo
	case !errors.Is(err, errors.ErrUnsupported):
		t.Fatal(err)
	}
	in := &rereadInputs{paths: paths, known: map[string]bool{}}
	for name := range paths {
		// Opening the FIFO would block the test: it must not be.
		if got, want := in.canReread(name), name == "plain"; got != want {
			t.Errorf("%s: canReread %v, want %v", name, got, want)
		}
	}
	if in.canReread("unnamed") || (*rereadInputs)(nil).canReread("plain") {
		t.Error("an input without a file can be read again")
	}
}

// TestCrossClaimsDoNotAllocate: taking a card's claims as --cross-card
// does of a file it can read again allocates nothing per card either.
func TestCrossClaimsDoNotAllocate(t *testing.T) {
	cards := firstGenerated(t, 200)
	v := fastvalidate.MustNew("auto")
	c := &Cross{inputs: &rereadInputs{paths: map[string]string{"in.ndjson": "in.ndjson"}, known: map[string]bool{"in.ndjson": true}}}
	x := c.Extract()
	var buf []byte
	claims := map[byte]int{}
	run := func() {
		for i, card := range cards {
			buf = x(buf[:0], report.FromResult("in.ndjson", i+1, 1, int64(i)*4096, card, v.Validate(card)), v)
			for rec := range eachDigest([][]byte{buf}) {
				claims[rec[0]]++
			}
		}
	}
	run()
	if claims[pendingRaw] == 0 {
		t.Fatalf("no pending claim of a card's bytes: %v", claims)
	}
	if a := testing.AllocsPerRun(10, run); a != 0 {
		t.Errorf("%v allocations for %d cards", a, len(cards))
	}
}

// TestClaimReadsEveryIdentity: claim, which passes over the members that
// claim nothing, reads every member the identity table names.
func TestClaimReadsEveryIdentity(t *testing.T) {
	c := &Cross{}
	x := c.Extract()
	v := fastvalidate.MustNew("auto")
	for _, id := range identity {
		// The value at id.path in the member: a string, in objects and
		// arrays as the path says.
		value := `"https://id.example/a"`
		for i := len(id.path) - 1; i >= 0; i-- {
			if id.path[i] == "0" {
				value = "[" + value + "]"
			} else {
				value = fmt.Sprintf(`{%q:%s}`, id.path[i], value)
			}
		}
		card := []byte(fmt.Sprintf(`{%q:%s}`, id.member, value))
		claims := x(nil, report.FromResult("in", 1, 1, 0, card, v.Validate(card)), v)
		want := id.kind + " https://id.example/a"
		if !bytes.Contains(claims, []byte(want)) {
			t.Errorf("%s: claims %q hold no identity %q", card, claims, want)
		}
	}
}
