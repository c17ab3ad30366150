package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/zstd"
)

// jsonRun runs input under JSON framing and returns the verdicts, the
// copies of the records (valid then invalid) and the stats.
func jsonRun(t testing.TB, input []byte, chunk, jobs int, wrap func(io.Reader) io.Reader) (string, string, Stats) {
	var out, valid, invalid bytes.Buffer
	st, err := Run(Config{
		Profile: "agentcard", Jobs: jobs, ChunkSize: chunk, MaxRecord: 1 << 20,
		All: true, Findings: jsonlTo(&out, true), ValidOut: &valid, InvalidOut: &invalid,
		Stdin: wrap(bytes.NewReader(input)),
	}, []Input{{Name: "in", Framing: FramingJSON}})
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), valid.String() + "\x00" + invalid.String(), st
}

// piece is one document of a generated input: good, a cut prefix of an
// object (which must come out as one broken record), or an object whose
// strings and brackets are whole but whose commas or colons are wrong
// (which must come out as one invalid record, the next read as usual).
type piece struct {
	text            string
	broken, invalid bool
	// elements holds, for an array of cards with a broken element, where
	// each element starts in text and whether it is the broken one.
	elements []arrayElement
}

type arrayElement struct {
	start  int64
	broken bool
}

// elementDefects break an element of an array of cards (written by
// encoding/json, so each holds "1.0.0" and a ']' of its own) in ways
// after which the next element can be found: the next starts a line no
// deeper than the broken one's, or the defect leaves the strings and
// the brackets of the other elements as they were. The first two need
// that line.
var elementDefects = []func(string) string{
	func(e string) string { return strings.Replace(e, `"1.0.0"`, `"1.0.0`, 1) },          // unterminated string
	func(e string) string { i := strings.LastIndexByte(e, '}'); return e[:i] + e[i+1:] }, // missing closing brace
	func(e string) string { return strings.Replace(e, "]", "", 1) },                      // missing inner bracket
	func(e string) string { return strings.Replace(e, `"1.0.0"`, `"1.0.0"]`, 1) },        // stray bracket
	func(e string) string { return e + ` xyz "s" [1]` },                                  // garbage after it
}

// brokenArray writes an array of cards (objects and arrays) one per line,
// indented as jq -s . writes it, or on one line, with one element broken,
// as a piece.
func brokenArray(obj map[string]any, n int) piece {
	elems := []any{obj, map[string]any{"n": n}, []any{}, obj, []any{obj}}[:2+n%4]
	bad, layout := n/3%len(elems), n%3
	defects := elementDefects
	if layout == 2 {
		defects = defects[2:] // on one line no line shows the next element
	}
	defect := defects[n/7%len(defects)]
	if m, isObj := elems[bad].(map[string]any); !isObj || m["version"] == nil {
		bad = 0 // a card, which each defect changes
	}
	text, sep := "[\n", ",\n"
	if layout == 2 {
		text, sep = "[", ","
	}
	var p piece
	for i, e := range elems {
		if i > 0 {
			text += sep
		}
		var b []byte
		if layout == 1 {
			b, _ = json.MarshalIndent(e, "  ", "  ")
			text += "  "
		} else {
			b, _ = json.Marshal(e)
		}
		el := string(b)
		if i == bad {
			el = defect(el)
		}
		p.elements = append(p.elements, arrayElement{int64(len(text)), i == bad})
		text += el
	}
	if layout == 2 {
		p.text = text + "]"
	} else {
		p.text = text + "\n]"
	}
	return p
}

// buildInput turns fuzz bytes into a sequence of documents separated by
// newlines, each starting in column 1, and returns it with the offsets at
// which records must start, found independently: encoding/json reads each
// good document, and each element of a top-level array is a record; bad
// says which records must be invalid. An array of cards may have one
// element broken (see brokenArray): it is still one record, the others
// too, each at the offset where it was written.
func buildInput(data []byte) (input []byte, starts []int64, bad []bool) {
	var pieces []piece
	for len(data) >= 2 {
		op, n := data[0], int(data[1])
		data = data[2:]
		obj := map[string]any{"name": strings.Repeat("n\"\\é", n%5), "version": "1.0.0", "list": []any{n, "x", nil, true}}
		var v any = obj
		if op&1 == 1 {
			v = []any{obj, map[string]any{"n": n}, []any{}, "s"}[:n%5]
		}
		var b []byte
		if op&2 == 2 {
			b, _ = json.MarshalIndent(v, "", "  ")
		} else {
			b, _ = json.Marshal(v)
		}
		switch {
		case op&12 == 4 && op&1 == 1 && n%2 == 1:
			pieces = append(pieces, brokenArray(obj, n/2))
		case op&12 == 4 && op&1 == 0:
			// A cut object: any prefix that is not empty and not whole.
			cut := 1 + n%(len(b)-1)
			if t := strings.TrimSpace(string(b[:cut])); t != "" {
				pieces = append(pieces, piece{text: string(b[:cut]), broken: true})
			}
		case op&12 == 8:
			pieces = append(pieces, piece{text: fmt.Sprint(n)})
		case op&12 == 12 && op&1 == 0:
			// Written by encoding/json, so that the member is where the
			// text says: its colon dropped, a comma or a value added.
			garbled := [][2]string{{`"version":`, `"version"`}, {`"list":[`, `"list":[,`}, {`"1.0.0"`, `"1.0.0" 7`}}[n%3]
			text := strings.Replace(strings.Replace(string(b), `": `, `":`, -1), garbled[0], garbled[1], 1)
			pieces = append(pieces, piece{text: text, invalid: true})
		default:
			pieces = append(pieces, piece{text: string(b)})
		}
	}
	// Reading resumes at a line starting with '{' or '[': a number right
	// after a cut object is part of the broken record, so none is made.
	var kept []piece
	for i := len(pieces) - 1; i >= 0; i-- {
		p := pieces[i]
		if p.broken && len(kept) > 0 && !strings.ContainsAny(kept[len(kept)-1].text[:1], "{[") {
			continue
		}
		kept = append(kept, p)
	}
	slices.Reverse(kept)
	for _, p := range kept {
		at := int64(len(input))
		if p.broken || p.invalid {
			starts, bad = append(starts, at), append(bad, true)
		} else if p.elements != nil {
			for _, e := range p.elements {
				starts, bad = append(starts, at+e.start), append(bad, e.broken)
			}
		} else if p.text[0] == '[' {
			dec := json.NewDecoder(strings.NewReader(p.text))
			dec.Token()
			for dec.More() {
				var raw json.RawMessage
				before := dec.InputOffset()
				if dec.Decode(&raw) != nil {
					panic("generated array does not decode")
				}
				// InputOffset is after the separator: find the element.
				off := before + int64(strings.Index(p.text[before:], string(raw[:1])))
				starts, bad = append(starts, at+off), append(bad, false)
			}
		} else {
			starts, bad = append(starts, at), append(bad, false)
		}
		input = append(append(input, p.text...), '\n')
	}
	return input, starts, bad
}

type offsetVerdict struct {
	Offset int64 `json:"offset"`
	Valid  bool  `json:"valid"`
}

// checkFraming checks that JSON framing finds exactly the records the
// independent reading finds, bad ones invalid, whatever the chunk size,
// read size and job count.
func checkFraming(t *testing.T, data []byte, chunk, jobs int) {
	input, starts, bad := buildInput(data)
	out, copies, st := jsonRun(t, input, chunk, jobs, iotest.HalfReader)
	var got []offsetVerdict
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var v offsetVerdict
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("verdict %q: %v", line, err)
		}
		got = append(got, v)
	}
	if len(got) != len(starts) || st.Records != int64(len(starts)) {
		t.Fatalf("%d records (%d verdicts), want %d, in %q", st.Records, len(got), len(starts), input)
	}
	for i, v := range got {
		if v.Offset != starts[i] || bad[i] && v.Valid {
			t.Fatalf("record %d: %+v, want offset %d (invalid %v), in %q", i, v, starts[i], bad[i], input)
		}
	}
	// Copies: one entry (ending in a newline) per record, whole documents
	// on one line as written; they add up to the records.
	if n := strings.Count(copies, "\n"); n < len(starts) {
		t.Fatalf("%d lines copied for %d records", n, len(starts))
	}
	// The same records whatever the cutting.
	out2, copies2, _ := jsonRun(t, input, 1<<20, 1, func(r io.Reader) io.Reader { return r })
	out3, copies3, _ := jsonRun(t, input, 16, 3, iotest.OneByteReader)
	if out2 != out || out3 != out || copies2 != copies || copies3 != copies {
		t.Fatalf("cutting changes the records of %q", input)
	}
}

func FuzzFraming(f *testing.F) {
	f.Add([]byte{0, 3, 1, 4, 2, 7, 3, 2, 4, 9, 6, 30, 8, 5}, uint16(100), uint8(2))
	f.Add([]byte{5, 1, 2, 200, 6, 17, 3, 3}, uint16(16), uint8(1))
	f.Add([]byte{4, 0, 4, 1, 0, 0}, uint16(1000), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16, jobs uint8) {
		if len(data) > 400 {
			return
		}
		checkFraming(t, data, 16+int(chunk)%4096, 1+int(jobs)%4)
	})
}

// TestFramingFindsIndependentValues runs the fuzz target's property on
// generated inputs, so that every go test checks it.
func TestFramingFindsIndependentValues(t *testing.T) {
	for seed := range 200 {
		data := make([]byte, 2+seed%60)
		for i := range data {
			data[i] = byte(seed*31 + i*i*7 + i)
		}
		checkFraming(t, data, 16+seed*37%3000, 1+seed%4)
	}
}

// TestFramingBOMBeforeLongSpace checks that a byte order mark stays with
// the first value when white space longer than a chunk comes between them:
// the record starts at the mark, so the chunk must still hold it.
func TestFramingBOMBeforeLongSpace(t *testing.T) {
	for _, space := range []int{10, 100, 5000} {
		input := []byte("\xef\xbb\xbf" + strings.Repeat(" ", space) + `{"a":1}` + "\n" + `{"b":2}` + "\n")
		out, copies, st := jsonRun(t, input, 64, 1, func(r io.Reader) io.Reader { return r })
		if st.Records != 2 || st.Invalid != 2 {
			t.Fatalf("%d spaces: %d records, %d invalid, want 2 and 2:\n%s", space, st.Records, st.Invalid, out)
		}
		if !strings.Contains(out, `"offset":0,`) || !strings.Contains(out, "byte order mark") {
			t.Errorf("%d spaces: the first record is not the BOM's:\n%s", space, out)
		}
		if !strings.HasPrefix(copies, "\x00\xef\xbb\xbf") {
			t.Errorf("%d spaces: the BOM is not copied with its record: %q", space, copies[:min(len(copies), 20)])
		}
	}
}

// framingInputs returns the cards of the shipped sample corpus that are
// JSON (the sample has syntax defects too) three ways: as NDJSON, as a
// compact top-level array with one card per line, and as an indented
// array.
func framingInputs(b *testing.B) (ndjson, compact, pretty []byte, cards int64) {
	f, err := os.Open("../../corpus/sample.ndjson.zst")
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	dec, err := zstd.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	all, err := io.ReadAll(dec)
	dec.Close()
	if err != nil {
		b.Fatal(err)
	}
	var lines, arr, ind bytes.Buffer
	arr.WriteString("[")
	ind.WriteString("[")
	for _, line := range bytes.Split(bytes.TrimSuffix(all, []byte("\n")), []byte("\n")) {
		if !json.Valid(line) {
			continue
		}
		if cards > 0 {
			arr.WriteString(",")
			ind.WriteString(",")
		}
		arr.WriteString("\n")
		arr.Write(line)
		ind.WriteString("\n  ")
		json.Indent(&ind, line, "  ", "  ")
		lines.Write(line)
		lines.WriteByte('\n')
		cards++
	}
	arr.WriteString("\n]\n")
	ind.WriteString("\n]\n")
	return lines.Bytes(), arr.Bytes(), ind.Bytes(), cards
}

// BenchmarkFraming judges the same cards as NDJSON, as a compact JSON
// array and as an indented one. SetBytes is the NDJSON size for all, so
// MB/s compares cards per second; in-MB/s is per byte of the input.
func BenchmarkFraming(b *testing.B) {
	ndjson, compact, pretty, cards := framingInputs(b)
	for _, jobs := range []int{1, 2} {
		for _, tc := range []struct {
			name    string
			input   []byte
			framing Framing
		}{{"ndjson", ndjson, FramingNDJSON}, {"json-compact", compact, FramingJSON}, {"json-pretty", pretty, FramingJSON}} {
			b.Run(fmt.Sprintf("j%d/%s", jobs, tc.name), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(ndjson)))
				for b.Loop() {
					st, err := Run(Config{Profile: "auto", Jobs: jobs, Stdin: bytes.NewReader(tc.input)},
						[]Input{{Name: "in", Framing: tc.framing}})
					if err != nil || st.Records != cards {
						b.Fatal(err, st.Records)
					}
				}
				b.ReportMetric(float64(len(tc.input))*float64(b.N)/1e6/b.Elapsed().Seconds(), "in-MB/s")
			})
		}
	}
}

// BenchmarkSplitter runs the splitter alone over the compact and the
// indented array, in 1 MiB pieces as the reader gives it; SetBytes is the
// input's size.
func BenchmarkSplitter(b *testing.B) {
	_, compact, pretty, cards := framingInputs(b)
	for _, tc := range []struct {
		name  string
		input []byte
	}{{"compact", compact}, {"pretty", pretty}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tc.input)))
			var sp splitter
			spans := make([]span, 0, cards)
			for b.Loop() {
				sp.reset(0, false)
				spans = spans[:0]
				for off := 0; off < len(tc.input); off += DefaultChunkSize {
					end := min(off+DefaultChunkSize, len(tc.input))
					// Each piece starts at the record in progress, as a
					// chunk does.
					from := int(sp.pos)
					if p := sp.pending(); p >= 0 {
						from = int(p)
					}
					spans = sp.scan(tc.input[from:end], int64(from), spans)
				}
				if spans = sp.finish(spans); int64(len(spans)) != cards {
					b.Fatal(len(spans), cards)
				}
			}
		})
	}
}

// splitAll runs the splitter over input in pieces of n bytes, each
// starting at the record in progress as the reader's chunks do.
func splitAll(input []byte, n int) []span { return splitWith(input, n, false) }

// TestSplitterStringBytesAtEveryOffset puts each kind of byte that stops
// the search for a string's end at every offset around the 64-byte blocks
// it is searched by: a record's bounds must be those of the same string
// with plain letters instead, and a raw newline must break the record.
func TestSplitterStringBytesAtEveryOffset(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		broken     bool
	}{
		{"two-byte UTF-8", "é", false},
		{"three-byte UTF-8", "€", false},
		{"control character", "\x01", false},
		{"delete", "\x7f", false},
		{"escaped quote", `\"`, false},
		{"escaped backslash", `\\`, false},
		{"escape", `\u00e9`, false},
		{"raw newline", "\n", true},
		{"escaped newline", "\\\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for pad := range 140 {
				text := strings.Repeat("x", pad) + tc.text + strings.Repeat("y", pad%7)
				plain := strings.Repeat("x", pad) + strings.Repeat("a", len(tc.text)) + strings.Repeat("y", pad%7)
				doc := func(s string) []byte {
					return []byte("[\n{\"k\":\"" + s + "\",\"n\":1},\n{\"b\":[1]}\n]\n")
				}
				for _, n := range []int{1 << 20, 64, 7} {
					got, want := splitAll(doc(text), n), splitAll(doc(plain), n)
					if len(got) == 0 || len(want) != 2 {
						t.Fatalf("pad %d, pieces of %d: %+v (plain %+v)", pad, n, got, want)
					}
					if tc.broken {
						if !got[0].broken || got[0].start != 2 {
							t.Fatalf("pad %d, pieces of %d: %+v, want a broken record at 2", pad, n, got)
						}
						continue
					}
					if !slices.Equal(got, want) {
						t.Fatalf("pad %d, pieces of %d: %+v, want %+v", pad, n, got, want)
					}
				}
			}
		})
	}
}

// TestSplitterFollowsOnlyStringsAndBracketsInRecords checks the records
// found where a record's commas, colons or scalars are wrong but its
// strings and brackets are whole (one record, for the validator to judge),
// and where they are not (a broken record up to the next line starting a
// document). Between records the grammar is followed exactly.
func TestSplitterFollowsOnlyStringsAndBracketsInRecords(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		want        []span
	}{
		{"missing colon", "{\"a\" 1}\n{\"b\":2}\n", []span{{0, 7, false}, {8, 15, false}}},
		{"missing comma, same line", `{"a":1 "b":2} {"c":3}`, []span{{0, 13, false}, {14, 21, false}}},
		{"in the array of cards", `[{"a":1,},{"b" 2},{"c":[1 2]}]`, []span{{1, 9, false}, {10, 17, false}, {18, 29, false}}},
		{"scalars for keys", `{1:2,,::}` + "\n" + `{"x" "y"}`, []span{{0, 9, false}, {10, 19, false}}},
		{"outside records, missing comma", "[1 2]\n{\"a\":1}", []span{{1, 4, true}, {6, 13, false}}},
		{"outside records, trailing comma", "[{\"a\":1},]\n{}", []span{{1, 8, false}, {9, 10, true}, {11, 13, false}}},
		{"mismatched brackets", "{\"a\":[1}]\n{}", []span{{0, 10, true}, {10, 12, false}}},
		{"newline in a string", "{\"a\":\"x\n\"}\n{}", []span{{0, 11, true}, {11, 13, false}}},
		{"document starting inside a record", "{\"a\":\n{\"b\":1}}\n{}", []span{{0, 6, true}, {6, 13, false}, {13, 15, true}, {15, 17, false}}},
		// In the array of cards each element is one record.
		{"element missing", `[{},,{}]`, []span{{1, 3, false}, {4, 5, true}, {5, 7, false}}},
		{"bytes after an element", `[{} x "y" [1] }, {}]`, []span{{1, 15, true}, {17, 19, false}}},
		{"close matching an outer bracket", `[{"a":[1},{}]`, []span{{1, 9, true}, {10, 12, false}}},
		{"stray close", `[{"a":1]},{}]`, []span{{1, 9, true}, {10, 12, false}}},
		{"newline in an element's string", "[{\"a\":\"x\n\"b\":[1]},\n{}]", []span{{1, 17, true}, {19, 21, false}}},
		{"element indented as its first", "[\n  {\"a\": [\n  {\"b\": 1}\n]\n{}\n", []span{{4, 14, true}, {14, 22, false}, {25, 27, false}}},
		{"member after an early close", `[{"a":1},"b":2}]`, []span{{1, 8, false}, {9, 15, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, exact := range []bool{false, true} {
				for _, n := range []int{1 << 20, 5, 1} {
					if got := splitWith([]byte(tc.input), n, exact); !slices.Equal(got, tc.want) {
						t.Errorf("byte loop only %v, pieces of %d: %+v, want %+v", exact, n, got, tc.want)
					}
				}
			}
		})
	}
}
