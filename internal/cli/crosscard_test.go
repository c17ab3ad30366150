package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/internal/pipeline"
)

// cardEndpoints is the test's own list of the URLs a card claims.
func cardEndpoints(m map[string]any) []string {
	var out []string
	str := func(v any) {
		if s, ok := v.(string); ok && s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	str(m["url"])
	if e, ok := m["endpoint"].(map[string]any); ok {
		str(e["url"])
	}
	if e, ok := m["invocation"].(map[string]any); ok {
		str(e["endpoint"])
	}
	for _, name := range []string{"supportedInterfaces", "additionalInterfaces"} {
		list, _ := m[name].([]any)
		for _, e := range list {
			if o, ok := e.(map[string]any); ok {
				str(o["url"])
			}
		}
	}
	return out
}

// crossDump generates two inputs of cards with no identity, endpoint or
// content in common, then plants collisions of each kind, and returns the
// findings --cross-card must report, each as "rule: input:line, ...".
func crossDump(t *testing.T, n int) (a, b [][]byte, want []string) {
	g, err := corpus.New(corpus.Options{Seed: 5, Dialects: corpus.Dialects(), DefectRate: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	type card struct {
		raw []byte
		m   map[string]any
	}
	var cards []card
	for len(cards) < n {
		c := g.Next()
		m, ok := decodeCard(c.JSON)
		if !ok || canonicalOf(marshalCard(t, m)) != canonicalOf(c.JSON) {
			continue
		}
		key, _ := cardKey(m)
		claims := append(cardEndpoints(m), "content "+canonicalOf(c.JSON))
		if key != "" {
			claims = append(claims, "id "+key)
		}
		if slices.ContainsFunc(claims, func(s string) bool { return seen[s] }) {
			continue
		}
		for _, s := range claims {
			seen[s] = true
		}
		cards = append(cards, card{slices.Clone(c.JSON), m})
	}
	// Cards go to a (lines 1...) and b alternately.
	place := func(raw []byte) string {
		if len(a) <= len(b) {
			a = append(a, raw)
			return fmt.Sprintf("a.ndjson:%d", len(a))
		}
		b = append(b, raw)
		return fmt.Sprintf("b.json.gz:%d", len(b)+1) // the array's '[' takes line 1
	}
	places := make([]string, len(cards))
	for i, c := range cards {
		places[i] = place(c.raw)
	}
	var agentcards []int
	for i, c := range cards {
		if e, ok := c.m["endpoint"].(map[string]any); ok && c.m["agent_id"] != nil && e["url"] != nil {
			agentcards = append(agentcards, i)
		}
	}
	for i := 0; i < 12; i++ {
		c := cards[i*7]
		switch i % 3 {
		case 0: // the same card again, reformatted
			b2, _ := json.MarshalIndent(c.m, "", " ")
			p := place([]byte(strings.ReplaceAll(string(b2), "\n", "")))
			want = append(want, "dump.duplicate-card: "+inReadOrder(places[i*7], p))
		case 1: // its identity on other content
			if key, _ := cardKey(c.m); key == "" {
				continue
			}
			m := map[string]any{}
			for k, v := range c.m {
				m[k] = v
			}
			m["description"] = "Another card with the same identity."
			p := place(marshalCard(t, m))
			want = append(want, "dump.duplicate-id: "+inReadOrder(places[i*7], p))
		case 2: // another AgentCard claims an AgentCard's endpoint
			x, y := agentcards[i], agentcards[len(agentcards)-1-i]
			m := cards[y].m
			m["endpoint"].(map[string]any)["url"] = cards[x].m["endpoint"].(map[string]any)["url"]
			raw := marshalCard(t, m)
			// y moves: its old record is replaced where it was.
			if strings.HasPrefix(places[y], "a.") {
				var line int
				fmt.Sscanf(places[y], "a.ndjson:%d", &line)
				a[line-1] = raw
			} else {
				var line int
				fmt.Sscanf(places[y], "b.json.gz:%d", &line)
				b[line-2] = raw
			}
			want = append(want, "dump.shared-endpoint: "+inReadOrder(places[x], places[y]))
		}
	}
	slices.Sort(want)
	return a, b, want
}

// inReadOrder lists two places in the order the run reads them.
func inReadOrder(x, y string) string {
	if placeLess(y, x) {
		x, y = y, x
	}
	return x + ", " + y
}

// placeLess orders places as the run reads them: a before b, then by line.
func placeLess(x, y string) bool {
	if x[0] != y[0] {
		return x[0] < y[0]
	}
	var lx, ly int
	fmt.Sscanf(x[strings.IndexByte(x, ':')+1:], "%d", &lx)
	fmt.Sscanf(y[strings.IndexByte(y, ':')+1:], "%d", &ly)
	return lx < ly
}

func TestCrossCardFindsPlantedCollisions(t *testing.T) {
	a, b, want := crossDump(t, 400)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.ndjson"), ndjson(a))
	writeFile(t, filepath.Join(dir, "b.json.gz"), gzipBytes(t, jsonArray(b)))
	kinds := map[string]bool{}
	for _, w := range want {
		kinds[w[:strings.IndexByte(w, ':')]] = true
	}
	if len(kinds) != 3 {
		t.Fatalf("planted %v, want all three rules", kinds)
	}
	var first string
	for _, memory := range []string{"1GiB", "1KiB"} {
		t.Run("memory "+memory, func(t *testing.T) {
			r := runIn(t, dir, "--cross-card", "--memory", memory, "--format", "jsonl", "--summary", "sum.json", "a.ndjson", "b.json.gz")
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				var f struct {
					Rule     string `json:"rule"`
					Severity string `json:"severity"`
					Records  []struct {
						Input string `json:"input"`
						Line  int    `json:"line"`
					} `json:"records"`
				}
				if err := json.Unmarshal([]byte(line), &f); err != nil {
					t.Fatalf("%v: %s", err, line)
				}
				if !strings.HasPrefix(f.Rule, "dump.") {
					continue // a card's own verdict
				}
				var places []string
				for _, p := range f.Records {
					places = append(places, fmt.Sprintf("%s:%d", p.Input, p.Line))
				}
				got = append(got, f.Rule+": "+strings.Join(places, ", "))
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			sum := readSummary(t, filepath.Join(dir, "sum.json"))
			for rule := range kinds {
				n := 0
				for _, w := range want {
					if strings.HasPrefix(w, rule+":") {
						n++
					}
				}
				if sum.Rules[rule] != int64(n) {
					t.Errorf("summary counts %d %s, want %d", sum.Rules[rule], rule, n)
				}
			}
			if first == "" {
				first = r.stdout
			} else if r.stdout != first {
				t.Error("--memory 1KiB, which spills, writes other output than 1GiB")
			}
		})
	}
}

// levelDump writes, beside a policy file (when policy is not ""), a dump
// of valid cards with one dump.duplicate-card (lines 1 and 3) and one
// dump.duplicate-id (lines 2 and 4) and nothing else across cards.
func levelDump(t *testing.T, policy string) (dir, idB string) {
	t.Helper()
	a := strings.SplitN(string(readFile(t, cardsFile)), "\n", 2)[0]
	idB = "01BX5ZZKBKACTAV9WEVGEMMVRZ"
	b := strings.NewReplacer("01ARZ3NDEKTSV4RRFFQ69G5FAV", idB, "weather.example.com", "b.example.com").Replace(a)
	c := strings.Replace(b, `"1.2.0"`, `"2.0.0"`, 1)
	if a == b || b == c {
		t.Fatal("the first card of " + cardsFile + " no longer has the members the test rewrites")
	}
	dir = repoWithPolicy(t, ".cardscan.yaml", policy)
	writeFile(t, filepath.Join(dir, "d.ndjson"), []byte(a+"\n"+b+"\n"+a+"\n"+c+"\n"))
	return dir, idB
}

// dumpFinding is a dump finding as jsonl writes it.
type dumpFinding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Key      string `json:"key"`
	KeyKind  string `json:"key_kind"`
	Records  []struct {
		Input string `json:"input"`
		Line  int    `json:"line"`
	} `json:"records"`
}

// dumpFindings returns the dump findings of jsonl output.
func dumpFindings(t *testing.T, out string) []dumpFinding {
	t.Helper()
	var fs []dumpFinding
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var f dumpFinding
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if strings.HasPrefix(f.Rule, "dump.") {
			fs = append(fs, f)
		}
	}
	return fs
}

// TestCrossCardLevels: --rule, a policy file's rules and --min-level
// apply to dump findings as to a card's: off drops them uncounted, error
// fails the run per --fail-on without making any record invalid, and
// --min-level error hides them from the output while they are warnings.
func TestCrossCardLevels(t *testing.T) {
	for _, c := range []struct {
		name, policy string
		args         []string
		code         int
		shown        []string // "rule severity", in output order
		// the summary's counts of dump.duplicate-card and dump.duplicate-id,
		// its errors and warnings
		card, id, errors, warnings int64
	}{
		{"defaults", "", nil, exitOK,
			[]string{"dump.duplicate-card warning", "dump.duplicate-id warning"}, 1, 1, 0, 2},
		{"off by flag", "", []string{"--rule", "dump.duplicate-card=off"}, exitOK,
			[]string{"dump.duplicate-id warning"}, 0, 1, 0, 1},
		{"off by file", "rules:\n  dump.duplicate-id: off\n", nil, exitOK,
			[]string{"dump.duplicate-card warning"}, 1, 0, 0, 1},
		{"error by flag fails the run", "", []string{"--rule", "dump.duplicate-card=error"}, exitInvalid,
			[]string{"dump.duplicate-card error", "dump.duplicate-id warning"}, 1, 1, 1, 1},
		{"error by file fails the run", "rules:\n  dump.duplicate-id: error\n", nil, exitInvalid,
			[]string{"dump.duplicate-card warning", "dump.duplicate-id error"}, 1, 1, 1, 1},
		{"error under --fail-on never", "", []string{"--rule", "dump.duplicate-card=error", "--fail-on", "never"}, exitOK,
			[]string{"dump.duplicate-card error", "dump.duplicate-id warning"}, 1, 1, 1, 1},
		{"warnings fail under --fail-on warning", "", []string{"--fail-on", "warning"}, exitInvalid,
			[]string{"dump.duplicate-card warning", "dump.duplicate-id warning"}, 1, 1, 0, 2},
		{"--min-level error hides warnings", "", []string{"--min-level", "error"}, exitOK,
			nil, 1, 1, 0, 2},
		{"--min-level error shows errors", "", []string{"--min-level", "error", "--rule", "dump.duplicate-id=error"}, exitInvalid,
			[]string{"dump.duplicate-id error"}, 1, 1, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := levelDump(t, c.policy)
			args := append([]string{"--cross-card", "--format", "jsonl", "--summary", "sum.json", "d.ndjson",
				"--valid-out", "valid.ndjson"}, c.args...)
			r := runIn(t, dir, args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d; stderr %s", r.code, c.code, r.stderr)
			}
			var shown []string
			for _, f := range dumpFindings(t, r.stdout) {
				shown = append(shown, f.Rule+" "+f.Severity)
			}
			if !slices.Equal(shown, c.shown) {
				t.Errorf("shown %q, want %q", shown, c.shown)
			}
			s := readSummary(t, filepath.Join(dir, "sum.json"))
			if got, want := []int64{s.Rules["dump.duplicate-card"], s.Rules["dump.duplicate-id"], s.Errors, s.Warnings},
				[]int64{c.card, c.id, c.errors, c.warnings}; !slices.Equal(got, want) {
				t.Errorf("summary duplicate-card, duplicate-id, errors, warnings %v, want %v", got, want)
			}
			// Dump findings are about the dump: every card stays valid.
			if s.Valid != 4 || s.Invalid != 0 {
				t.Errorf("summary valid %d, invalid %d, want 4, 0", s.Valid, s.Invalid)
			}
			if n := lines(readFile(t, filepath.Join(dir, "valid.ndjson"))); n != 4 {
				t.Errorf("--valid-out has %d records, want 4", n)
			}
		})
	}
}

// TestCrossCardKeyKind: a dump finding's key is the bare key, its kind in
// key_kind, as diff writes them.
func TestCrossCardKeyKind(t *testing.T) {
	dir, idB := levelDump(t, "")
	writeFile(t, filepath.Join(dir, "e.ndjson"), []byte(
		`{"protocolVersion":"0.3.0","name":"A","description":"a","url":"https://a2a.example/rpc","version":"1.0.0","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"s","name":"s","description":"s","tags":["t"]}]}`+"\n"+
			`{"protocolVersion":"0.3.0","name":"B","description":"b","url":"https://a2a.example/rpc","version":"1.0.0","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"s","name":"s","description":"s","tags":["t"]}]}`+"\n"))
	a := strings.SplitN(string(readFile(t, cardsFile)), "\n", 2)[0]
	other := strings.Replace(a, "01ARZ3NDEKTSV4RRFFQ69G5FAV", "01CX5ZZKBKACTAV9WEVGEMMVRZ", 1)
	writeFile(t, filepath.Join(dir, "f.ndjson"), []byte(other+"\n"))
	r := runIn(t, dir, "--cross-card", "--format", "jsonl", "d.ndjson", "e.ndjson", "f.ndjson")
	var got []string
	for _, f := range dumpFindings(t, r.stdout) {
		got = append(got, f.Rule+" "+f.KeyKind+" "+f.Key)
	}
	var card string
	for _, g := range got {
		if strings.HasPrefix(g, "dump.duplicate-card record content:") {
			card = g
		}
	}
	want := []string{card,
		"dump.duplicate-id agent_id " + idB,
		"dump.duplicate-id url https://a2a.example/rpc",
		"dump.shared-endpoint endpoint https://weather.example.com/agent",
	}
	if card == "" || !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCrossCardSARIF: --format sarif writes each dump finding as a result
// at its first record, with the others as related locations, its rule in
// the tool's rules, and a fingerprint that follows the finding, not the
// records' lines.
func TestCrossCardSARIF(t *testing.T) {
	schema := sarifSchema(t)
	dir, _ := levelDump(t, "")
	sarif := func() []sarifResult {
		r := runIn(t, dir, "--cross-card", "--format", "sarif", "--rule", "dump.duplicate-id=error", "d.ndjson")
		if r.code != exitInvalid {
			t.Errorf("exit %d, want %d (a dump error); stderr %s", r.code, exitInvalid, r.stderr)
		}
		log := checkSARIF(t, schema, r.stdout)
		var rules []string
		for _, rule := range log.Runs[0].Tool.Driver.Rules {
			rules = append(rules, rule.ID)
		}
		if want := []string{"dump.duplicate-id", "dump.duplicate-card"}; !slices.Equal(rules, want) {
			t.Errorf("rules %q, want %q", rules, want)
		}
		return log.Runs[0].Results
	}
	describe := func(res []sarifResult) []string {
		var out []string
		for _, r := range res {
			s := fmt.Sprintf("%s %s %s:%d", r.RuleID, r.Level, r.Locations[0].Physical.Artifact.URI, r.Locations[0].Physical.Region.StartLine)
			for _, l := range r.Related {
				s += fmt.Sprintf(" [%d] %s:%d", l.ID, l.Physical.Artifact.URI, l.Physical.Region.StartLine)
			}
			out = append(out, s)
		}
		return out
	}
	before := sarif()
	if got, want := describe(before), []string{
		"dump.duplicate-card warning d.ndjson:1 [1] d.ndjson:3",
		"dump.duplicate-id error d.ndjson:2 [1] d.ndjson:4",
	}; !slices.Equal(got, want) {
		t.Fatalf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	fp := func(r sarifResult) string { return r.Fingerprints["cardscanFinding/v1"] }
	if fp(before[0]) == "" || fp(before[0]) == fp(before[1]) {
		t.Errorf("fingerprints %q and %q: want two, distinct", fp(before[0]), fp(before[1]))
	}
	path := filepath.Join(dir, "d.ndjson")
	writeFile(t, path, append([]byte("\n\n"), readFile(t, path)...))
	after := sarif()
	if got, want := describe(after), []string{
		"dump.duplicate-card warning d.ndjson:3 [1] d.ndjson:5",
		"dump.duplicate-id error d.ndjson:4 [1] d.ndjson:6",
	}; !slices.Equal(got, want) {
		t.Fatalf("results after 2 lines were added:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range after {
		if fp(after[i]) != fp(before[i]) {
			t.Errorf("%s: fingerprint %s became %s when its records moved", after[i].RuleID, fp(before[i]), fp(after[i]))
		}
	}
}

// TestFetchOutputEndToEnd: what cardscan fetch --format cards writes is
// read by --cross-card, which judges the cards inside, and by diff, which
// keys them by the URL fetched.
func TestFetchOutputEndToEnd(t *testing.T) {
	card := func(name, version string) string {
		return `{"name":"` + name + `","description":"An agent.","url":"https://` + name + `.example/rpc","version":"` + version + `","capabilities":{"streaming":true},"defaultInputModes":["text"],"defaultOutputModes":["text"],"skills":[{"id":"s1","name":"S1","description":"d","tags":["t"]}]}`
	}
	var mu sync.Mutex
	// a and b serve one card; c another of the same identity.
	pages := map[string]string{"/a.json": card("a", "1.0.0"), "/b.json": card("a", "1.0.0"), "/c.json": card("a", "2.0.0")}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, ok := pages[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	dir := t.TempDir()
	// fetch writes name and returns the line of each path's record in it.
	fetch := func(name string) map[string]int {
		t.Helper()
		r := runIn(t, dir, "fetch", "--allow-private", "--format", "cards", "--timeout", "5s",
			srv.URL+"/a.json", srv.URL+"/b.json", srv.URL+"/c.json")
		writeFile(t, filepath.Join(dir, name), []byte(r.stdout))
		lineOf := map[string]int{}
		for i, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			var rec struct {
				URL  string          `json:"url"`
				Card json.RawMessage `json:"card"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Card == nil {
				t.Fatalf("fetch record %d is not a fetched card (%v): %s", i+1, err, line)
			}
			lineOf[strings.TrimPrefix(rec.URL, srv.URL)] = i + 1
		}
		if len(lineOf) != 3 {
			t.Fatalf("fetch wrote records for %v, want the 3 URLs; stderr %s", lineOf, r.stderr)
		}
		return lineOf
	}
	cross := func(name string) []string {
		t.Helper()
		r := runIn(t, dir, "--cross-card", "--format", "jsonl", name)
		var got []string
		for _, f := range dumpFindings(t, r.stdout) {
			var places []string
			for _, p := range f.Records {
				places = append(places, fmt.Sprintf("%s:%d", p.Input, p.Line))
			}
			got = append(got, f.Rule+" "+f.KeyKind+" "+strings.Join(places, ", "))
		}
		return got
	}

	old := fetch("old.ndjson")
	at := func(paths ...string) string {
		var lines []int
		for _, p := range paths {
			lines = append(lines, old[p])
		}
		slices.Sort(lines)
		var places []string
		for _, l := range lines {
			places = append(places, fmt.Sprintf("old.ndjson:%d", l))
		}
		return strings.Join(places, ", ")
	}
	want := []string{
		"dump.duplicate-card record " + at("/a.json", "/b.json"),
		"dump.duplicate-id url " + at("/a.json", "/b.json", "/c.json"),
	}
	if got := cross("old.ndjson"); !slices.Equal(got, want) {
		t.Errorf("--cross-card on fetch output:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	mu.Lock()
	pages["/b.json"] = card("b", "1.0.0")
	pages["/c.json"] = card("c", "2.0.0")
	mu.Unlock()
	fetch("new.ndjson")
	if got := cross("new.ndjson"); len(got) != 0 {
		t.Errorf("--cross-card on fetch output of distinct cards: %q, want none", got)
	}

	r := runIn(t, dir, "diff", "--format", "jsonl", "old.ndjson", "new.ndjson")
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var c diffRecord
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		got = append(got, c.Change+" "+c.KeyKind+" "+strings.TrimPrefix(c.Key, srv.URL))
	}
	slices.Sort(got)
	if want := []string{"changed source /b.json", "changed source /c.json"}; !slices.Equal(got, want) {
		t.Errorf("diff of fetch outputs: %q, want %q; stderr %s", got, want, r.stderr)
	}
}

// TestCrossCardRereadsFiles: the findings of --cross-card on files, whose
// records it reads again for the content of the identities claimed twice,
// are byte for byte those of the same records from standard input, hashed
// as they are read, one input or the other, in memory and spilled.
func TestCrossCardRereadsFiles(t *testing.T) {
	a, b, want := crossDump(t, 400)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.ndjson"), ndjson(a))
	writeFile(t, filepath.Join(dir, "b.json"), jsonArray(b))
	for _, name := range []string{"a.ndjson", "b.json"} {
		// Smaller files are hashed as they are read (dump.minRereadSize).
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() < 64<<10 {
			t.Fatalf("%s: %v, want 64 KiB or more", name, err)
		}
	}
	for _, memory := range []string{"1GiB", "1KiB"} {
		args := []string{"--cross-card", "--memory", memory, "--format", "jsonl"}
		files := runIn(t, dir, append(args, "a.ndjson", "b.json")...)
		if n := len(dumpFindings(t, files.stdout)); n != len(want) {
			t.Fatalf("memory %s: %d findings, want %d", memory, n, len(want))
		}
		for _, stdin := range []struct {
			name string
			text []byte
			args []string
		}{
			{"a.ndjson", ndjson(a), []string{"--stdin-filename", "a.ndjson", "-", "b.json"}},
			{"b.json", jsonArray(b), []string{"a.ndjson", "--stdin-filename", "b.json", "-"}},
		} {
			r := run(t, string(stdin.text), append(args, stdin.args...)...)
			if r.stdout != files.stdout || r.code != files.code {
				t.Errorf("memory %s, %s from stdin: exit %d, output differs from the files' (exit %d):\n%.2000s\nwant\n%.2000s",
					memory, stdin.name, r.code, files.code, r.stdout, files.stdout)
			}
		}
	}
}

// TestInputFiles: only an input name that stands for one file is read
// again by --cross-card: not standard input, nor a name that stdin and a
// file share (--stdin-filename), nor one of two files.
func TestInputFiles(t *testing.T) {
	got := inputFiles([]pipeline.Input{
		{Name: "a", Path: "a"}, {Name: "<stdin>"}, {Name: "a", Path: "a"},
		{Name: "b", Path: "b"}, {Name: "b"},
		{Name: "c"}, {Name: "c", Path: "c"},
		{Name: "d", Path: "d"}, {Name: "d", Path: "./d"},
	})
	if want := map[string]string{"a": "a"}; !maps.Equal(got, want) {
		t.Errorf("inputFiles: %v, want %v", got, want)
	}
}

// TestCrossCardFileChangedBetweenReads: a file changed after the run read
// it, where a record whose content --cross-card needs lay, fails the run
// with exit status 3 and an error naming the file and the record, and no
// findings across cards; the cards' verdicts stand. The run reads a.ndjson,
// then waits on the FIFO b.ndjson, while which a.ndjson is changed.
func TestCrossCardFileChangedBetweenReads(t *testing.T) {
	a, b, _ := crossDump(t, 400)
	dir := t.TempDir()
	// A card with an identity again, its description changed: the
	// identity on two records whose bytes differ, both read again.
	var m map[string]any
	for _, card := range a {
		if c, ok := decodeCard(card); ok {
			if id, _ := cardKey(c); id != "" {
				m = c
				break
			}
		}
	}
	if m == nil {
		t.Fatal("no card of a.ndjson has an identity")
	}
	m["description"] = "Another card with the same identity, changed."
	a = append(a, marshalCard(t, m))
	path := writeFile(t, filepath.Join(dir, "a.ndjson"), ndjson(a))
	fifo := filepath.Join(dir, "b.ndjson")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	changed := make(chan error, 1)
	go func() {
		// Opening the FIFO waits for the run to open it, once it has
		// read a.ndjson whole.
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			changed <- err
			return
		}
		defer w.Close()
		// One byte of the last record, line len(a), in place: the file
		// stays as large, which a worker may yet be checking.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			text := ndjson(a)
			_, err = f.WriteAt([]byte("X"), int64(len(text)-len(a[len(a)-1])-1+len(`{"`)))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err == nil {
			_, err = w.Write(ndjson(b))
		}
		changed <- err
	}()
	r := runIn(t, dir, "--cross-card", "--all", "--format", "jsonl", "a.ndjson", "b.ndjson")
	if err := <-changed; err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("--cross-card: %s: changed while it was read: line %d (byte offset ", "a.ndjson", len(a))
	if r.code != exitIO || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "no findings across cards are reported") {
		t.Errorf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, exitIO, want)
	}
	if fs := dumpFindings(t, r.stdout); len(fs) != 0 {
		t.Errorf("findings across cards: %v", fs)
	}
	if n := strings.Count(r.stdout, "\n"); n != len(a)+len(b) {
		t.Errorf("%d verdicts, want %d", n, len(a)+len(b))
	}
}
