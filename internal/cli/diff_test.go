package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/golden"
)

// diffRecord is one line of cardscan diff --format jsonl.
type diffRecord struct {
	Change  string `json:"change"`
	Key     string `json:"key"`
	KeyKind string `json:"key_kind"`
	Profile string `json:"profile"`
	Old     *struct {
		Input string `json:"input"`
		Line  int    `json:"line"`
		Valid bool   `json:"valid"`
	} `json:"old"`
	New *struct {
		Input string `json:"input"`
		Line  int    `json:"line"`
		Valid bool   `json:"valid"`
	} `json:"new"`
	Changes []struct {
		Pointer string          `json:"pointer"`
		What    string          `json:"what"`
		Old     json.RawMessage `json:"old"`
		New     json.RawMessage `json:"new"`
	} `json:"changes"`
	Errors []map[string]any `json:"errors"`
}

// wantChange is what the generator knows of one changed key.
type wantChange struct {
	change  string
	kind    string
	pointer string // the change its mutation must show
	what    string
	member  string // the one top-level member it touched
}

// cardKey is the test's own reading of a card's identity.
func cardKey(m map[string]any) (key, kind string) {
	if s, ok := m["agent_id"].(string); ok && s != "" {
		return s, "agent_id"
	}
	if s, ok := m["url"].(string); ok && s != "" {
		return s, "url"
	}
	if ifs, ok := m["supportedInterfaces"].([]any); ok && len(ifs) > 0 {
		if o, ok := ifs[0].(map[string]any); ok {
			if s, ok := o["url"].(string); ok && s != "" {
				return s, "url"
			}
		}
	}
	if inv, ok := m["invocation"].(map[string]any); ok {
		if s, ok := inv["endpoint"].(string); ok && s != "" {
			return s, "endpoint"
		}
	}
	return "", ""
}

func decodeCard(b []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil {
		return nil, false
	}
	var rest any
	if dec.Decode(&rest) == nil {
		return nil, false
	}
	return m, true
}

func marshalCard(t testing.TB, m map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func canonicalOf(b []byte) string {
	c, err := canon.Append(nil, b, canon.Options{})
	if err != nil {
		return "raw:" + string(b)
	}
	return string(c)
}

// diffPair generates an old dump and a new one made from a copy of it
// with known additions, removals, breakages, fixes, member changes and
// reformatted (unchanged) cards, and what diff must report: one entry per
// changed key, nothing else.
func diffPair(t testing.TB, n int, seed uint64) (old, new [][]byte, want map[string]wantChange) {
	t.Helper()
	v := fastvalidate.MustNew("auto")
	valid := func(b []byte) bool { return v.Validate(b).Valid() }
	gen := func(seed uint64) *corpus.Generator {
		g, err := corpus.New(corpus.Options{Seed: seed, Dialects: corpus.Dialects(), DefectRate: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	type card struct {
		raw       []byte
		m         map[string]any
		key, kind string
	}
	seen := map[string]bool{}
	take := func(g *corpus.Generator, n int) []card {
		var out []card
		for len(out) < n {
			c := g.Next()
			m, ok := decodeCard(c.JSON)
			if !ok {
				continue
			}
			key, kind := cardKey(m)
			if key == "" || seen[key] || !strings.HasPrefix(canonicalOf(c.JSON), "{") {
				continue
			}
			// Only cards that survive a round trip through the test's
			// JSON unchanged, so that a mutation changes what it says.
			if canonicalOf(marshalCard(t, m)) != canonicalOf(c.JSON) {
				continue
			}
			seen[key] = true
			out = append(out, card{slices.Clone(c.JSON), m, key, kind})
		}
		return out
	}
	base := take(gen(seed), n)
	added := take(gen(seed+1000), n/20)
	rng := rand.New(rand.NewPCG(seed, 7))
	want = map[string]wantChange{}
	classify := func(o, nw []byte) string {
		switch ov, nv := valid(o), valid(nw); {
		case canonicalOf(o) == canonicalOf(nw) && ov == nv:
			return ""
		case ov && !nv:
			return "broke"
		case !ov && nv:
			return "fixed"
		}
		return "changed"
	}
	for _, c := range base {
		o, nw := c.raw, c.raw
		var w wantChange
		m := c.m
		switch op := rng.IntN(10); {
		case op == 0:
			want[c.key] = wantChange{change: "removed", kind: c.kind}
			old = append(old, o)
			continue
		case op == 1 && m["version"] != nil:
			m["version"] = "9.9.9-planted"
			nw = marshalCard(t, m)
			w = wantChange{pointer: "/version", what: "version", member: "version"}
		case op == 2 && m["description"] != nil:
			m["description"] = "A planted description."
			nw = marshalCard(t, m)
			w = wantChange{pointer: "/description", what: "other", member: "description"}
		case op == 3:
			if skills, ok := m["skills"].([]any); ok {
				m["skills"] = append(skills, map[string]any{"id": "planted-skill", "name": "planted-skill", "description": "Planted.", "tags": []any{"x"}})
				nw = marshalCard(t, m)
				w = wantChange{pointer: fmt.Sprintf("/skills/%d", len(skills)), what: "skill-added", member: "skills"}
			} else if caps, ok := m["capabilities"].([]any); ok {
				m["capabilities"] = append(caps, map[string]any{"id": "planted.capability", "description": "Planted."})
				nw = marshalCard(t, m)
				w = wantChange{pointer: fmt.Sprintf("/capabilities/%d", len(caps)), what: "capability-added", member: "capabilities"}
			}
		case op == 4 && m["name"] != nil:
			delete(m, "name")
			nw = marshalCard(t, m)
			w = wantChange{pointer: "/name", what: "other", member: "name"}
		case op == 5 && m["name"] != nil:
			// A fix: the old dump has the card without its name.
			delete(m, "name")
			o = marshalCard(t, m)
			w = wantChange{pointer: "/name", what: "other", member: "name"}
		case op == 6:
			// Reformatted: other whitespace and member order.
			b, err := json.MarshalIndent(m, "", "   ")
			if err != nil {
				t.Fatal(err)
			}
			nw = bytes.ReplaceAll(b, []byte("\n"), []byte(" "))
		}
		old, new = append(old, o), append(new, nw)
		if w.change = classify(o, nw); w.change != "" {
			w.kind = c.kind
			want[c.key] = w
		}
	}
	for _, c := range added {
		new = append(new, c.raw)
		want[c.key] = wantChange{change: "added", kind: c.kind}
	}
	return old, new, want
}

func ndjson(cards [][]byte) []byte {
	return append(bytes.Join(cards, []byte("\n")), '\n')
}

func jsonArray(cards [][]byte) []byte {
	return append(append([]byte("[\n"), bytes.Join(cards, []byte(",\n"))...), "\n]\n"...)
}

func parseDiff(t testing.TB, out string) []diffRecord {
	t.Helper()
	var recs []diffRecord
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var r diffRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not a JSON record: %v: %s", err, line)
		}
		recs = append(recs, r)
	}
	return recs
}

// checkDiff compares diff's records with what the generator planted.
func checkDiff(t *testing.T, recs []diffRecord, want map[string]wantChange) {
	t.Helper()
	if !sort.SliceIsSorted(recs, func(i, j int) bool { return recs[i].Key < recs[j].Key }) {
		t.Error("records are not sorted by key")
	}
	got := map[string]bool{}
	for _, r := range recs {
		got[r.Key] = true
		w, ok := want[r.Key]
		if !ok {
			t.Errorf("reported but not planted: %s %s", r.Change, r.Key)
			continue
		}
		if r.Change != w.change || r.KeyKind != w.kind {
			t.Errorf("%s: got %s (%s), want %s (%s)", r.Key, r.Change, r.KeyKind, w.change, w.kind)
		}
		if (r.Old == nil) != (w.change == "added") || (r.New == nil) != (w.change == "removed") {
			t.Errorf("%s %s: old %v, new %v", r.Change, r.Key, r.Old != nil, r.New != nil)
		}
		if w.change == "broke" && len(r.Errors) == 0 {
			t.Errorf("broke %s without errors", r.Key)
		}
		if w.what == "" {
			continue
		}
		found := false
		for _, c := range r.Changes {
			if c.Pointer == w.pointer && c.What == w.what {
				found = true
			}
			if top := strings.SplitN(strings.TrimPrefix(c.Pointer, "/"), "/", 2)[0]; top != w.member {
				t.Errorf("%s: change at %s, but only /%s was changed", r.Key, c.Pointer, w.member)
			}
			if !json.Valid(c.Old) || !json.Valid(c.New) {
				t.Errorf("%s: old %s or new %s is not JSON", r.Key, c.Old, c.New)
			}
		}
		if !found {
			t.Errorf("%s: no %s change at %s among %+v", r.Key, w.what, w.pointer, r.Changes)
		}
	}
	for key, w := range want {
		if !got[key] {
			t.Errorf("planted but not reported: %s %s", w.change, key)
		}
	}
}

func TestDiffFindsEveryPlantedChange(t *testing.T) {
	old, new, want := diffPair(t, 1500, 1)
	counts := map[string]int{}
	for _, w := range want {
		counts[w.change]++
	}
	for _, c := range []string{"added", "removed", "broke", "fixed", "changed"} {
		if counts[c] == 0 {
			t.Fatalf("the generator planted no %s key: %v", c, counts)
		}
	}
	shuffled := slices.Clone(new)
	rand.New(rand.NewPCG(2, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	dir := t.TempDir()
	pairs := []struct {
		name     string
		old, new string
	}{
		{"ndjson", writeFile(t, filepath.Join(dir, "old.ndjson"), ndjson(old)), writeFile(t, filepath.Join(dir, "new.ndjson"), ndjson(new))},
		{"zst and gzip json array, shuffled", writeFile(t, filepath.Join(dir, "old.ndjson.zst"), zstdBytes(t, ndjson(old))),
			writeFile(t, filepath.Join(dir, "new.json.gz"), gzipBytes(t, jsonArray(shuffled)))},
		{"json array and shuffled ndjson", writeFile(t, filepath.Join(dir, "old.json"), jsonArray(old)),
			writeFile(t, filepath.Join(dir, "shuffled.ndjson"), ndjson(shuffled))},
	}
	var first []diffRecord
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			r := run(t, "", "diff", "--format", "jsonl", "--summary", filepath.Join(dir, "sum.json"), p.old, p.new)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1; stderr %s", r.code, r.stderr)
			}
			recs := parseDiff(t, r.stdout)
			checkDiff(t, recs, want)
			var sum struct {
				Diff struct {
					Added, Removed, Broke, Fixed, Changed int
					Partitions                            int
				}
			}
			if err := json.Unmarshal(readFile(t, filepath.Join(dir, "sum.json")), &sum); err != nil {
				t.Fatal(err)
			}
			if got := (map[string]int{"added": sum.Diff.Added, "removed": sum.Diff.Removed, "broke": sum.Diff.Broke, "fixed": sum.Diff.Fixed, "changed": sum.Diff.Changed}); !mapsEqual(got, counts) {
				t.Errorf("summary counts %v, planted %v", got, counts)
			}
			// The spill path: the same records, byte for byte.
			spilled := run(t, "", "diff", "--format", "jsonl", "--memory", "1MiB", "--summary", filepath.Join(dir, "sum1.json"), p.old, p.new)
			if spilled.stdout != r.stdout {
				t.Error("--memory 1MiB writes other records than the default")
			}
			if err := json.Unmarshal(readFile(t, filepath.Join(dir, "sum1.json")), &sum); err != nil {
				t.Fatal(err)
			}
			if sum.Diff.Partitions < 2 {
				t.Errorf("--memory 1MiB did not spill: %d partitions", sum.Diff.Partitions)
			}
			// Only the inputs' names and lines may differ between pairs.
			if first == nil {
				first = recs
			} else if len(recs) != len(first) {
				t.Errorf("%d records, the first pair gave %d", len(recs), len(first))
			} else {
				for i := range recs {
					if recs[i].Key != first[i].Key || recs[i].Change != first[i].Change || len(recs[i].Changes) != len(first[i].Changes) {
						t.Errorf("record %d: %s %s, the first pair gave %s %s", i, recs[i].Change, recs[i].Key, first[i].Change, first[i].Key)
					}
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestDiffEdges pins what diff does with repeated keys, cards without
// identity, fetch output, unreadable inputs and identical dumps.
func TestDiffEdges(t *testing.T) {
	a2a := func(url, version string) string {
		return `{"name":"Agent","description":"An agent.","url":"` + url + `","version":"` + version + `","capabilities":{"streaming":true},"defaultInputModes":["text"],"defaultOutputModes":["text"],"skills":[{"id":"s1","name":"S1","description":"d","tags":["t"]}]}`
	}
	keyless := `{"name":"no identity","version":"1"}`
	fetched := func(url, card string) string {
		return `{"url":"` + url + `","input":"` + url + `","line":1,"offset":0,"valid":true,"profile":"a2a/0.3","errors":[],"warnings":[],"card":` + card + `}`
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name     string
		old, new []string
		args     []string
		code     int
		want     []string // change key_kind key, in order
		dups     int64
	}{
		{"identical dumps, reformatted", []string{a2a("https://a.example/", "1")}, []string{strings.ReplaceAll(a2a("https://a.example/", "1"), ",", " ,\t")}, nil, 0, nil, 0},
		{"the last of a repeated key is compared", []string{a2a("https://a.example/", "1"), a2a("https://a.example/", "2")}, []string{a2a("https://a.example/", "2")}, nil, 0, nil, 1},
		{"a repeated key in the new dump", []string{a2a("https://a.example/", "1")}, []string{a2a("https://a.example/", "1"), a2a("https://a.example/", "3")}, nil, 1, []string{"changed url https://a.example/"}, 1},
		{"cards without identity are keyed by content", []string{keyless, a2a("https://b.example/", "1")}, []string{keyless, `{"name":"no identity","version":"2"}`, a2a("https://b.example/", "1")}, nil, 1, []string{"added record xxh128:"}, 0},
		{"fetch output is keyed by the URL fetched", []string{fetched("https://host.example/", a2a("https://a.example/", "1"))}, []string{fetched("https://host.example/", a2a("https://z.example/", "1"))}, nil, 1, []string{"changed source https://host.example/"}, 0},
		{"--key id keys fetch output by the card", []string{fetched("https://host.example/", a2a("https://a.example/", "1"))}, []string{fetched("https://host.example/", a2a("https://z.example/", "1"))}, []string{"--key", "id"}, 1, []string{"removed url https://a.example/", "added url https://z.example/"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			oldPath := writeFile(t, filepath.Join(dir, "old.ndjson"), []byte(strings.Join(tc.old, "\n")+"\n"))
			newPath := writeFile(t, filepath.Join(dir, "new.ndjson"), []byte(strings.Join(tc.new, "\n")+"\n"))
			args := append([]string{"diff", "--format", "jsonl", "--summary", filepath.Join(dir, "sum.json")}, tc.args...)
			r := run(t, "", append(args, oldPath, newPath)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", r.code, tc.code, r.stderr)
			}
			var got []string
			for _, rec := range parseDiff(t, r.stdout) {
				got = append(got, rec.Change+" "+rec.KeyKind+" "+rec.Key)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("got %q, want %q", got[i], tc.want[i])
				}
			}
			var sum struct {
				Diff struct {
					DuplicateKeys int64 `json:"duplicate_keys"`
				}
			}
			if err := json.Unmarshal(readFile(t, filepath.Join(dir, "sum.json")), &sum); err != nil {
				t.Fatal(err)
			}
			if sum.Diff.DuplicateKeys != tc.dups {
				t.Errorf("duplicate_keys %d, want %d", sum.Diff.DuplicateKeys, tc.dups)
			}
		})
	}

	t.Run("an unreadable dump writes no diff", func(t *testing.T) {
		good := writeFile(t, filepath.Join(dir, "good.ndjson"), []byte(a2a("https://a.example/", "1")+"\n"))
		corrupt := zstdBytes(t, []byte(strings.Repeat(a2a("https://a.example/", "1")+"\n", 50)))
		corrupt = corrupt[:len(corrupt)-8]
		bad := writeFile(t, filepath.Join(dir, "bad.ndjson.zst"), corrupt)
		for _, pair := range [][]string{{good, bad}, {good, filepath.Join(dir, "missing.ndjson")}} {
			r := run(t, "", append([]string{"diff"}, pair...)...)
			if r.code != cmderr.StatusIO || r.stdout != "" {
				t.Errorf("%v: exit %d, stdout %q; want 3 and nothing", pair, r.code, r.stdout)
			}
		}
	})

	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{{"diff", "a"}, {"diff", "-", "-"}, {"diff", "--key", "name", "a", "b"}, {"diff", "--format", "github", "a", "b"}, {"diff", "--memory", "1", "a", "b"}, {"diff", "--summary", cardsFile, cardsFile, "b"}} {
			if r := run(t, "", args...); r.code != cmderr.StatusUsage {
				t.Errorf("%q: exit %d, want 2", args, r.code)
			}
		}
	})
}

// TestDiffText pins the text format on a generated pair.
func TestDiffText(t *testing.T) {
	old, new, _ := diffPair(t, 60, 3)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "old.ndjson"), ndjson(old))
	writeFile(t, filepath.Join(dir, "new.ndjson"), ndjson(new))
	var text, jsonl result
	// In subtests, so that the golden files are read from here.
	t.Run("run", func(t *testing.T) {
		text = runIn(t, dir, "diff", "--color", "never", "old.ndjson", "new.ndjson")
		jsonl = runIn(t, dir, "diff", "--format", "jsonl", "old.ndjson", "new.ndjson")
	})
	if text.code != 1 {
		t.Fatalf("exit %d; stderr %s", text.code, text.stderr)
	}
	golden.Check(t, "diff.text.golden", text.stdout)
	golden.Check(t, "diff.jsonl.golden", jsonl.stdout)
}
