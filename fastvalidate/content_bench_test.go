//go:build unix

package fastvalidate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/bits"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// BenchmarkContentGroups validates the first 20,000 cards of the dump
// named by $CARDSCAN_CONTENT_DUMP (an NDJSON file, such as cardgen's 100 MB
// agentcard dump) with every content rule off, with one rule of a group of
// them on, and with all on: what each part of the content rules costs a
// card, beside plain validation. It reports the CPU time a card takes
// (cpu-ns/card, user and system, from getrusage), which a shared machine's
// load moves far less than the wall time of ns/op.
func BenchmarkContentGroups(b *testing.B) {
	cards := contentDumpCards(b)
	// only turns every content rule off but those given.
	only := func(on ...Code) []Option {
		var opts []Option
		for c := CodeContentBidiControl; c <= CodeContentLinkOrigin; c++ {
			keep := false
			for _, k := range on {
				keep = keep || k == c
			}
			if !keep {
				opts = append(opts, WithSeverity(c, SeverityOff))
			}
		}
		return opts
	}
	for _, mode := range []struct {
		name string
		opts []Option
	}{
		{"off", contentOff()},
		{"characters", only(CodeContentBidiControl)}, // the walk, and strings beyond ASCII
		{"links", only(CodeContentLinkIPHost)},
		{"patterns", only(CodeContentInjection)},
		{"on", nil},
	} {
		b.Run(mode.name, func(b *testing.B) {
			v := MustNew("agentcard", mode.opts...)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var before, after syscall.Rusage
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &before); err != nil {
				b.Fatal(err)
			}
			n := 0
			for b.Loop() {
				for _, c := range cards {
					v.Validate(c)
				}
				n += len(cards)
			}
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &after); err != nil {
				b.Fatal(err)
			}
			cpu := after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()
			b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/card")
		})
	}
}

// BenchmarkContentHonest validates the honest cards of
// testdata/content/honest.tsv in turn, most of them in scripts beyond
// ASCII (Arabic, Hebrew, Hindi, Thai, Chinese, Japanese, Korean, emoji),
// with the content rules on and off: what a card in another script pays
// for the checks of its characters and their folding.
func BenchmarkContentHonest(b *testing.B) {
	rows := contentCases(b, "honest.tsv", 2)
	if len(rows) == 0 {
		b.Fatal("honest.tsv has no cards")
	}
	for _, mode := range []struct {
		name string
		opts []Option
	}{{"on", nil}, {"off", contentOff()}} {
		b.Run(mode.name, func(b *testing.B) {
			validators := map[string]*Validator{}
			cards := make([][]byte, len(rows))
			size := 0
			for i, row := range rows {
				cards[i] = []byte(row[1])
				size += len(cards[i])
				if p := profileOf(row[1]); validators[p] == nil {
					validators[p] = MustNew(p, mode.opts...)
				}
			}
			profiles := make([]*Validator, len(rows))
			for i, row := range rows {
				profiles[i] = validators[profileOf(row[1])]
			}
			b.SetBytes(int64(size / len(cards)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				profiles[i%len(cards)].Validate(cards[i%len(cards)])
				i++
			}
		})
	}
}

// BenchmarkContentEscaped validates a card whose texts are ASCII written
// with escapes (a description of several lines, with quotes and paths),
// with the content rules on and off: what such a text pays for its
// decoding and its pass through the patterns.
func BenchmarkContentEscaped(b *testing.B) {
	var desc strings.Builder
	for i := range 12 {
		fmt.Fprintf(&desc, `Step %d: reads the \"input\" file at \/data\/in-%d.csv and writes a summary.\n`, i, i)
	}
	card := []byte(`{"agent_id": "01HZQK3P8EMXR9V7T5N2W4J6C0", "name": "Step\tRunner", "version": "1.0.0", ` +
		`"capabilities": [{"id": "batch.run", "description": "` + desc.String() + `", "tags": ["batch\njobs", "csv"]}], ` +
		`"endpoint": {"protocol": "https", "url": "https://agents.example.com/api"}}`)
	for _, mode := range []struct {
		name string
		opts []Option
	}{{"on", nil}, {"off", contentOff()}} {
		b.Run(mode.name, func(b *testing.B) {
			v := MustNew("agentcard", mode.opts...)
			if res := v.Validate(card); !res.Valid() {
				b.Fatalf("the card is invalid: %v", res.Findings())
			}
			b.SetBytes(int64(len(card)))
			b.ReportAllocs()
			for b.Loop() {
				v.Validate(card)
			}
		})
	}
}

// BenchmarkMatchRaw runs the pattern matcher's pass over texts as written
// (matchRaw), and its word-by-word pass where the gate lets an object
// through, alone on the texts of the first 20,000 cards of the dump named
// by $CARDSCAN_CONTENT_DUMP: each object's texts the content rules read
// (classifyMember) that are printable ASCII, in a buffer laid out as a
// card's (each text in quotes), one object's texts matched together. What
// BenchmarkContentGroups shows under a shared machine's load only as a
// few percent of a whole validation, this shows by itself: per card, CPU
// time (cpu-ns/card) and wall time, the share of objects the gate lets
// through (gated/object), and, where the pass looks for the anchors'
// words (haveTeddy), the share of words it hashes and of 64-byte blocks
// where it hashes any (anchor-cand/word, anchor-cand/block; a word across
// two blocks counts in each).
func BenchmarkMatchRaw(b *testing.B) {
	w, objects, cards := matchRawData(b)
	p := loadPatterns()
	textBytes := 0
	for _, segs := range objects {
		for _, s := range segs {
			textBytes += int(s.end - s.start)
		}
	}
	candWords, candBlocks, words, blocks := anchorCandidates(w, objects)
	b.SetBytes(int64(textBytes))
	b.ReportAllocs()
	gated := 0
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpuBefore := processCPU(b)
	for b.Loop() {
		gated = 0
		for _, segs := range objects {
			w.segs = append(w.segs[:0], segs...) // as checkContent reuses it
			var lits litHits
			seen := w.gateSegments(p, &lits)
			if lits.n != 0 {
				b.Fatalf("a literal matches %q", w.segText(lits.hits[0].seg))
			}
			if !p.gateOpen(seen) {
				continue
			}
			gated++
			for si := range segs {
				if w.matchWordsExact(p, si, 0) != 0 {
					b.Fatalf("a pattern matches %q", w.segText(si))
				}
			}
		}
	}
	b.ReportMetric(float64(processCPU(b)-cpuBefore)/float64(b.N*cards), "cpu-ns/card")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*cards), "ns/card")
	b.ReportMetric(float64(gated)/float64(len(objects)), "gated/object")
	if haveTeddy {
		b.ReportMetric(float64(candWords)/float64(words), "anchor-cand/word")
		b.ReportMetric(float64(candBlocks)/float64(blocks), "anchor-cand/block")
	}
}

// anchorCandidates counts, over the texts of objects, the words and the
// 64-byte blocks, and of them those where blockMasksTeddy finds a word
// that may be an anchor's: what share of them the pass hashes, by the
// tables the pass uses (gateVecTables where haveGateVec, else
// teddyTables).
func anchorCandidates(w *walker, objects [][]textSeg) (candWords, candBlocks, words, blocks int) {
	if !haveTeddy {
		return 0, 0, 0, 0
	}
	p := loadPatterns()
	var src [64 + 7]byte
	for _, segs := range objects {
		for _, s := range segs {
			text := w.b[s.start:s.end]
			for base := 0; base < len(text); base += 64 {
				n := min(len(text)-base, 64)
				copy(src[:], w.b[int(s.start)+base:])
				word, _, cand := blockMasksTeddy(src[:], n, &p.teddy)
				if haveGateVec {
					cand = 0
					for i := range n {
						if p.vec.mayStart(src[i:]) {
							cand |= 1 << i
						}
					}
				}
				word &= ^uint64(0) >> (64 - n)
				starts := word &^ (word << 1)
				words += bits.OnesCount64(starts)
				candWords += bits.OnesCount64(starts & cand)
				blocks++
				if starts&cand != 0 {
					candBlocks++
				}
			}
		}
	}
	return candWords, candBlocks, words, blocks
}

// processCPU returns the CPU time, user and system, the process has used,
// in nanoseconds: what a benchmark on a shared machine reports beside its
// wall time, which other work there moves far more.
func processCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// matchRawData reads the texts BenchmarkMatchRaw matches (see there): a
// walker over them, each object's segments, and the number of cards read.
func matchRawData(b *testing.B) (*walker, [][]textSeg, int) {
	lines := contentDumpCards(b)
	var buf []byte
	var objects [][]textSeg
	addText := func(segs []textSeg, v any) []textSeg {
		s, ok := v.(string)
		if !ok || s == "" || strings.ContainsAny(s, "\"\\") || hasNonASCII([]byte(s)) || strings.IndexFunc(s, func(r rune) bool { return r < ' ' }) >= 0 {
			return segs
		}
		buf = append(buf, '"')
		segs = append(segs, textSeg{start: uint32(len(buf)), end: uint32(len(buf) + len(s))})
		buf = append(append(buf, s...), '"')
		return segs
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			var segs []textSeg
			for k, m := range v {
				walk(m)
				if c := classifyMember([]byte(k)); c == memberOther || c == memberLink {
					continue
				}
				if a, ok := m.([]any); ok {
					for _, e := range a {
						segs = addText(segs, e)
					}
				}
				segs = addText(segs, m)
			}
			if len(segs) != 0 {
				objects = append(objects, segs)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	for _, line := range lines {
		var v any
		if json.Unmarshal(line, &v) == nil {
			walk(v)
		}
	}
	return &walker{b: buf}, objects, len(lines)
}

// contentDumpCards returns the first 20,000 lines of the dump named by
// $CARDSCAN_CONTENT_DUMP, the cards the content benchmarks read, and
// skips the benchmark when it names none.
func contentDumpCards(b *testing.B) [][]byte {
	path := os.Getenv("CARDSCAN_CONTENT_DUMP")
	if path == "" {
		b.Skip("CARDSCAN_CONTENT_DUMP names no dump")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var cards [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() && len(cards) < 20000 {
		cards = append(cards, append([]byte(nil), sc.Bytes()...))
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return cards
}
