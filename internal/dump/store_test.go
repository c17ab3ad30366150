package dump

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestStoreKeepsEveryDigest adds 3 MiB of digests in batches of random
// size, so that the store holds several blocks in memory, or spills them
// partway: every digest comes back once, in the order added within its
// partition.
func TestStoreKeepsEveryDigest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var digests [][]byte
	for i := range 12000 {
		d := appendClaim(nil, groupID, fmt.Appendf(nil, "key-%d", i%5000), make([]byte, r.IntN(600)), "in", i)
		digests = append(digests, d)
	}
	total := 0
	for _, d := range digests {
		total += len(d)
	}
	if total < 3<<20 {
		t.Fatalf("only %d bytes of digests", total)
	}
	for _, budget := range []int64{1 << 40, 1 << 20} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			st := newStore("t", t.TempDir(), budget)
			defer st.close()
			for rest := digests; len(rest) > 0; {
				n := min(len(rest), 1+r.IntN(300))
				var batch []byte
				for _, d := range rest[:n] {
					batch = append(batch, d...)
				}
				if err := st.add(batch); err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
			if st.spilled() != (budget < int64(total)) || st.records != int64(len(digests)) {
				t.Fatalf("spilled %v, %d records; want %v, %d", st.spilled(), st.records, budget < int64(total), len(digests))
			}
			if !st.spilled() && len(st.blocks) < 2 {
				t.Fatalf("%d blocks in memory", len(st.blocks))
			}
			parts := 1
			if st.spilled() {
				parts = Partitions
			}
			want := make([][]string, parts)
			for _, d := range digests {
				rec := d[4:] // past the length
				_, key := digestKey(rec)
				p := 0
				if st.spilled() {
					p = partition(key)
				}
				want[p] = append(want[p], string(rec))
			}
			for i := range parts {
				blocks, err := st.load(i)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for d := range eachDigest(blocks) {
					got = append(got, string(d))
				}
				if !slices.Equal(got, want[i]) {
					t.Errorf("partition %d: %d digests back, want %d in order", i, len(got), len(want[i]))
				}
			}
		})
	}
}
