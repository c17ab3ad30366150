package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// debianPython is Debian's interpreter, which sees Debian's
// python3-distributed (a python3 earlier on PATH may not).
const debianPython = "/usr/bin/python3"

const daskRecipe = "../../contrib/dask/cardscan_dask.py"

// TestDaskRecipe runs contrib/dask's recipe on a local Dask cluster of two
// worker processes: a URL list fetched from a loopback server, split into
// shards, and a directory of dumps, sliced by cardscan's --shard (by file,
// and by record with more shards than files), each once with a worker
// killed in the middle of a task. The joined records hold every URL or
// card exactly once, the merged summary equals one process's, and of
// dumps the merge of the shards' digests gives one process's --cross-card
// findings byte for byte. A dump that cannot be read in full leaves no
// cross-card findings and exit status 3.
func TestDaskRecipe(t *testing.T) {
	if out, err := exec.Command(debianPython, "-c", "import distributed").CombinedOutput(); err != nil {
		t.Skipf("Dask distributed is not installed for %s (make debian-packages installs it): %v %s", debianPython, err, out)
	}
	bin := binary(t)
	recipe, err := filepath.Abs(daskRecipe)
	if err != nil {
		t.Fatal(err)
	}

	srv := httptest.NewServer(daskSite())
	t.Cleanup(srv.Close)
	var urls []string
	for i := range 40 {
		urls = append(urls, fmt.Sprintf("%s/s%02d-%s", srv.URL, i, []string{"ok", "bad", "a2a", "spa", "missing", "slow"}[i%6]))
	}
	list := writeFile(t, filepath.Join(t.TempDir(), "urls.txt"), []byte("# a crawl\n"+strings.Join(urls, "\n")+"\n\n"))
	fetchFlags := []string{"--allow-private", "-j", "4", "--timeout", "20s"}
	dumps, unreadable := daskDumps(t, false), daskDumps(t, true)
	fetchOne := append([]string{"fetch", "--urls", list, "--format", "cards", "--fail-on", "never"}, fetchFlags...)
	dumpsOne := func(dir string, crossCard bool) []string {
		args := []string{"--format", "jsonl", "--all", "--fail-on", "never", dir}
		if crossCard {
			args = append([]string{"--cross-card"}, args...)
		}
		return args
	}

	for _, tc := range []struct {
		name string
		args []string
		// one is one process's run of the same input, with --summary FILE.
		one  []string
		kill bool
		// byRecord: more shards than files, so each shard reads each
		// file, and worst_inputs lists each reading apart.
		byRecord bool
		// crossCard: the recipe writes cross-card.jsonl, which one with
		// --cross-card writes to stdout.
		crossCard bool
		exit      int
	}{
		{name: "urls", args: append([]string{"--urls", list, "--shard-size", "7", "--"}, fetchFlags...), one: fetchOne},
		{name: "urls-killed", args: append([]string{"--urls", list, "--shard-size", "7", "--"}, fetchFlags...), one: fetchOne, kill: true},
		{name: "dumps", args: []string{"--dumps", dumps, "--shards", "3"}, one: dumpsOne(dumps, true), crossCard: true},
		{name: "dumps-killed", args: []string{"--dumps", dumps, "--shards", "8"}, one: dumpsOne(dumps, true), kill: true, byRecord: true, crossCard: true},
		{name: "dumps-unreadable", args: []string{"--dumps", unreadable}, one: dumpsOne(unreadable, false), exit: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			marker := filepath.Join(dir, "killed")
			args := []string{recipe, "--out", out, "--cardscan", bin, "--workers", "2"}
			if tc.kill {
				args = append(args, "--test-kill-once", marker)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, debianPython, append(args, tc.args...)...)
			cmd.Dir = dir
			cmd.WaitDelay = 10 * time.Second
			if b, err := cmd.CombinedOutput(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != tc.exit {
				t.Fatalf("recipe: %v, want exit status %d\n%s", err, tc.exit, b)
			}
			if _, err := os.Stat(marker); tc.kill && err != nil {
				t.Fatalf("no worker was killed: %v", err)
			}
			if left, _ := filepath.Glob(filepath.Join(out, "shards", ".attempts", "*")); len(left) > 0 {
				t.Errorf("attempts left over: %q", left)
			}

			oneSum := filepath.Join(dir, "one.json")
			cmd = exec.CommandContext(ctx, bin, append(slices.Clone(tc.one), "--summary", oneSum)...)
			oneOut, err := cmd.Output()
			if err != nil && cmd.ProcessState.ExitCode() != 3 { // 3: the corrupt dump, or a shard of URLs all failed
				t.Fatalf("one process: %v", err)
			}
			oneRecords, oneFindings := splitFindings(string(oneOut))
			merged := readSummary(t, filepath.Join(out, "summary.json"))
			shards, _ := filepath.Glob(filepath.Join(out, "shards", "[0-9]*"))
			wantShards := len(shards)
			if tc.crossCard {
				wantShards++ // the merge's summary of the findings
			}
			if merged.Shards != int64(wantShards) || len(shards) < 2 {
				t.Errorf("merged %d summaries of %d shards", merged.Shards, len(shards))
			}
			if got, want := comparableSummary(t, readFile(t, filepath.Join(out, "summary.json")), tc.byRecord), comparableSummary(t, readFile(t, oneSum), tc.byRecord); got != want {
				t.Errorf("shards add up to\n%s\none process says\n%s", got, want)
			}

			crossCard, err := os.ReadFile(filepath.Join(out, "cross-card.jsonl"))
			switch {
			case !tc.crossCard && err == nil:
				t.Errorf("cross-card.jsonl written, though a shard could not read an input")
			case tc.crossCard && err != nil:
				t.Error(err)
			case tc.crossCard && (len(oneFindings) < 2 || string(crossCard) != strings.Join(oneFindings, "")):
				t.Errorf("the shards' digests merged into\n%s\none process finds\n%s", crossCard, strings.Join(oneFindings, ""))
			}

			joined, err := os.ReadFile(filepath.Join(out, "records.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			got, want := recordKeys(t, joined), recordKeys(t, []byte(strings.Join(oneRecords, "")))
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("joined records are not one process's, each once:\n%q\nwant\n%q", got, want)
			}
			if strings.HasPrefix(tc.name, "urls") {
				keys := recordKeys(t, joined)
				slices.Sort(keys)
				wantURLs := slices.Sorted(slices.Values(urls))
				if !slices.Equal(keys, wantURLs) {
					t.Errorf("records for %q, want each of %q once", keys, wantURLs)
				}
			}
		})
	}
}

// daskSite serves the URLs of the test's list by the name's last part:
// a card, an invalid card, an A2A card at the A2A path, an HTML app
// shell, nothing, or a card after a delay (a task still running when its
// worker is killed).
func daskSite() http.Handler {
	const card = `{"agent_id":"01J0T5Y7ZK3M8Q2R4S6V9W1X3Y","name":"Ledger","version":"2.4.1","capabilities":[{"id":"ledger.summarise","description":"Summarises ledgers."}],"endpoint":{"protocol":"http","url":"http://ledger.example.org/agent"}}`
	const invalid = `{"agent_id":"01J0T5Y7ZK3M8Q2R4S6V9W1X3Y","name":"Ledger","version":"2.4","capabilities":[{"id":"Ledger Summarise","description":"x"}],"endpoint":{"protocol":"http","url":"http://ledger.example.org/agent"}}`
	const a2a = `{"name":"Ledger","description":"Summarises ledgers.","url":"https://ledger.example.org/a2a","version":"1.0.0","protocolVersion":"0.3.0","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"summarise","name":"Summarise","description":"Summarises ledgers.","tags":["finance"]}]}`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		site, path, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		kind := site[strings.LastIndexByte(site, '-')+1:]
		w.Header().Set("Cache-Control", "max-age=3600")
		switch {
		case kind == "ok" && path == ".well-known/agentcard":
			w.Header().Set("Content-Type", "application/agentcard+json")
			fmt.Fprint(w, card)
		case kind == "bad" && path == ".well-known/agentcard":
			w.Header().Set("Content-Type", "application/agentcard+json")
			fmt.Fprint(w, invalid)
		case kind == "a2a" && path == ".well-known/agent-card.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, a2a)
		case kind == "spa":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<!doctype html><html><body><div id=root></div></body></html>")
		case kind == "slow" && path == ".well-known/agentcard":
			select {
			case <-time.After(300 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
			w.Header().Set("Content-Type", "application/agentcard+json")
			fmt.Fprint(w, card)
		default:
			http.NotFound(w, r)
		}
	})
}

// daskDumps writes a directory of dumps as a registry keeps them: plain,
// gzip and zstd NDJSON, a JSON file, one dump in a subdirectory, files a
// directory walk skips, and with cut, one whose gzip stream is cut short.
// The same card is in several dumps: --cross-card has findings across
// them.
func daskDumps(t *testing.T, cut bool) string {
	dir := t.TempDir()
	cards := readFile(t, cardsFile)
	writeFile(t, filepath.Join(dir, "2026-01-01.ndjson"), bigInput(t, 3))
	writeFile(t, filepath.Join(dir, "2026-01-02.ndjson.gz"), gzipBytes(t, bigInput(t, 5)))
	writeFile(t, filepath.Join(dir, "2026-01-03.ndjson.zst"), zstdBytes(t, cards))
	writeFile(t, filepath.Join(dir, "old", "2025-12-31.JSONL"), cards)
	writeFile(t, filepath.Join(dir, "one.json"), []byte(strings.SplitN(string(cards), "\n", 2)[0]))
	if cut {
		gz := gzipBytes(t, bigInput(t, 4))
		writeFile(t, filepath.Join(dir, "2026-01-04.ndjson.gz"), gz[:len(gz)*2/3])
	}
	writeFile(t, filepath.Join(dir, "README.txt"), []byte("not a dump\n"))
	writeFile(t, filepath.Join(dir, "notes.json.bak"), cards)
	return dir
}

// recordKeys names each JSON line of out by what it judged: the URL as
// listed for --format cards, else input, line and offset. Every line must
// be a whole JSON object.
func recordKeys(t *testing.T, out []byte) []string {
	t.Helper()
	var keys []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			URL    *string `json:"url"`
			Input  string  `json:"input"`
			Line   int     `json:"line"`
			Offset int64   `json:"offset"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%v in record %q", err, sc.Bytes())
		}
		if r.URL != nil {
			keys = append(keys, *r.URL)
		} else {
			keys = append(keys, fmt.Sprintf("%s:%d:%d", r.Input, r.Line, r.Offset))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestDaskRecipeHelp: the recipe's --help said "one task per file" of
// --dumps, which --shards slices into any number of tasks, and that the
// flags after -- go to "cardscan (fetch)", when with --dumps they go to
// cardscan itself. Only argparse runs, so no Dask is needed.
func TestDaskRecipeHelp(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("no python3 on PATH to run %s --help: %v", daskRecipe, err)
	}
	out, err := exec.Command(python, daskRecipe, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --help: %v\n%s", daskRecipe, err, out)
	}
	help := strings.Join(strings.Fields(string(out)), " ")
	for _, stale := range []string{"one task per file", "cardscan (fetch)"} {
		if strings.Contains(help, stale) {
			t.Errorf("--help says %q:\n%s", stale, out)
		}
	}
	for _, want := range []string{
		"--dumps DIR a directory of dumps, split into --shards tasks",
		"--urls FILE a URL list, one per line, split into tasks of --shard-size URLs",
		"Flags after -- go to each task's cardscan fetch with --urls, to cardscan with --dumps",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("--help does not say %q:\n%s", want, out)
		}
	}
}
