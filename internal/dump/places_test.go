package dump

import (
	"math/rand/v2"
	"testing"
)

// TestPlacesAsMap checks the table of places against a map: halves put
// again replace their place, the table grows through several sizes, and
// halves never put, 0 among them, are not found.
func TestPlacesAsMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var p places
	want := map[uint64]uint64{}
	if _, ok := p.get(0); ok {
		t.Fatal("an empty table found 0")
	}
	var halves []uint64
	for i := range 50_000 {
		half := rng.Uint64()
		switch {
		case i%7 == 0 && len(halves) > 0:
			half = halves[rng.IntN(len(halves))] // put again
		case i%1000 == 0:
			half = uint64(i) // small halves, 0 first
		}
		halves = append(halves, half)
		at := uint64(i)<<32 | 4
		p.put(half, at)
		want[half] = at
	}
	if p.n != len(want) {
		t.Errorf("%d places held, want %d", p.n, len(want))
	}
	for half, at := range want {
		if got, ok := p.get(half); !ok || got != at {
			t.Fatalf("half %#x: at %#x, %v; want %#x", half, got, ok, at)
		}
	}
	for range 10_000 {
		half := rng.Uint64()
		if _, put := want[half]; put {
			continue
		}
		if at, ok := p.get(half); ok {
			t.Fatalf("half %#x never put found at %#x", half, at)
		}
	}
	p.reset()
	if _, ok := p.get(halves[0]); ok {
		t.Fatal("a reset table found a half")
	}
}
