package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cardscan/cardscan/internal/migrate"
	"github.com/klauspost/compress/zstd"
)

func migrateCard(t *testing.T) []byte {
	b, err := os.ReadFile("../migrate/testdata/cards/invoice-0.3-indent2.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// --write replaces a changed card and keeps FILE.orig; a second run finds
// nothing to change and touches nothing; --check then exits 0.
func TestMigrateWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent-card.json")
	src := migrateCard(t)
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--check", path}, nil, &out, &errb); code != 1 {
		t.Fatalf("--check on a 0.3 card: exit %d, want 1: %s", code, errb.String())
	}
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--write", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("--write: exit %d: %s", code, errb.String())
	}
	orig, _ := os.ReadFile(path + ".orig")
	now, _ := os.ReadFile(path)
	if !bytes.Equal(orig, src) || bytes.Equal(now, src) || !bytes.Contains(now, []byte("supportedInterfaces")) {
		t.Fatalf("want the card migrated and the original in .orig")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("--write changed the file's mode to %v", st.Mode().Perm())
	}
	os.Remove(path + ".orig")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	out.Reset()
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--write", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("second --write: exit %d", code)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(old) {
		t.Error("--write touched a file that did not change")
	}
	if _, err := os.Stat(path + ".orig"); err == nil {
		t.Error("--write kept a .orig of a file it did not change")
	}
	if !strings.Contains(out.String(), `"status":"unchanged"`) {
		t.Errorf("want an unchanged record, got %s", out.String())
	}
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--check", path}, nil, &out, &errb); code != 0 {
		t.Errorf("--check on a 1.0 card: exit %d", code)
	}
}

// An NDJSON dump gives one migrated card per line, in order.
func TestMigrateNDJSON(t *testing.T) {
	src := migrateCard(t)
	line := compact(src)
	dump := string(line) + "\n" + `{"not":"a card"}` + "\n" + string(line) + "\n"
	var out, errb bytes.Buffer
	code := Run([]string{"migrate", "--to", "a2a/1.0", "--report", filepath.Join(t.TempDir(), "r.jsonl")}, strings.NewReader(dump), &out, &errb)
	if code != 1 {
		t.Errorf("a refused line: exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || lines[1] != `{"not":"a card"}` || !strings.Contains(lines[0], `"supportedInterfaces":[`) || lines[0] != lines[2] {
		t.Errorf("want three lines, the middle one as it was:\n%s", out.String())
	}
}

// -o may not name an input.
func TestMigrateClobber(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.json")
	src := migrateCard(t)
	os.WriteFile(path, src, 0o644)
	var out, errb bytes.Buffer
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "-o", path, path}, nil, &out, &errb); code != 2 {
		t.Errorf("-o over the input: exit %d, want 2", code)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, src) {
		t.Error("the input was changed")
	}
}

// A line longer than --max-record is reported and written out as it
// was, in its place: one that fits the read buffer and one that does not.
func TestMigrateLongLineKept(t *testing.T) {
	card := string(compact(migrateCard(t)))
	for _, long := range []string{
		`{"name":"` + strings.Repeat("b", 8000) + `"}`,
		`{"name":"` + strings.Repeat("b", 600<<10) + `"}`,
	} {
		dump := card + "\n" + long + "\r\n" + card + "\n"
		dir := t.TempDir()
		outPath := filepath.Join(dir, "out.ndjson")
		var out, errb bytes.Buffer
		code := Run([]string{"migrate", "--to", "a2a/1.0", "--max-record", "4KiB", "-o", outPath, "--report", filepath.Join(dir, "r.jsonl")}, strings.NewReader(dump), &out, &errb)
		// The limit is written as typed (4KiB), where it was "(4096 bytes)".
		if code != 3 || !strings.Contains(errb.String(), ":2: longer than --max-record 4KiB;") {
			t.Errorf("exit %d, want 3 naming line 2: %s", code, errb.String())
		}
		got, err := os.ReadFile(outPath)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(got), "\n")
		if len(lines) != 4 || lines[1] != long+"\r" || lines[3] != "" || !strings.Contains(lines[0], "supportedInterfaces") || lines[0] != lines[2] {
			t.Errorf("want the long line kept as it was between the two migrated cards; got %d lines, %d bytes", len(lines), len(got))
		}
	}
}

// A line longer than --max-record has its record in --report, in its
// place between the others, so that a reader of the records does not
// lose it: refused under migrate.unsupported, naming its line and the
// column the limit stopped at.
func TestMigrateLongLineRecorded(t *testing.T) {
	card := string(compact(migrateCard(t)))
	for _, long := range []string{
		`{"name":"` + strings.Repeat("b", 8000) + `"}`,
		`{"name":"` + strings.Repeat("b", 600<<10) + `"}`,
	} {
		dump := card + "\n" + long + "\r\n" + card + "\n"
		dir := t.TempDir()
		repPath := filepath.Join(dir, "r.jsonl")
		var out, errb bytes.Buffer
		code := Run([]string{"migrate", "--to", "a2a/1.0", "--max-record", "4KiB", "-o", filepath.Join(dir, "out.ndjson"), "--report", repPath}, strings.NewReader(dump), &out, &errb)
		if code != 3 || !strings.Contains(errb.String(), ":2: longer than --max-record 4KiB;") {
			t.Errorf("exit %d, want 3 and the stderr line naming line 2: %s", code, errb.String())
		}
		var recs []migrate.Record
		for _, l := range strings.Split(strings.TrimSuffix(string(readFile(t, repPath)), "\n"), "\n") {
			var rec migrate.Record
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("record %q: %v", l, err)
			}
			recs = append(recs, rec)
		}
		if len(recs) != 3 {
			t.Fatalf("%d records, want 3 (one per line)", len(recs))
		}
		for i, want := range []string{migrate.StatusMigrated, migrate.StatusRefused, migrate.StatusMigrated} {
			if recs[i].Line != i+1 || recs[i].Status != want {
				t.Errorf("record %d: line %d, status %s; want line %d, %s", i, recs[i].Line, recs[i].Status, i+1, want)
			}
		}
		r := recs[1]
		if len(r.Changes) != 1 || r.Changes[0].Rule != "migrate.unsupported" || !strings.Contains(r.Changes[0].Message, "line 2, column 4097") {
			t.Errorf("the long line's record does not name migrate.unsupported, line 2 and column 4097: %+v", r)
		}
		if !strings.Contains(errb.String(), "0 unchanged, 1 refused") {
			t.Errorf("the closing line does not count the long line as refused: %s", errb.String())
		}
	}
}

// A dump migrated on every core comes out in its order: each card and
// each record as migrating the lines one by one gives them.
func TestMigrateNDJSONInOrder(t *testing.T) {
	const dump = "../../corpus/sample.ndjson.zst"
	dir := t.TempDir()
	outPath, repPath := filepath.Join(dir, "out.ndjson"), filepath.Join(dir, "r.jsonl")
	var stdout, errb bytes.Buffer
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--drop-signatures", "-o", outPath, "--report", repPath, dump}, nil, &stdout, &errb); code != 1 {
		t.Fatalf("exit %d, want 1 (the sample has 0.1 cards): %s", code, errb.String())
	}
	f, err := os.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	src, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.New(migrate.Options{To: "a2a/1.0", DropSignatures: true, Validate: policyOptions("default")})
	if err != nil {
		t.Fatal(err)
	}
	var want, wantRecs bytes.Buffer
	var rec migrate.Record
	for i, line := range bytes.SplitAfter(src, []byte("\n")) {
		text := bytes.TrimRight(line, "\n")
		if len(text) == 0 {
			continue
		}
		rec.Input, rec.Line = dump, i+1
		out := m.Migrate(nil, text, &rec)
		if rec.Changed() && rec.Status != migrate.StatusFailed {
			text = compact(out)
		}
		want.Write(text)
		want.WriteByte('\n')
		b, _ := json.Marshal(&rec)
		wantRecs.Write(append(b, '\n'))
	}
	got, _ := os.ReadFile(outPath)
	gotRecs, _ := os.ReadFile(repPath)
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the cards differ from a serial migration (%d bytes, want %d)", len(got), want.Len())
	}
	if !bytes.Equal(gotRecs, wantRecs.Bytes()) {
		t.Errorf("the records differ from a serial migration (%d bytes, want %d)", len(gotRecs), wantRecs.Len())
	}
	if n := bytes.Count(got, []byte("\n")); n != 3000 {
		t.Errorf("%d lines out, want 3000", n)
	}
}

// Card files walked in a directory go out one card per line: a file that
// is no JSON text (a pretty card with a syntax error, a byte order mark,
// nothing at all) cannot be one line, so it is left out rather than
// written as several lines or a blank one, and its record says refused.
func TestMigrateCardFilesOneLineEach(t *testing.T) {
	dir := t.TempDir()
	cards := filepath.Join(dir, "cards")
	os.Mkdir(cards, 0o755)
	src := migrateCard(t)
	for name, text := range map[string][]byte{
		"a.json": src,
		"b.json": []byte("{\n  \"name\": \"x\",\n  \"skills\": [1,],\n}\n"),
		"c.json": nil,
		"d.json": append([]byte("\xef\xbb\xbf"), src...),
		"e.json": []byte("  \r\n"),
	} {
		if err := os.WriteFile(filepath.Join(cards, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	repPath := filepath.Join(dir, "r.jsonl")
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--report", repPath, cards}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1 (refused files): %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 1 || !json.Valid([]byte(lines[0])) || !strings.Contains(lines[0], `"supportedInterfaces":[`) {
		t.Errorf("want one line, the migrated a.json; got %d lines:\n%s", len(lines), out.String())
	}
	recs, _ := os.ReadFile(repPath)
	if n := bytes.Count(recs, []byte(`"status":"refused"`)); n != 4 {
		t.Errorf("%d refused records, want 4:\n%s", n, recs)
	}
	// The one card of a run, on standard input, is no stream of several:
	// refused, it goes out as it came, as a filter passes what it cannot
	// change.
	pretty := "{\n  \"name\": \"x\",\n  \"skills\": [1,],\n}\n"
	out.Reset()
	Run([]string{"migrate", "--to", "a2a/1.0", "--report", repPath}, strings.NewReader(pretty), &out, &errb)
	if out.String() != strings.TrimSpace(pretty)+"\n" {
		t.Errorf("the one refused card on stdin: got %q", out.String())
	}
}

// The records and the cards cannot share standard output: --report - is
// refused unless the cards go elsewhere.
func TestMigrateReportAndCardsOnStdout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.json")
	os.WriteFile(path, migrateCard(t), 0o644)
	var out, errb bytes.Buffer
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--report", "-", path}, nil, &out, &errb); code != 2 {
		t.Errorf("--report - with the cards on stdout: exit %d, want 2; stdout:\n%s", code, out.String())
	}
	if !strings.Contains(errb.String(), "--report -") {
		t.Errorf("want the error to name --report -, got %q", errb.String())
	}
	out.Reset()
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "--report", "-", "-o", filepath.Join(t.TempDir(), "o.json"), path}, nil, &out, &errb); code != 0 {
		t.Errorf("--report - with -o: exit %d, want 0: %s", code, errb.String())
	}
}

// A refused card says why on stderr when no record is written: the
// input, its line in a dump, and the reason; with --report the records
// say it and stderr does not repeat them.
func TestMigrateRefusalSaysWhy(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"name\": \"x\",\n  \"skills\": [1,],\n}\n"), 0o644)
	var out, errb bytes.Buffer
	if code := Run([]string{"migrate", "--to", "a2a/1.0", bad}, nil, &out, &errb); code != 1 {
		t.Errorf("a refused card: exit %d, want 1", code)
	}
	if want := bad + ": refused: migrate.unsupported: "; !strings.Contains(errb.String(), want) || !strings.Contains(errb.String(), "trailing comma") {
		t.Errorf("stderr lacks %q and the reason:\n%s", want, errb.String())
	}
	dump := string(compact(migrateCard(t))) + "\n" + `{"not":"a card"}` + "\n"
	out.Reset()
	errb.Reset()
	Run([]string{"migrate", "--to", "a2a/1.0"}, strings.NewReader(dump), &out, &errb)
	if n := strings.Count(errb.String(), ": refused: "); n != 1 || !strings.Contains(errb.String(), ":2: refused: migrate.unsupported: ") {
		t.Errorf("want one refusal naming line 2, got:\n%s", errb.String())
	}
	out.Reset()
	errb.Reset()
	Run([]string{"migrate", "--to", "a2a/1.0", "--report", filepath.Join(dir, "r.jsonl")}, strings.NewReader(dump), &out, &errb)
	if strings.Contains(errb.String(), "refused:") {
		t.Errorf("with --report, stderr repeats the records:\n%s", errb.String())
	}
}

// migrate -o - made a file named "-", which the guard took for standard
// output: 'migrate -o - ./-' emptied its input unread. The cards go to
// standard output without -o; "-" is refused.
func TestMigrateOutputDash(t *testing.T) {
	dir := t.TempDir()
	src := migrateCard(t)
	input := filepath.Join(dir, "-")
	if err := os.WriteFile(input, src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var out, errb bytes.Buffer
	if code := Run([]string{"migrate", "--to", "a2a/1.0", "-o", "-", "./-"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-o -: ") {
		t.Errorf("-o -: exit %d, stderr %q", code, errb.String())
	}
	if got, _ := os.ReadFile(input); !bytes.Equal(got, src) {
		t.Errorf("the input ./- now holds %d bytes", len(got))
	}
}

// TestMigrateWriteThroughSymlink: --write on a symbolic link replaced the
// link with a regular file holding the migrated card and left the file it
// named as it was. It writes through the link now, as an editor saves
// through one: the file named is replaced (its original kept beside it as
// FILE.orig), and the link stays a link to it. Both kinds of card file
// are tried, a whole card and an NDJSON dump, each behind a relative link
// from another directory and a link to that link.
func TestMigrateWriteThroughSymlink(t *testing.T) {
	card := migrateCard(t)
	for name, src := range map[string][]byte{"card.json": card, "cards.ndjson": append(compact(card), '\n')} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			store, links := filepath.Join(root, "store"), filepath.Join(root, "links")
			for _, d := range []string{store, links} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			target := filepath.Join(store, name)
			if err := os.WriteFile(target, src, 0o640); err != nil {
				t.Fatal(err)
			}
			link, chain := filepath.Join(links, name), filepath.Join(links, "again-"+name)
			if err := os.Symlink(filepath.Join("..", "store", name), link); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Base(link), chain); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if code := Run([]string{"migrate", "--to", "a2a/1.0", "--write", chain}, nil, &out, &errb); code != 0 {
				t.Fatalf("--write: exit %d: %s", code, errb.String())
			}
			for _, l := range []string{link, chain} {
				if st, err := os.Lstat(l); err != nil || st.Mode()&os.ModeSymlink == 0 {
					t.Errorf("%s is no longer a symbolic link (%v)", l, err)
				}
			}
			now, _ := os.ReadFile(target)
			if !bytes.Contains(now, []byte("supportedInterfaces")) {
				t.Errorf("the file the link names was not migrated")
			}
			if orig, err := os.ReadFile(target + ".orig"); err != nil || !bytes.Equal(orig, src) {
				t.Errorf("want the original beside the file it was, as %s.orig (%v)", name, err)
			}
			if st, err := os.Stat(target); err != nil || st.Mode().Perm() != 0o640 {
				t.Errorf("the file's mode changed: %v (%v)", st.Mode().Perm(), err)
			}
			if leftovers, _ := filepath.Glob(filepath.Join(links, ".*")); len(leftovers) > 0 {
				t.Errorf("temporary files left beside the links: %q", leftovers)
			}
		})
	}
}

// TestMigrateGzipPadding: migrate reads a gzip dump as the validation run
// does: NUL padding after the last member (tar pads to its blocks) is
// read through, and other trailing bytes are an error, not more cards.
func TestMigrateGzipPadding(t *testing.T) {
	line := compact(migrateCard(t))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(append(line, '\n'))
	zw.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		trail []byte
		code  int
	}{
		{"zero padding", make([]byte, 10240), 0},
		{"garbage", []byte("not gzip"), 3},
		{"garbage before a member", append([]byte("not gzip"), gz.Bytes()...), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, tc.name+".ndjson.gz"), append(bytes.Clone(gz.Bytes()), tc.trail...))
			var out, errb bytes.Buffer
			code := Run([]string{"migrate", "--to", "a2a/1.0", "-o", filepath.Join(dir, tc.name+".out.ndjson"), path}, nil, &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errb.String())
			}
			if tc.code != 0 && !strings.Contains(errb.String(), "neither a gzip member nor zero padding") {
				t.Errorf("stderr does not name the trailing bytes: %s", errb.String())
			}
			got, err := os.ReadFile(filepath.Join(dir, tc.name+".out.ndjson"))
			if err == nil && strings.Count(string(got), "\n") != 1 || tc.code == 0 && !strings.Contains(string(got), `"supportedInterfaces":[`) {
				t.Errorf("output %q (%v), want the one card migrated", got, err)
			}
		})
	}
}
