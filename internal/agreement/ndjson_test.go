package agreement

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
)

// oneLineCards are the cards of cards that are one line each and one JSON
// value, which an NDJSON input can hold.
func oneLineCards(cards []card) []card {
	var out []card
	for _, c := range cards {
		t := bytes.TrimRight(c.text, "\n")
		if len(t) > 0 && !bytes.ContainsAny(t, "\r\n") && !framedAsArray(t) && t[0] != ' ' {
			out = append(out, card{c.name, t})
		}
	}
	return out
}

// TestNDJSONChunksAgree judges the one-line cards as one NDJSON input,
// with two workers and the smallest chunks (so that records cross chunk
// boundaries and workers), on the CLI and through serve's NDJSON stream:
// each record's findings must be the library's for the card alone, placed
// at its line of the input.
func TestNDJSONChunksAgree(t *testing.T) {
	var all []card
	all = append(all, contentCards(t)...)
	all = append(all, sampleCards(t, 5)...)
	all = append(all, hostileCards()...)
	cards := oneLineCards(all)
	var input []byte
	starts := make([]int, len(cards))
	for i, c := range cards {
		starts[i] = len(input)
		input = append(append(input, c.text...), '\n')
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "cards.ndjson")
	if err := os.WriteFile(name, input, 0o644); err != nil {
		t.Fatal(err)
	}
	outs := cliRun(t, name, "-j", "2", "--chunk-size", "1KiB", "--input", "ndjson")
	records := parseRecords(t, outs["jsonl"])
	streamed := serveNDJSON(t, input)
	if len(records) != len(cards) || len(streamed) != len(cards) {
		t.Fatalf("%d cards: the CLI wrote %d records, serve %d", len(cards), len(records), len(streamed))
	}

	v, err := fastvalidate.New("auto")
	if err != nil {
		t.Fatal(err)
	}
	d := &disagreements{t: t}
	for i, c := range cards {
		ref := judge(v, c.text)
		for k := range ref.findings {
			ref.findings[k].offset += starts[i]
		}
		want := ref.expect(input, raw, lineColumn)
		d.check("jsonl -j 2 --chunk-size 1KiB", c.name, records[i], want)
		d.check("serve (NDJSON)", c.name, streamed[i], want)
	}
	d.done()
}

// parseRecords reads jsonl records in order.
func parseRecords(t *testing.T, b []byte) []verdict {
	t.Helper()
	var out []verdict
	for line := range bytes.Lines(b) {
		got, _, _ := parseJSONL(t, line)
		for _, v := range got {
			out = append(out, v)
		}
	}
	return out
}

// serveNDJSON posts input to serve as NDJSON and reads its verdict lines.
func serveNDJSON(t *testing.T, input []byte) []verdict {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/v1/validate", bytes.NewReader(input))
	req.Header.Set("Content-Type", "application/x-ndjson")
	rec := httptest.NewRecorder()
	serveHandler(t, "--profile", "auto").ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("serve: %d %s", rec.Code, rec.Body.Bytes())
	}
	return parseRecords(t, rec.Body.Bytes())
}
