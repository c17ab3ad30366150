package dump

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/zeebo/xxh3"
)

// TestCrossSpilledGroupsSameOutput: claims that spill, in groups whose
// places and others spill too (one identity on 3,000 records, one
// endpoint, one content), give the findings byte for byte as in memory,
// in every format, the places streamed where a group's spilled.
func TestCrossSpilledGroupsSameOutput(t *testing.T) {
	claims := testClaims()
	finish := func(memory int64, format report.Format) (string, *CrossCounts, bool) {
		return finishClaims(t, claims, memory, format, nil, 1)
	}
	for _, format := range []report.Format{report.FormatJSONL, report.FormatText, report.FormatGitHub, report.FormatSARIF} {
		want, wantCounts, spilled := finish(1<<30, format)
		if spilled || len(want) < 3000*10 {
			t.Fatalf("%s in memory: spilled %v, %d bytes", format, spilled, len(want))
		}
		got, counts, spilled := finish(4<<10, format)
		if !spilled {
			t.Fatalf("%s: 4 KiB did not spill", format)
		}
		if got != want {
			t.Errorf("%s: spilled output differs: %d bytes, want %d\n%.300s\nwant\n%.300s", format, len(got), len(want), got, want)
		}
		if fmt.Sprint(counts) != fmt.Sprint(wantCounts) {
			t.Errorf("%s: counts %v, want %v", format, counts, wantCounts)
		}
	}
}

// testClaims returns claims of every group: one identity on 3,000
// records, one endpoint, one content, identities claimed once, and
// look-alike names of two origins and of one.
func testClaims() []byte {
	var claims []byte
	for i := range 3000 {
		input := fmt.Sprintf("dir/in-%d.ndjson", i%3)
		sum := fmt.Appendf(nil, "%016d", i%700)
		claims = appendClaim(claims, groupID, []byte("agent_id same"), sum, input, i+1)
		claims = appendClaim(claims, groupEndpoint, []byte("https://a.example/rpc"), fmt.Appendf(nil, "agent_id id-%d", i%5), input, i+1)
		claims = appendClaim(claims, groupContent, sum, nil, input, i+1)
		claims = appendClaim(claims, groupID, fmt.Appendf(nil, "url https://u.example/%d", i), sum, input, i+1)
		claims = appendClaim(claims, groupLookalike, fmt.Appendf(nil, "name agent %d", i%40), fmt.Appendf(nil, "o%d.example\x00agent%s%d", i%3, []string{" ", "_", "-"}[i%3], i%40), input, i+1)
		claims = appendClaim(claims, groupLookalike, fmt.Appendf(nil, "host h%d.example", i%7), fmt.Appendf(nil, "h%d.example\x00h%d.example", i%7, i%7), input, i+1)
	}
	return claims
}

// finishClaims adds claims to a Cross holding memory bytes, a batch at a
// time, and returns its output in format, its counts and whether it
// spilled; hashOnly is as Cross.hashOnly, and jobs as Cross.Jobs.
func finishClaims(t *testing.T, claims []byte, memory int64, format report.Format, hashOnly func(uint64) uint64, jobs int) (string, *CrossCounts, bool) {
	t.Helper()
	c, err := NewCross(memory)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.hashOnly, c.Jobs = hashOnly, jobs
	addClaims(t, c, claims)
	var out bytes.Buffer
	counts, err := c.Finish(format.Writer(&out, report.WriterOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), counts, c.st.spilled()
}

// addClaims adds claims to c fifty whole claims at a time, as the
// pipeline hands them over.
func addClaims(t testing.TB, c *Cross, claims []byte) {
	t.Helper()
	var batch []byte
	for rest, i := claims, 1; len(rest) > 0; i++ {
		rec, r, _ := nextDigest(rest)
		batch = append(batch, rest[:4+len(rec)]...)
		if rest = r; i%50 == 0 || len(rest) == 0 {
			if err := c.Add(batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

// TestCrossGroupHashCollisions: claims whose group hashes collide, every
// group with some others or all in one, give the findings they give
// apart, and groups of one claim that share a hash with a larger group
// find nothing.
func TestCrossGroupHashCollisions(t *testing.T) {
	claims := testClaims()
	for _, format := range []report.Format{report.FormatJSONL, report.FormatText} {
		want, wantCounts, _ := finishClaims(t, claims, 1<<30, format, nil, 1)
		for _, collide := range []func(uint64) uint64{
			func(h uint64) uint64 { return h % 3 },
			func(uint64) uint64 { return 42 },
		} {
			got, counts, _ := finishClaims(t, claims, 1<<30, format, collide, 1)
			if got != want {
				t.Errorf("%s: colliding hashes give other output: %d bytes, want %d\n%.300s\nwant\n%.300s", format, len(got), len(want), got, want)
			}
			if fmt.Sprint(counts) != fmt.Sprint(wantCounts) {
				t.Errorf("%s: counts %v, want %v", format, counts, wantCounts)
			}
		}
	}
}

// TestCrossPartsSameOutput: the claims grouped in two, three or four
// parts, each on a goroutine of its own, give the findings and counts
// byte for byte as in one, their hashes colliding or not.
func TestCrossPartsSameOutput(t *testing.T) {
	claims := testClaims()
	n := 0
	for rest := claims; len(rest) > 0; n++ {
		_, rest, _ = nextDigest(rest)
	}
	for _, format := range []report.Format{report.FormatJSONL, report.FormatText} {
		for _, collide := range []func(uint64) uint64{nil, func(h uint64) uint64 { return h % 3 }} {
			want, wantCounts, _ := finishClaims(t, claims, 1<<30, format, collide, 1)
			for jobs := 2; jobs <= 4; jobs++ {
				if p := crossParts(jobs, n); p != jobs {
					t.Fatalf("%d claims, %d jobs: %d parts", n, jobs, p)
				}
				got, counts, _ := finishClaims(t, claims, 1<<30, format, collide, jobs)
				if got != want {
					t.Errorf("%s, %d parts: other output: %d bytes, want %d\n%.300s\nwant\n%.300s", format, jobs, len(got), len(want), got, want)
				}
				if fmt.Sprint(counts) != fmt.Sprint(wantCounts) {
					t.Errorf("%s, %d parts: counts %v, want %v", format, jobs, counts, wantCounts)
				}
			}
		}
	}
}

// BenchmarkCrossFinish judges the claims of 2,000 generated cards, taken
// as --cross-card takes them from a file it can read again, each card
// once: Finish's share of --cross-card's cost.
func BenchmarkCrossFinish(b *testing.B) {
	cards := benchCards(b, "agentcard")
	v := fastvalidate.MustNew("auto")
	c := &Cross{inputs: &rereadInputs{paths: map[string]string{}, known: map[string]bool{}}}
	x := c.Extract()
	var claims []byte
	for i, card := range cards {
		claims = x(claims, report.FromResult("dir/in.ndjson", i+1, 1, int64(i)*2000, card, v.Validate(card)), v)
	}
	var size int64
	for _, card := range cards {
		size += int64(len(card))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		c, err := NewCross(1 << 30)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Add(claims); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Finish(report.FormatJSONL.Writer(io.Discard, report.WriterOptions{})); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// TestGroupCountsGrow counts hashes that outgrow the table's first size
// several times over, in a table that compares them whole and in one
// whose hashes all fall in one slot's run: each claim's slot holds its
// hash, and its count is the hash's, up to 255.
func TestGroupCountsGrow(t *testing.T) {
	for _, tc := range []struct {
		name   string
		claims int
		hashOf func(i int) uint64
	}{
		{"distinct", 5000, func(i int) uint64 { return xxh3.HashString(fmt.Sprint(i)) }},
		{"shared", 5000, func(i int) uint64 { return xxh3.HashString(fmt.Sprint(i % 700)) }},
		{"many of one", 2000, func(i int) uint64 { return xxh3.HashString(fmt.Sprint(i % 3)) }},
		{"one run", 3000, func(i int) uint64 { return uint64(i%500) << 40 }},
	} {
		var g groupCounts
		// Told of 16 claims only: the table must grow whatever it is told.
		g.reset(16, 16, nil)
		want := map[uint64]int{}
		for i := range tc.claims {
			h := tc.hashOf(i)
			g.add(h)
			want[h]++
		}
		if len(g.slots) != tc.claims {
			t.Fatalf("%s: %d slots, want %d", tc.name, len(g.slots), tc.claims)
		}
		grouped := 0
		for _, n := range want {
			if n > 1 {
				grouped += n
			}
		}
		if g.grouped != grouped {
			t.Errorf("%s: %d claims of hashes counted twice or more, want %d", tc.name, g.grouped, grouped)
		}
		if g.used != len(want) || 3*g.used > 2*len(g.table) {
			t.Errorf("%s: %d slots taken of %d, want %d at most two thirds full", tc.name, g.used, len(g.table), len(want))
		}
		for h, n := range want {
			if s := g.table[g.slot(h)]; s.key != h || int(s.n) != min(n, 255) {
				t.Fatalf("%s: hash %x in a slot of hash %x, count %d; want count %d", tc.name, h, s.key, s.n, min(n, 255))
			}
		}
		// Each claim of a hash counted twice or more has its hash's
		// number, the hashes numbered 1 up in the order of their second
		// claims; the others have none.
		numbers, seen := map[uint64]uint32{}, map[uint64]int{}
		for i := range g.slots {
			h := tc.hashOf(i)
			if seen[h]++; seen[h] == 2 {
				numbers[h] = uint32(len(numbers) + 1)
			}
		}
		for i, number := range g.slots {
			if h := tc.hashOf(i); number != numbers[h] {
				t.Fatalf("%s: claim %d of hash %x (claimed %d times) numbered %d, want %d", tc.name, i, h, want[h], number, numbers[h])
			}
		}
		if g.shared != len(numbers) {
			t.Errorf("%s: %d hashes numbered, want %d", tc.name, g.shared, len(numbers))
		}
	}
}

// TestCrossCountsWhatItDoesNotWrite: the findings --quiet and --min-level
// error leave out are counted all the same, in memory and spilled, and
// those written are the ones a full run writes, in its order.
func TestCrossCountsWhatItDoesNotWrite(t *testing.T) {
	claims := testClaims()
	run := func(memory int64, format report.Format, minLevel fastvalidate.Severity) (string, *CrossCounts) {
		t.Helper()
		c, err := NewCross(memory)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.MinLevel, c.Jobs = minLevel, 2
		// One rule at level error, so that --min-level error keeps it.
		c.Levels = map[fastvalidate.Code]fastvalidate.Severity{fastvalidate.CodeDumpSharedEndpoint: fastvalidate.SeverityError}
		addClaims(t, c, claims)
		var out bytes.Buffer
		counts, err := c.Finish(format.Writer(&out, report.WriterOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), counts
	}
	full, want := run(1<<30, report.FormatJSONL, fastvalidate.SeverityWarning)
	if want.Errors == 0 || want.Warnings == 0 {
		t.Fatalf("counts %+v: want findings at both levels", want)
	}
	var errorsOnly strings.Builder
	for _, line := range strings.SplitAfter(full, "\n") {
		if strings.Contains(line, `"dump.shared-endpoint"`) {
			errorsOnly.WriteString(line)
		}
	}
	for _, memory := range []int64{1 << 30, 4 << 10} {
		if out, counts := run(memory, report.FormatNone, fastvalidate.SeverityWarning); out != "" || fmt.Sprint(counts) != fmt.Sprint(want) {
			t.Errorf("memory %d, quiet: wrote %d bytes, counts %+v; want none, %+v", memory, len(out), counts, want)
		}
		out, counts := run(memory, report.FormatJSONL, fastvalidate.SeverityError)
		if fmt.Sprint(counts) != fmt.Sprint(want) {
			t.Errorf("memory %d, errors only: counts %+v, want %+v", memory, counts, want)
		}
		if out != errorsOnly.String() {
			t.Errorf("memory %d, errors only: wrote\n%.300s\nwant\n%.300s", memory, out, errorsOnly.String())
		}
	}
}
