package dump

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/report"
	"github.com/zeebo/xxh3"
)

// partJobs are the job counts whose output must be one part's: a few,
// and more parts than most inputs have claims or digests.
var partJobs = []int{2, 3, 7, 64}

// splitFinely lets Finish and diff's index split even a few claims or
// digests in as many parts as they have jobs, so that parts that are
// empty, or hold one group, are tried; the floors are restored after.
func splitFinely(t testing.TB) {
	claims, digests := minPartClaims, minIndexPart
	minPartClaims, minIndexPart = 1, 1
	t.Cleanup(func() { minPartClaims, minIndexPart = claims, digests })
}

// hashRemaps give the claims' or digests' hashes as tests want them to
// collide: in their low half (one run of every table), in their high
// half (every one in the first part), in a few values whole, or in the
// low half while spread over parts by the high.
var hashRemaps = []struct {
	name  string
	remap func(uint64) uint64
}{
	{"as hashed", nil},
	{"low half zero", func(h uint64) uint64 { return h &^ (1<<32 - 1) }},
	{"high half zero", func(h uint64) uint64 { return h & (1<<32 - 1) }},
	{"three hashes", func(h uint64) uint64 { return h % 3 }},
	{"five high halves, low zero", func(h uint64) uint64 { return (h % 5) << 40 }},
}

// crossCard is what a card claims, for cardClaims: an empty field claims
// nothing.
type crossCard struct {
	id, sum, endpoint, name, origin, host string
}

// cardClaims returns the claims that cards make, as Extract's functions
// would, read from three inputs in turn.
func cardClaims(cards []crossCard) []byte {
	var claims []byte
	for i, c := range cards {
		input, line := fmt.Sprintf("dir/in-%d.ndjson", i%3), i/3+1
		if c.id != "" {
			claims = appendClaim(claims, groupID, []byte(c.id), []byte(c.sum), input, line)
		}
		claims = appendClaim(claims, groupContent, []byte(c.sum), nil, input, line)
		if c.endpoint != "" {
			claims = appendClaim(claims, groupEndpoint, []byte(c.endpoint), []byte(c.id), input, line)
		}
		if c.name != "" {
			claims = appendClaim(claims, groupLookalike, []byte("name agent"), []byte(c.origin+"\x00"+c.name), input, line)
		}
		if c.host != "" {
			claims = appendClaim(claims, groupLookalike, []byte("host "+c.host), []byte(c.origin+"\x00"+c.host), input, line)
		}
	}
	return claims
}

// crossCases are claims of the shapes that split in parts badly: none,
// one card's, one identity or one name on every card (one group of every
// card), and groups of two.
func crossCases() []struct {
	name   string
	claims []byte
} {
	cards := func(n int, card func(i int) crossCard) []byte {
		list := make([]crossCard, n)
		for i := range list {
			list[i] = card(i)
		}
		return cardClaims(list)
	}
	return []struct {
		name   string
		claims []byte
	}{
		{"no cards", nil},
		{"one card", cards(1, func(int) crossCard {
			return crossCard{"agent_id one", "sum-one", "https://e.example/rpc", "agent", "o.example", "h.example"}
		})},
		{"one identity", cards(1500, func(i int) crossCard {
			return crossCard{id: "agent_id same", sum: fmt.Sprintf("sum-%d", i%40), endpoint: fmt.Sprintf("https://e%d.example/rpc", i)}
		})},
		{"one name and host", cards(1500, func(i int) crossCard {
			return crossCard{sum: fmt.Sprint("sum-", i), name: []string{"agent", "agent_", "agent-"}[i%3],
				origin: fmt.Sprintf("o%d.example", i%5), host: "h.example"}
		})},
		{"groups of two", cards(1500, func(i int) crossCard {
			k := i / 2
			return crossCard{fmt.Sprint("agent_id a", k), fmt.Sprintf("sum-%d-%d", k, i%2), fmt.Sprintf("https://e%d.example/rpc", k),
				"", "", ""}
		})},
		{"every group", testClaims()},
	}
}

// crossRun adds claims to a Cross holding memory bytes, fifty at a time,
// with each claim's group hash remapped (nil: as hashed), and returns its
// output, its counts and whether it spilled.
func crossRun(t testing.TB, claims []byte, memory int64, format report.Format, remap func(uint64) uint64, jobs int) (string, string, bool) {
	t.Helper()
	c, err := NewCross(memory)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Jobs = jobs
	addClaims(t, c, claims)
	if remap != nil {
		// Every claim of a group and key has one hash: remapped, they
		// still do, as if XXH3 had given it.
		for _, chunk := range c.hashes.chunks {
			for i := 0; i < len(chunk); i += claimHashSize {
				h, _ := hashAt(chunk, i)
				binary.LittleEndian.PutUint64(chunk[i:], remap(h))
			}
		}
	}
	var out bytes.Buffer
	counts, err := c.Finish(format.Writer(&out, report.WriterOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), fmt.Sprint(counts), c.st.spilled()
}

// TestCrossPartsTable: for claims of every shape, hashes colliding or
// not, Finish gives in any number of parts, and spilled, byte for byte
// the findings and counts one part gives in memory.
func TestCrossPartsTable(t *testing.T) {
	splitFinely(t)
	for _, tc := range crossCases() {
		for _, format := range []report.Format{report.FormatJSONL, report.FormatText} {
			want, wantCounts, _ := crossRun(t, tc.claims, 1<<30, format, nil, 1)
			if tc.claims != nil && want == "" && tc.name != "one card" {
				t.Fatalf("%s: no findings; the case tests nothing", tc.name)
			}
			for _, r := range hashRemaps {
				for _, jobs := range append([]int{1}, partJobs...) {
					got, counts, _ := crossRun(t, tc.claims, 1<<30, format, r.remap, jobs)
					if got != want || counts != wantCounts {
						t.Errorf("%s, %s, hashes %s, -j %d: other output (%d bytes, want %d), counts %s, want %s\n%.300s\nwant\n%.300s",
							tc.name, format, r.name, jobs, len(got), len(want), counts, wantCounts, got, want)
					}
				}
			}
			got, counts, spilled := crossRun(t, tc.claims, 4<<10, format, nil, 3)
			if spilled != (len(tc.claims) > 1<<10) {
				t.Errorf("%s: %d bytes of claims spilled: %v", tc.name, len(tc.claims), spilled)
			}
			if got != want || counts != wantCounts {
				t.Errorf("%s, %s, spilled: other output (%d bytes, want %d), counts %s, want %s", tc.name, format, len(got), len(want), counts, wantCounts)
			}
		}
	}
}

// TestCrossPartsCapped: the floor of claims per part caps the parts of
// 18,000 claims at four whatever -j asks, and the output stays one
// part's.
func TestCrossPartsCapped(t *testing.T) {
	claims := testClaims()
	n := 0
	for rest := claims; len(rest) > 0; n++ {
		_, rest, _ = nextDigest(rest)
	}
	want, wantCounts, _ := crossRun(t, claims, 1<<30, report.FormatJSONL, nil, 1)
	for _, jobs := range partJobs {
		if p, most := crossParts(jobs, n), n/minPartClaims; p != min(jobs, most) {
			t.Fatalf("-j %d, %d claims: %d parts, want %d", jobs, n, p, min(jobs, most))
		}
		got, counts, _ := crossRun(t, claims, 1<<30, report.FormatJSONL, nil, jobs)
		if got != want || counts != wantCounts {
			t.Errorf("-j %d: other output (%d bytes, want %d), counts %s, want %s", jobs, len(got), len(want), counts, wantCounts)
		}
	}
}

// TestCrossSpillBoundary: claims that just fit the budget stay in
// memory, and a byte less spills them at the last batch; both give what
// any number of parts gives.
func TestCrossSpillBoundary(t *testing.T) {
	splitFinely(t)
	for _, tc := range crossCases()[2:] {
		c, err := NewCross(1 << 30)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Add(tc.claims); err != nil {
			t.Fatal(err)
		}
		held := c.st.held
		c.Close()
		// The claims' store is given an eighth of memory (NewCross).
		fits, spills := 8*held, 8*(held-1)
		want, wantCounts, _ := crossRun(t, tc.claims, 1<<30, report.FormatJSONL, nil, 1)
		for _, m := range []struct {
			memory  int64
			spilled bool
		}{{fits, false}, {fits + 8, false}, {spills, true}, {spills - 8, true}} {
			for _, jobs := range append([]int{1}, partJobs...) {
				got, counts, spilled := crossRun(t, tc.claims, m.memory, report.FormatJSONL, nil, jobs)
				if spilled != m.spilled {
					t.Fatalf("%s: %d bytes of claims, memory %d: spilled %v, want %v", tc.name, held, m.memory, spilled, m.spilled)
				}
				if got != want || counts != wantCounts {
					t.Errorf("%s, memory %d, -j %d: other output (%d bytes, want %d), counts %s, want %s", tc.name, m.memory, jobs, len(got), len(want), counts, wantCounts)
				}
			}
		}
	}
}

// fuzzClaims makes claims of data, three bytes a claim: the group, the
// key among 16 and the other among 8, so that groups form.
func fuzzClaims(data []byte) []byte {
	groups := []byte{groupID, groupEndpoint, groupContent, groupLookalike}
	var claims []byte
	for i := 0; i+3 <= len(data); i += 3 {
		group, key, other := groups[data[i]%4], data[i+1]%16, data[i+2]%8
		input := fmt.Sprintf("in-%d.ndjson", data[i]>>6)
		o := fmt.Appendf(nil, "other-%d", other)
		if group == groupLookalike {
			o = fmt.Appendf(nil, "o%d.example\x00spelling-%d", other%3, other/3)
		}
		claims = appendClaim(claims, group, fmt.Appendf(nil, "key-%d", key), o, input, i/3+1)
	}
	return claims
}

// FuzzCrossParts: any claims give, in any number of parts, hashes
// colliding or not, and spilled, the findings and counts of one part.
func FuzzCrossParts(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 3*2000 {
			return
		}
		splitFinely(t)
		claims := fuzzClaims(data)
		want, wantCounts, _ := crossRun(t, claims, 1<<30, report.FormatJSONL, nil, 1)
		remap := hashRemaps[0].remap
		if len(data) > 0 {
			remap = hashRemaps[int(data[0])%len(hashRemaps)].remap
		}
		for _, jobs := range partJobs {
			got, counts, _ := crossRun(t, claims, 1<<30, report.FormatJSONL, remap, jobs)
			if got != want || counts != wantCounts {
				t.Fatalf("-j %d: other output, counts %s, want %s\n%s\nwant\n%s", jobs, counts, wantCounts, got, want)
			}
		}
		got, counts, _ := crossRun(t, claims, 1<<10, report.FormatJSONL, nil, 2)
		if got != want || counts != wantCounts {
			t.Fatalf("spilled: other output, counts %s, want %s\n%s\nwant\n%s", counts, wantCounts, got, want)
		}
	})
}

// partsDigest is one digest of a diff test's dump.
type partsDigest struct {
	key            int // its key; every fourth an agent_id, the rest URLs
	sum            string
	valid          bool
	signers, input string
}

// partsDigests encodes digests in blocks of perBlock, each on a line of
// its own.
func partsDigests(list []partsDigest, perBlock int) [][]byte {
	x := &Extractor{}
	var blocks [][]byte
	var block []byte
	for i, p := range list {
		kind, key := KindURL, fmt.Sprintf("https://agent-%d.example/card", p.key)
		if p.key%4 == 0 {
			kind, key = KindAgentID, fmt.Sprint("agent-", p.key)
		}
		x.key = []byte(key)
		d := &Digest{Kind: kind, Profile: "agentcard", Input: p.input, Line: i + 1, Valid: p.valid, Signers: p.signers}
		d.Sum = xxh3.Hash128([]byte(p.sum)).Bytes()
		d.Raw = d.Sum
		if !p.valid {
			d.Errors = `[{"rule":"schema.required"}]`
		}
		block = x.appendDigest(block, d)
		if (i+1)%perBlock == 0 || i+1 == len(list) {
			blocks, block = append(blocks, block), nil
		}
	}
	return blocks
}

// diffRun diffs old against new with memory bytes and jobs, the digests'
// key hashes remapped (nil: as hashed; then OldRead indexes the old dump
// as the command has it do), and returns the records and the summary but
// for what only a spilled run has, and whether either store spilled.
func diffRun(t testing.TB, old, new [][]byte, memory int64, jobs int, remap func(uint64) uint64) (string, string, bool) {
	t.Helper()
	d, err := NewDiffer(memory)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.Jobs, d.Signatures = jobs, true
	for _, b := range old {
		if err := d.AddOld(b); err != nil {
			t.Fatal(err)
		}
	}
	if remap == nil {
		d.OldRead()
	}
	for _, b := range new {
		if err := d.AddNew(b); err != nil {
			t.Fatal(err)
		}
	}
	if remap != nil {
		// Every digest of a key has one hash: remapped, they still do.
		for _, keys := range [][]keyed{d.oldKeys, d.newKeys} {
			for i := range keys {
				keys[i].hash = remap(keys[i].hash)
			}
		}
	}
	var out bytes.Buffer
	sum, err := d.Finish(&out)
	if err != nil {
		t.Fatal(err)
	}
	spilled := d.old.spilled() || d.new.spilled()
	signerChanged := *sum.SignerChanged
	sum.Seconds, sum.Partitions, sum.SpillBytes, sum.SignerChanged = 0, 0, 0, nil
	return out.String(), fmt.Sprintf("%+v, signers changed %d", sum, signerChanged), spilled
}

// diffCases are dumps of the shapes that split in parts badly: none, one
// key, one key on every record, a dump against nothing, and keys added,
// removed, changed, broken, re-signed and taken again on both sides.
func diffCases() []struct {
	name     string
	old, new [][]byte
} {
	dump := func(n, first, distinct int, salt string) [][]byte {
		list := make([]partsDigest, n)
		for i := range list {
			k := first + (i*7919)%distinct
			p := partsDigest{key: k, sum: fmt.Sprint("sum-", k), valid: k%3 != 0, input: "dump.ndjson"}
			if i%11 == 0 {
				p.sum += salt
			}
			if k%13 == 0 {
				p.valid = salt == "old"
			}
			if k%5 == 0 {
				p.signers = salt
			}
			list[i] = p
		}
		return partsDigests(list, 997)
	}
	return []struct {
		name     string
		old, new [][]byte
	}{
		{"no digests", nil, nil},
		{"one key unchanged", dump(1, 1, 1, ""), dump(1, 1, 1, "")},
		{"one key changed", dump(1, 1, 1, "old"), dump(1, 1, 1, "new")},
		{"one key on every record", dump(2993, 5, 1, "old"), dump(2000, 5, 1, "new")},
		{"all added", nil, dump(2000, 0, 1500, "new")},
		{"all removed", dump(2000, 0, 1500, "old"), nil},
		{"every change", dump(6000, 0, 4000, "old"), dump(7000, 600, 4600, "new")},
	}
}

// TestDiffPartsTable: for dumps of every shape, key hashes colliding or
// not, diff gives in any number of parts, and spilled, byte for byte the
// records and counts one part gives in memory.
func TestDiffPartsTable(t *testing.T) {
	splitFinely(t)
	for _, tc := range diffCases() {
		want, wantSum, _ := diffRun(t, tc.old, tc.new, 1<<30, 1, nil)
		if tc.old != nil && tc.name != "one key unchanged" && want == "" {
			t.Fatalf("%s: no records; the case tests nothing", tc.name)
		}
		for _, r := range hashRemaps {
			for _, jobs := range append([]int{1}, partJobs...) {
				got, sum, _ := diffRun(t, tc.old, tc.new, 1<<30, jobs, r.remap)
				if got != want || sum != wantSum {
					t.Errorf("%s, hashes %s, -j %d: other output (%d bytes, want %d), summary %s, want %s",
						tc.name, r.name, jobs, len(got), len(want), sum, wantSum)
				}
			}
		}
		for _, jobs := range []int{1, 3} {
			got, sum, spilled := diffRun(t, tc.old, tc.new, 16<<10, jobs, nil)
			if big := len(tc.old) > 1 || len(tc.new) > 1; spilled != big {
				t.Errorf("%s: spilled %v, want %v", tc.name, spilled, big)
			}
			if got != want || sum != wantSum {
				t.Errorf("%s, spilled, -j %d: other output (%d bytes, want %d), summary %s, want %s", tc.name, jobs, len(got), len(want), sum, wantSum)
			}
		}
	}
}

// FuzzDiffParts: any two dumps give, in any number of parts, key hashes
// colliding or not, and spilled, the records and counts of one part.
func FuzzDiffParts(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 3*2000 {
			return
		}
		splitFinely(t)
		var old, new []partsDigest
		for i := 0; i+3 <= len(data); i += 3 {
			flags := data[i]
			p := partsDigest{key: int(data[i+1] % 32), sum: fmt.Sprint("sum-", data[i+2]%4), valid: flags&2 != 0, input: "dump.ndjson"}
			if flags&4 != 0 {
				p.signers = "k1"
			}
			if flags&1 == 0 {
				old = append(old, p)
			} else {
				new = append(new, p)
			}
		}
		ob, nb := partsDigests(old, 7), partsDigests(new, 7)
		want, wantSum, _ := diffRun(t, ob, nb, 1<<30, 1, nil)
		remap := hashRemaps[0].remap
		if len(data) > 0 {
			remap = hashRemaps[int(data[0]>>3)%len(hashRemaps)].remap
		}
		for _, jobs := range partJobs {
			got, sum, _ := diffRun(t, ob, nb, 1<<30, jobs, remap)
			if got != want || sum != wantSum {
				t.Fatalf("-j %d: other output, summary %s, want %s\n%s\nwant\n%s", jobs, sum, wantSum, got, want)
			}
		}
		got, sum, _ := diffRun(t, ob, nb, 1<<10, 2, nil)
		if got != want || sum != wantSum {
			t.Fatalf("spilled: other output, summary %s, want %s\n%s\nwant\n%s", sum, wantSum, got, want)
		}
	})
}

// TestDiffOneDumpSpilled: one dump spilled and the other in memory (the
// old one indexed by OldRead, then compared from its sorted run) give, in
// any number of parts, what both in memory give.
func TestDiffOneDumpSpilled(t *testing.T) {
	splitFinely(t)
	cases := diffCases()
	every := cases[len(cases)-1]
	for _, tc := range []struct {
		name     string
		old, new [][]byte
	}{{"new spilled", every.old, every.new}, {"old spilled", every.new, every.old}} {
		want, wantSum, _ := diffRun(t, tc.old, tc.new, 1<<30, 1, nil)
		d, err := NewDiffer(1 << 30)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range tc.old {
			if err := d.AddOld(b); err != nil {
				t.Fatal(err)
			}
		}
		for _, b := range tc.new {
			if err := d.AddNew(b); err != nil {
				t.Fatal(err)
			}
		}
		// Each dump is given a sixth of memory (NewDiffer): the smaller
		// one's digests just fit, the larger one's spill.
		memory := 6 * min(d.old.held, d.new.held)
		d.Close()
		for _, jobs := range append([]int{1}, partJobs...) {
			d, err := NewDiffer(memory)
			if err != nil {
				t.Fatal(err)
			}
			d.Jobs, d.Signatures = jobs, true
			for _, b := range tc.old {
				if err := d.AddOld(b); err != nil {
					t.Fatal(err)
				}
			}
			d.OldRead()
			for _, b := range tc.new {
				if err := d.AddNew(b); err != nil {
					t.Fatal(err)
				}
			}
			if d.old.spilled() == d.new.spilled() {
				t.Fatalf("%s, memory %d: old spilled %v, new %v", tc.name, memory, d.old.spilled(), d.new.spilled())
			}
			var out bytes.Buffer
			sum, err := d.Finish(&out)
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			signerChanged := *sum.SignerChanged
			sum.Seconds, sum.Partitions, sum.SpillBytes, sum.SignerChanged = 0, 0, 0, nil
			if got, gotSum := out.String(), fmt.Sprintf("%+v, signers changed %d", sum, signerChanged); got != want || gotSum != wantSum {
				t.Errorf("%s, -j %d: other output (%d bytes, want %d), summary %s, want %s", tc.name, jobs, len(got), len(want), gotSum, wantSum)
			}
		}
	}
}

// TestCrossResolvedClaimsStraddle: cards hashed as read whose identities
// wait as pending claims (one identity on many cards, and pairs) are
// resolved in Finish into claims of identity and content that join the
// others: with the others just fitting the budget, the resolved ones
// spill them at Finish, and the findings are still those any number of
// parts gives in memory.
func TestCrossResolvedClaimsStraddle(t *testing.T) {
	splitFinely(t)
	var regular, pending []byte
	for i := range 1200 {
		input, line := fmt.Sprintf("dir/in-%d.ndjson", i%2), i/2+1
		// Equal contents have equal identities: a pair is one card twice,
		// the identity many cards share is on seven contents.
		id := fmt.Appendf(nil, "agent_id pair-%d", i/2)
		sum := xxh3.Hash128(id).Bytes()
		if i%3 == 0 {
			id = []byte("agent_id shared")
			sum = xxh3.Hash128(fmt.Append(id, i%7)).Bytes()
		}
		pending = appendPending(pending, pendingSum, id, sum, []byte(input), line, 0, 0)
		regular = appendClaim(regular, groupEndpoint, fmt.Appendf(nil, "https://e%d.example/rpc", i%400), id, input, line)
		regular = appendClaim(regular, groupContent, fmt.Appendf(nil, "other-%d", i%500), nil, input, line)
	}
	claims := append(slices.Clone(regular), pending...)
	c, err := NewCross(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Add(regular); err != nil {
		t.Fatal(err)
	}
	held := c.st.held
	c.Close()
	want, wantCounts, _ := crossRun(t, claims, 1<<30, report.FormatJSONL, nil, 1)
	if !strings.Contains(want, "dump.duplicate-id") || !strings.Contains(want, "dump.duplicate-card") {
		t.Fatalf("no finding of resolved claims:\n%.500s", want)
	}
	for _, memory := range []int64{8 * held, 8 * (held - 1), 4 << 10} {
		for _, jobs := range append([]int{1}, partJobs...) {
			got, counts, spilled := crossRun(t, claims, memory, report.FormatJSONL, nil, jobs)
			if !spilled {
				t.Fatalf("memory %d for %d bytes of claims before resolving: not spilled", memory, held)
			}
			if got != want || counts != wantCounts {
				t.Errorf("memory %d, -j %d: other output (%d bytes, want %d), counts %s, want %s", memory, jobs, len(got), len(want), counts, wantCounts)
			}
		}
	}
}
