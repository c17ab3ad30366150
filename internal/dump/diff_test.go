package dump

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/zeebo/xxh3"
)

// syntheticDigests returns n digests in batches of perBlock, of keys taken
// again and again (n keys among distinct, numbered from first), each line its own, so that the
// digest kept for a key tells which of its records it was. Every third
// is valid; the content hash of one in changeEvery (0: none) depends on
// salt, so that two calls with other salts differ in those.
func syntheticDigests(n, first, distinct, perBlock, changeEvery int, salt string) (blocks [][]byte, records int64) {
	x := &Extractor{}
	var block []byte
	for i := range n {
		k := first + (i*7919)%distinct
		key := fmt.Sprintf("https://agent-%d.example/card", k)
		kind := KindURL
		if k%4 == 0 {
			kind, key = KindAgentID, fmt.Sprintf("agent-%d", k)
		}
		x.key = []byte(key)
		d := &Digest{Kind: kind, Profile: "agentcard", Input: "dump.ndjson", Line: i + 1, Valid: i%3 != 0}
		d.Sum = xxh3.Hash128([]byte(key)).Bytes()
		if changeEvery > 0 && i%changeEvery == 0 {
			d.Sum = xxh3.Hash128([]byte(key + salt)).Bytes()
		}
		d.Raw = d.Sum
		block = x.appendDigest(block, d)
		if (i+1)%perBlock == 0 || i+1 == n {
			blocks = append(blocks, block)
			block = nil
		}
		records++
	}
	return blocks, records
}

// differWithOld returns a Differ, closed when the test ends, that holds
// the digest batches as the old dump.
func differWithOld(t *testing.T, batches [][]byte) *Differ {
	t.Helper()
	d, err := NewDiffer(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	for _, b := range batches {
		if err := d.AddOld(b); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// TestIndexInParts checks that index, made in parts on goroutines, lists
// the last digest of each key, sorted by hash and key, as one sort of
// every digest does, and counts the same superseded records: the
// comparison's output depends on it.
func TestIndexInParts(t *testing.T) {
	batches, records := syntheticDigests(40_000, 0, 23_000, 997, 0, "")
	d := differWithOld(t, batches)
	blocks := d.old.blocks
	if len(d.oldKeys) != int(records) {
		t.Fatalf("%d digests noted of %d added", len(d.oldKeys), records)
	}
	// The list one sort makes, computed without index's code.
	last := map[string][]byte{}
	for rec := range eachDigest(blocks) {
		_, key := digestKey(rec)
		last[string(key)] = rec
	}
	type entry struct {
		hash     uint64
		key, rec []byte
	}
	var want []entry
	for key, rec := range last {
		want = append(want, entry{xxh3.HashString(key), []byte(key), rec})
	}
	slices.SortFunc(want, func(a, b entry) int {
		if c := cmp.Compare(a.hash, b.hash); c != 0 {
			return c
		}
		return bytes.Compare(a.key, b.key)
	})
	wantDups := records - int64(len(want))
	for _, jobs := range []int{1, 2, 3, 4, 7} {
		if parts := indexParts(jobs, records); parts != jobs {
			t.Fatalf("jobs %d: index made %d parts of %d records; the test wants one per job", jobs, parts, records)
		}
		var dups int64
		got := index(blocks, slices.Clone(d.oldKeys), jobs, nil, &dups)
		if dups != wantDups {
			t.Errorf("jobs %d: %d superseded records, want %d", jobs, dups, wantDups)
		}
		if len(got) != len(want) {
			t.Fatalf("jobs %d: %d keys listed, want %d", jobs, len(got), len(want))
		}
		for i := range want {
			key, rec := got[i].key(blocks), got[i].rec(blocks)
			if got[i].hash != want[i].hash || !bytes.Equal(key, want[i].key) || !bytes.Equal(rec, want[i].rec) {
				t.Fatalf("jobs %d: entry %d is %s (%q), want %s (%q)", jobs, i, key, rec, want[i].key, want[i].rec)
			}
		}
	}
}

// TestSortKeyedAsComparison checks that sortKeyed, which deals entries
// into buckets by hash, orders them as the comparison sort does: by hash,
// then key, then arrival, with keys taken again and hashes shared by
// other keys, as a collision would, in buckets small and large.
func TestSortKeyedAsComparison(t *testing.T) {
	batches, _ := syntheticDigests(6_000, 0, 2_500, 997, 0, "")
	d := differWithOld(t, batches)
	blocks := d.old.blocks
	defer func(m, i int) { minBucketSort, maxInsertionSort = m, i }(minBucketSort, maxInsertionSort)
	cases := []struct {
		name string
		hash func(h uint64) uint64 // the hash each entry is given
		n    int
	}{
		{"as hashed", func(h uint64) uint64 { return h }, 6_000},
		{"few hashes", func(h uint64) uint64 { return h % 97 }, 6_000},
		{"spread few hashes", func(h uint64) uint64 { return (h % 997) << 50 }, 6_000},
		{"one hash", func(uint64) uint64 { return 42 }, 500},
		{"hashes high and low", func(h uint64) uint64 { return h | 1<<63 }, 6_000},
		{"small", func(h uint64) uint64 { return h }, 70},
		{"smaller than a bucket sort", func(h uint64) uint64 { return h }, 20},
	}
	for _, c := range cases {
		for _, limits := range [][2]int{{64, 32}, {2, 1}, {2, 1 << 30}} {
			minBucketSort, maxInsertionSort = limits[0], limits[1]
			list := slices.Clone(d.oldKeys[:c.n])
			for i := range list {
				list[i].hash = c.hash(list[i].hash)
			}
			want := slices.Clone(list)
			sortKeyedFunc(want, blocks)
			sortKeyed(list, blocks)
			for i := range want {
				if list[i] != want[i] {
					t.Fatalf("%s, limits %v: entry %d is %+v, want %+v", c.name, limits, i, list[i], want[i])
				}
			}
		}
	}
}

// TestCompareInPartsSameOutput diffs two dumps of synthetic digests, keys
// added, removed, changed, broken and taken again, spilled to sorted files
// (compareSorted, which streams them in key order) and in memory with one
// job and with several: the records and counts must be the same, byte for
// byte, as the comparison in memory is split by hash and its parts merged.
func TestCompareInPartsSameOutput(t *testing.T) {
	oldBlocks, _ := syntheticDigests(30_000, 0, 20_000, 1_000, 11, "old")
	newBlocks, _ := syntheticDigests(36_000, 3_000, 24_000, 1_000, 11, "new")
	run := func(jobs int, memory int64) (string, DiffSummary) {
		d, err := NewDiffer(memory)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		d.Jobs = jobs
		for _, b := range oldBlocks {
			if err := d.AddOld(b); err != nil {
				t.Fatal(err)
			}
		}
		if prior, _ := d.OldRead(); (prior == nil) != (memory < 1<<20) {
			t.Fatalf("memory %d: old dump held in memory: %v", memory, prior != nil)
		}
		for _, b := range newBlocks {
			if err := d.AddNew(b); err != nil {
				t.Fatal(err)
			}
		}
		var out bytes.Buffer
		sum, err := d.Finish(&out)
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), sum
	}
	want, wantSum := run(1, 64<<10)
	if wantSum.Partitions < 2 {
		t.Fatalf("the reference run did not spill: %+v", wantSum)
	}
	// What only a spilled run has.
	wantSum.Partitions, wantSum.SpillBytes = 1, 0
	if wantSum.Added == 0 || wantSum.Removed == 0 || wantSum.Broke == 0 || wantSum.Changed == 0 || wantSum.Unchanged == 0 || wantSum.DuplicateKeys == 0 {
		t.Fatalf("the dumps do not exercise every path: %+v", wantSum)
	}
	for _, jobs := range []int{1, 2, 3, 5} {
		got, sum := run(jobs, 1<<30)
		if got != want {
			t.Errorf("jobs %d: output differs from the spilled run's (%d bytes, want %d)", jobs, len(got), len(want))
		}
		sum.Seconds, wantSum.Seconds = 0, 0
		if fmt.Sprint(sum) != fmt.Sprint(wantSum) {
			t.Errorf("jobs %d: summary %+v, want %+v", jobs, sum, wantSum)
		}
	}
}
