package dump

import (
	"bytes"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"

	"github.com/cardscan/cardscan/internal/report"
	"github.com/zeebo/xxh3"
)

// TestSeenOthersAsMap holds seenOthers to a Go map of the same pairs:
// hashes that share a low half, or a whole hash in two groups, are told
// apart, and the set grows past the size it was made for.
func TestSeenOthersAsMap(t *testing.T) {
	var mem blockSource
	var s seenOthers
	s.reset(&mem, 4)
	want := map[seenSlot]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		group := uint32(r.IntN(50) + 1)
		h := xxh3.Uint128{Lo: r.Uint64N(300), Hi: r.Uint64N(3)}
		if i%7 == 0 {
			h.Lo = 0 // one low half for many hashes
		}
		k := seenSlot{lo: h.Lo, hi: h.Hi, group: group}
		if got := s.add(group, h); got == want[k] {
			t.Fatalf("add(%d, %v) = %v, with it added before: %v", group, h, got, want[k])
		}
		want[k] = true
	}
	if s.n != len(want) {
		t.Errorf("the set holds %d, want %d", s.n, len(want))
	}
}

// TestCrossRoomsOutsideHeap checks that the rooms for a chunk's claims are
// made outside the heap, no more than maxOutsideRooms of them, and freed
// by Finish.
func TestCrossRoomsOutsideHeap(t *testing.T) {
	if !outsideHeap {
		t.Skip("no memory outside the heap on this system")
	}
	c, err := NewCross(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.ClaimRoom = 4096
	for range maxOutsideRooms + 3 {
		if r := c.room(); len(r) != 0 || cap(r) != c.ClaimRoom {
			t.Fatalf("a room of length %d and capacity %d, want 0 and %d", len(r), cap(r), c.ClaimRoom)
		}
	}
	if got, want := c.rooms.held(), int64(maxOutsideRooms*c.ClaimRoom); got != want {
		t.Errorf("%d bytes of rooms outside the heap, want %d", got, want)
	}
	if _, err := c.Finish(report.FormatNone.Writer(io.Discard, report.WriterOptions{})); err != nil {
		t.Fatal(err)
	}
	if got := c.rooms.held(); got != 0 {
		t.Errorf("%d bytes of rooms outside the heap after Finish, want 0", got)
	}
}

// TestCrossRoomsOutliveClose checks that a room stays writable after
// Close: a run that ends early closes its Cross while its workers still
// judge the chunks in flight and write their claims into their rooms,
// which, unmapped, faulted.
func TestCrossRoomsOutliveClose(t *testing.T) {
	c, err := NewCross(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	c.ClaimRoom = 4096
	room := c.room()
	c.Close()
	defer c.rooms.free()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("writing claims into a room after Close: %v", r)
		}
	}()
	room = append(room, bytes.Repeat([]byte{'c'}, c.ClaimRoom)...)
	if room[c.ClaimRoom-1] != 'c' {
		t.Error("the room does not hold what was written")
	}
}

// TestFinishTablesOutsideHeap checks that Finish makes its count tables,
// lists and sets outside the heap: what it allocates there for claims
// in memory, groups and findings, stays under what the count table alone
// took on the heap before.
func TestFinishTablesOutsideHeap(t *testing.T) {
	if !outsideHeap {
		t.Skip("no memory outside the heap on this system")
	}
	var claims []byte
	for range 4 {
		claims = append(claims, testClaims()...)
	}
	c, err := NewCross(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Jobs = 1
	addClaims(t, c, claims)
	n := c.hashes.n
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	counts, err := c.Finish(report.FormatNone.Writer(io.Discard, report.WriterOptions{}))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(counts.Rules) == 0 {
		t.Fatal("no findings: the claims group nothing")
	}
	// The claims' hashes, about 24,000 distinct of 72,000, took a table
	// of 32,768 slots of 16 bytes.
	const table = 32768 * 16
	if got := after.TotalAlloc - before.TotalAlloc; got >= table {
		t.Errorf("Finish allocated %d bytes on the heap for %d claims, want under %d", got, n, table)
	}
}

// TestSparePoolLends checks that a spare pool lends cleared pieces of its
// blocks, apart and on cache lines, that outsideSlice takes them before
// making a block of its own, and that it makes one when none is left.
func TestSparePoolLends(t *testing.T) {
	blk := bytes.Repeat([]byte{0xff}, 1024)
	pool := &sparePool{blocks: [][]byte{blk[:0]}}
	m := blockSource{outside: true, spare: pool}
	a := outsideSlice[uint64](&m, 10)[:10]
	b := outsideSlice[uint32](&m, 3)[:3]
	start := uintptr(unsafe.Pointer(&blk[0]))
	for name, p := range map[string]uintptr{"first": uintptr(unsafe.Pointer(&a[0])), "second": uintptr(unsafe.Pointer(&b[0]))} {
		if p < start || p >= start+uintptr(len(blk)) || (p-start)%64 != 0 {
			t.Errorf("the %s piece at %d of a block at %d, want a cache line of it", name, p, start)
		}
	}
	if uintptr(unsafe.Pointer(&b[0]))-uintptr(unsafe.Pointer(&a[0])) < 80 {
		t.Error("the pieces overlap")
	}
	for i := range a {
		if a[i] != 0 {
			t.Fatalf("a piece not cleared: %x", a)
		}
	}
	if len(m.made) != 0 {
		t.Errorf("%d blocks made with the pool's left", len(m.made))
	}
	if _, ok := pool.take(1024); ok {
		t.Error("the pool lent more than it had")
	}
	c := outsideSlice[uint64](&m, 200)
	if cap(c) != 200 || outsideHeap && len(m.made) != 1 {
		t.Errorf("past the pool: capacity %d, %d blocks made, want 200 and 1", cap(c), len(m.made))
	}
	m.free()
}
