package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCountingInvariant: whatever the framing, compression, chunk size and
// number of workers, every record counted is in exactly one of
// --valid-out and --invalid-out, and is reported once.
func TestCountingInvariant(t *testing.T) {
	var cards []string
	for _, rec := range splitRecords(readFile(t, cardsFile)) {
		cards = append(cards, strings.TrimRight(string(rec.raw), "\r\n"))
	}
	runs := 60
	if testing.Short() {
		runs = 10
	}
	for seed := range uint64(runs) {
		r := rand.New(rand.NewPCG(seed, 19))
		dir := t.TempDir()
		var paths []string
		var ndjsonLines []string // the records of the NDJSON inputs, as copied
		for i := range 1 + r.IntN(4) {
			var name string
			var body []byte
			if r.IntN(2) == 0 {
				name = fmt.Sprintf("%d.ndjson", i)
				body = randomNDJSON(r, cards, &ndjsonLines)
			} else {
				name = fmt.Sprintf("%d.json", i)
				body = randomDocument(r, cards)
			}
			switch r.IntN(3) {
			case 1:
				name, body = name+".gz", gzipBytes(t, body)
			case 2:
				name, body = name+".zst", zstdBytes(t, body)
			}
			paths = append(paths, writeFile(t, filepath.Join(dir, name), body))
		}
		valid, invalid, sum := filepath.Join(dir, "valid.out"), filepath.Join(dir, "invalid.out"), filepath.Join(dir, "s.out")
		args := []string{"--format", "jsonl", "--all", "-j", fmt.Sprint(1 + r.IntN(4)),
			"--chunk-size", fmt.Sprint(1024 << r.IntN(6)), "--valid-out", valid, "--invalid-out", invalid, "--summary", sum}
		res := run(t, "", append(args, paths...)...)
		if res.code != exitOK && res.code != exitInvalid {
			t.Fatalf("seed %d: exit %d, stderr %q", seed, res.code, res.stderr)
		}
		s := readSummary(t, sum)
		vs := parseVerdicts(t, res.stdout)
		out := append(outLines(readFile(t, valid)), outLines(readFile(t, invalid))...)
		if int64(len(out)) != s.Records || int64(len(vs)) != s.Records || s.Valid+s.Invalid != s.Records {

			t.Fatalf("seed %d (%v): %d lines in the out files, %d verdicts, summary %d records (%d valid, %d invalid)",
				seed, args, len(out), len(vs), s.Records, s.Valid, s.Invalid)
		}
		// The NDJSON records are among the lines copied, each once.
		slices.Sort(out)
		for _, l := range ndjsonLines {
			i, found := slices.BinarySearch(out, l)
			if !found {
				t.Fatalf("seed %d: record %.40q is in neither out file", seed, l)
			}
			out = slices.Delete(out, i, i+1)
		}
	}
}

// outLines splits an out file into its lines, line endings dropped.
func outLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// randomNDJSON returns lines of cards, broken cards, blank lines and CRLF
// endings, perhaps without a final newline, and adds each record to recs
// as it will be copied.
func randomNDJSON(r *rand.Rand, cards []string, recs *[]string) []byte {
	// A whole JSON value first, and not an array, so that --input auto
	// reads the file as NDJSON.
	first := cards[r.IntN(len(cards))]
	for !json.Valid([]byte(first)) || strings.HasPrefix(first, "[") {
		first = cards[r.IntN(len(cards))]
	}
	b := bytes.NewBufferString(first + "\n")
	*recs = append(*recs, first)
	n := r.IntN(40)
	for i := range n {
		var rec string
		switch r.IntN(6) {
		case 0:
			b.WriteString(strings.Repeat(" ", r.IntN(3)))
		case 1:
			c := cards[r.IntN(len(cards))]
			rec = c[:r.IntN(len(c))+1] // perhaps cut
		case 2:
			rec = `{"padding":"` + strings.Repeat("x", r.IntN(3000)) + `"}`
		default:
			rec = cards[r.IntN(len(cards))]
		}
		rec = strings.TrimRight(rec, " \t\r")
		b.WriteString(rec)
		if strings.TrimSpace(rec) != "" {
			*recs = append(*recs, rec)
		}
		if i == n-1 && r.IntN(3) == 0 {
			break // no final newline
		}
		if r.IntN(4) == 0 {
			b.WriteByte('\r')
			if rec != "" {
				(*recs)[len(*recs)-1] += "\r"
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// randomDocument returns a .json document on one line: a card, an array
// of cards with empty, broken or missing elements, an array cut short, or
// nothing at all.
func randomDocument(r *rand.Rand, cards []string) []byte {
	switch r.IntN(6) {
	case 0:
		return []byte(strings.Repeat(" ", r.IntN(2)))
	case 1:
		return []byte(cards[r.IntN(len(cards))])
	}
	var elems []string
	for range r.IntN(8) {
		switch r.IntN(6) {
		case 0:
			elems = append(elems, "{}")
		case 1:
			elems = append(elems, "")
		case 2:
			elems = append(elems, `{"a":`)
		default:
			elems = append(elems, cards[r.IntN(len(cards))])
		}
	}
	doc := "[" + strings.Join(elems, " , ")
	switch r.IntN(3) {
	case 0:
		doc += "]"
	case 1:
		doc += ","
	}
	return []byte(doc)
}
