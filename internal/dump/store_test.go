package dump

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestStoreKeepsEveryDigest adds 3 MiB of digests in batches of random
// size, so that the store holds several blocks in memory, or spills them
// to sorted runs (with a budget so small that the runs are merged in
// several passes): every digest comes back once, in key order, those of
// one key in the order added.
func TestStoreKeepsEveryDigest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var digests [][]byte
	for i := range 12000 {
		d := appendClaim(nil, groupID, fmt.Appendf(nil, "key-%d", r.IntN(5000)), make([]byte, r.IntN(600)), "in", i)
		digests = append(digests, d)
	}
	total := 0
	for _, d := range digests {
		total += len(d)
	}
	if total < 3<<20 {
		t.Fatalf("only %d bytes of digests", total)
	}
	want := make([]string, len(digests))
	for i, d := range digests {
		want[i] = string(d[4:]) // past the length
	}
	slices.SortStableFunc(want, func(a, b string) int {
		_, ka := digestKey([]byte(a))
		_, kb := digestKey([]byte(b))
		return bytes.Compare(ka, kb)
	})
	for _, budget := range []int64{1 << 40, 1 << 20, 16 << 10} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			dir := &spillDir{}
			defer dir.remove()
			st := newStore("t", dir, budget, byKey)
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
			runs := len(st.runs)
			m, err := st.stream()
			if err != nil {
				t.Fatal(err)
			}
			if budget == 16<<10 && (runs <= st.fanIn() || len(st.runs) > st.fanIn()) {
				t.Errorf("%d runs merged to %d, fan-in %d: want more than one pass", runs, len(st.runs), st.fanIn())
			}
			var got []string
			for {
				rec, ok, err := m.next()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				got = append(got, string(rec))
			}
			if !slices.Equal(got, want) {
				t.Errorf("%d digests back, want %d in key order", len(got), len(want))
			}
		})
	}
}

// TestEachDigestStops: a loop over the digests of several blocks may stop
// early, as Finish does on a garbled claim, without the iterator going on
// into the next block (which the runtime punishes with a panic).
func TestEachDigestStops(t *testing.T) {
	var a, b []byte
	a = appendClaim(a, groupContent, []byte("k1"), nil, "in", 1)
	b = appendClaim(b, groupContent, []byte("k2"), nil, "in", 2)
	blocks := [][]byte{a, b}
	n := 0
	for range eachDigest(blocks) {
		n++
		break
	}
	for range eachClaimAt(blocks) {
		n++
		break
	}
	if n != 2 {
		t.Errorf("%d digests seen, want 1 of each loop", n)
	}
}
