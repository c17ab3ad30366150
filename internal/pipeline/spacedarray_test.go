package pipeline

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestArraySpaceAfterElement: white space longer than MaxRecord between
// an element of the array of cards and its comma or ']' is no part of
// any record. The element waited for its comma as the record in
// progress, so the space made it look too large, and the cutter panicked
// (slice bounds out of range) when the comma ended, at the element's
// last byte, a record whose first bytes it had passed on.
func TestArraySpaceAfterElement(t *testing.T) {
	const maxRecord = 1024
	big := `{"padding":"` + strings.Repeat("x", 2*maxRecord) + `"}`
	space := strings.Repeat(" ", 3*maxRecord)
	for _, tc := range []struct {
		name, input     string
		records, tooBig int64
	}{
		{"before a comma", "[" + card + space + "," + card + "]\n", 2, 0},
		{"before the ]", "[" + card + "," + card + "\n" + space + "]\n", 2, 0},
		{"after a too-large element", "[" + big + space + "," + card + "]\n", 2, 1},
	} {
		for _, chunk := range []int{1024, 1 << 20} {
			var out, valid, invalid bytes.Buffer
			st, err := Run(Config{Profile: "agentcard", Jobs: 1, ChunkSize: chunk, MaxRecord: maxRecord,
				All: true, Findings: jsonlTo(&out, true), ValidOut: &valid, InvalidOut: &invalid,
				Stdin: strings.NewReader(tc.input)}, []Input{{Name: "in", Framing: FramingJSON}})
			if err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("%s, chunk %d", tc.name, chunk)
			if st.Records != tc.records || strings.Count(out.String(), `"input.too-large"`) != int(tc.tooBig) {
				t.Errorf("%s: %d records, want %d with %d too large:\n%.600s", where, st.Records, tc.records, tc.tooBig, out.String())
			}
			if n := int64(strings.Count(valid.String(), card+"\n")); n != st.Valid {
				t.Errorf("%s: %d valid, %d cards in --valid-out", where, st.Valid, n)
			}
		}
	}
}

// TestArraySpacedElementsWhole: an array of cards with white space of any
// length (up to three times MaxRecord) around its commas and brackets is
// read as its cards, all valid, whatever the chunk size and workers.
func TestArraySpacedElementsWhole(t *testing.T) {
	const maxRecord = 512
	r := rand.New(rand.NewPCG(3, 4))
	space := func() string {
		n := r.IntN(3 * maxRecord)
		if r.IntN(3) == 0 {
			n = r.IntN(4)
		}
		return strings.Repeat([]string{" ", "\n", "\t", "\r\n"}[r.IntN(4)], n)
	}
	for i := range 60 {
		cards := 1 + r.IntN(5)
		var b strings.Builder
		b.WriteString(space() + "[" + space())
		for j := range cards {
			if j > 0 {
				b.WriteString(space() + "," + space())
			}
			b.WriteString(card)
		}
		b.WriteString(space() + "]" + space())
		chunk, jobs := 1024+r.IntN(4096), 1+r.IntN(2)
		var valid bytes.Buffer
		st, err := Run(Config{Profile: "agentcard", Jobs: jobs, ChunkSize: chunk, MaxRecord: maxRecord, ValidOut: &valid,
			Stdin: strings.NewReader(b.String())}, []Input{{Name: "in", Framing: FramingJSON}})
		if err != nil {
			t.Fatal(err)
		}
		if st.Records != int64(cards) || st.Valid != int64(cards) || valid.String() != strings.Repeat(card+"\n", cards) {
			t.Fatalf("input %d (%d bytes, chunk %d, -j %d): %d records, %d valid, want %d", i, b.Len(), chunk, jobs, st.Records, st.Valid, cards)
		}
	}
}

// TestArraySpaceThenFaultSameForEveryChunk: after white space longer
// than MaxRecord behind a whole element, junk or a next element with no
// comma before it makes the same records whatever the chunk size. A
// chunk too small to hold the space ends the element before the fault
// arrives; a larger one used to see the fault and take it into the
// element, so the records and their count hung on --chunk-size.
func TestArraySpaceThenFaultSameForEveryChunk(t *testing.T) {
	const maxRecord = 1024
	for _, n := range []int{maxRecord - len(card) - 2, maxRecord - len(card), 3 * maxRecord} {
		space := strings.Repeat(" ", n)
		for k, input := range []string{
			"[" + card + space + "x," + card + "]\n",
			"[" + card + space + "\n" + card + "]\n",
			"[" + card + space + "}" + card + "]\n",
		} {
			var want string
			for _, chunk := range []int{1024, 1 << 20} {
				var out, valid, invalid bytes.Buffer
				_, err := Run(Config{Profile: "agentcard", Jobs: 1, ChunkSize: chunk, MaxRecord: maxRecord,
					All: true, Findings: jsonlTo(&out, true), ValidOut: &valid, InvalidOut: &invalid,
					Stdin: strings.NewReader(input)}, []Input{{Name: "in", Framing: FramingJSON}})
				if err != nil {
					t.Fatal(err)
				}
				got := out.String() + valid.String() + "\x00" + invalid.String()
				if want == "" {
					want = got
				} else if got != want {
					t.Errorf("%d spaces, case %d: chunk %d differs from 1024:\n got %.400q\nwant %.400q", n, k, chunk, got, want)
				}
			}
		}
	}
}

// TestArraySpacedFaultsAnyChunk: arrays of cards with long white space,
// junk, stray brackets and missing commas at random give the same
// verdicts and out files at every chunk size and -j 1 or 2 as in one
// chunk that holds them whole.
func TestArraySpacedFaultsAnyChunk(t *testing.T) {
	const maxRecord = 512
	r := rand.New(rand.NewPCG(5, 6))
	gap := func() string {
		n := r.IntN(2 * maxRecord)
		if r.IntN(2) == 0 {
			n = r.IntN(3)
		}
		return strings.Repeat([]string{" ", "\n", "\t"}[r.IntN(3)], n)
	}
	run := func(input string, chunk, jobs int) string {
		var out, valid, invalid bytes.Buffer
		_, err := Run(Config{Profile: "agentcard", Jobs: jobs, ChunkSize: chunk, MaxRecord: maxRecord,
			All: true, Findings: jsonlTo(&out, true), ValidOut: &valid, InvalidOut: &invalid,
			Stdin: strings.NewReader(input)}, []Input{{Name: "in", Framing: FramingJSON}})
		if err != nil {
			t.Fatal(err)
		}
		return out.String() + valid.String() + "\x00" + invalid.String()
	}
	for i := range 80 {
		var b strings.Builder
		b.WriteString("[")
		for j := range 1 + r.IntN(4) {
			if j > 0 {
				b.WriteString(gap() + []string{",", ",", ",", "", "x,", "},", "]"}[r.IntN(7)] + gap())
			}
			b.WriteString(card)
		}
		b.WriteString(gap() + []string{"]", "]", "", "x]"}[r.IntN(4)] + "\n")
		input := b.String()
		want := run(input, 1<<20, 1)
		for _, chunk := range []int{1024, 1024 + r.IntN(2048)} {
			jobs := 1 + r.IntN(2)
			if got := run(input, chunk, jobs); got != want {
				t.Logf("input %q", strings.ReplaceAll(strings.ReplaceAll(input, card, "C"), strings.Repeat(" ", 10), "S"))
				t.Fatalf("input %d (%d bytes), chunk %d, -j %d: differs from one chunk\n got %.600q\nwant %.600q", i, len(input), chunk, jobs, got, want)
			}
		}
	}
}

// FuzzJSONChunkingSmallBound: JSON text read in chunks of every size
// gives the verdicts and out files it gives in one chunk, with a record
// bound small enough that records are streamed too large.
func FuzzJSONChunkingSmallBound(f *testing.F) {
	f.Add([]byte("["+card+strings.Repeat(" ", 700)+"x,"+card+"]"), uint16(0), uint8(0))
	f.Add([]byte("["+card+"\n"+card+strings.Repeat("\n", 600)+"]"), uint16(300), uint8(1))
	f.Add([]byte(card+strings.Repeat("\t", 900)+card), uint16(10), uint8(1))
	f.Fuzz(func(t *testing.T, input []byte, chunk uint16, jobs uint8) {
		if len(input) > 1<<14 {
			return
		}
		run := func(chunk, jobs int) string {
			var out, valid, invalid bytes.Buffer
			_, err := Run(Config{Profile: "agentcard", Jobs: jobs, ChunkSize: chunk, MaxRecord: 512,
				All: true, Findings: jsonlTo(&out, true), ValidOut: &valid, InvalidOut: &invalid,
				Stdin: bytes.NewReader(input)}, []Input{{Name: "in", Framing: FramingJSON}})
			if err != nil {
				t.Fatal(err)
			}
			return out.String() + valid.String() + "\x00" + invalid.String()
		}
		want := run(1<<20, 1)
		size, j := 1024+int(chunk)%2048, 1+int(jobs)%2
		if got := run(size, j); got != want {
			t.Fatalf("chunk %d, -j %d: differs from one chunk\n got %.600q\nwant %.600q", size, j, got, want)
		}
	})
}
