package dump

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"sync"
	"unsafe"
)

// store holds encoded digests in memory up to budget bytes. Past that it
// sorts them by their sort key and writes them to a temporary file as one
// sorted run, and starts again; stream merges the runs. An external sort
// rather than hash partitions loaded whole: no choice of keys, however
// skewed or repeated, makes any part of the work hold more than the
// budget, since a merge holds one digest per run. Digests of one sort key
// keep their order of arrival, so that the last of a key's records stays
// last.
type store struct {
	name   string    // "old", "new", "claims": part of the files' names
	dir    *spillDir // shared by a run's stores
	budget int64
	// sortKey is what the store's digests are ordered by: rank, then key
	// in byte order.
	sortKey func(rec []byte) (rank byte, key []byte)
	// blocks hold the digests in memory, each block whole digests. One
	// buffer grown by append copied all that it held at each doubling, in
	// one memmove that page-faulted into fresh memory and that the garbage
	// collector, stopping goroutines for its stack scans, waited on: a
	// fifth of diff's CPU on the make perf dumps.
	blocks  [][]byte
	free    [][]byte // emptied blocks, reused after a run is written
	held    int64    // bytes in blocks
	runs    []*os.File
	entries []sortEntry
	records int64
	bytes   int64 // of digests added: the disk a spilled store takes
	// mem makes the blocks: outside the Go heap for --cross-card's claims
	// (see blockSource).
	mem blockSource
}

func newStore(name string, dir *spillDir, budget int64, sortKey func([]byte) (byte, []byte)) *store {
	return &store{name: name, dir: dir, budget: budget, sortKey: sortKey}
}

// byKey is the sort key of diff's digests: their key alone.
func byKey(rec []byte) (byte, []byte) {
	_, key := digestKey(rec)
	return 0, key
}

// blockSize is the least size of a store's block of digests in memory.
const blockSize = 1 << 20

// add adds b, digests back to back as Extractor.Append writes them.
func (s *store) add(b []byte) error {
	n := 0
	for rest := b; ; {
		_, r, ok := nextDigest(rest)
		if !ok {
			break
		}
		n++
		rest = r
	}
	return s.addCounted(b, n)
}

// addCounted is add, for a caller that has counted b's digests, n.
func (s *store) addCounted(b []byte, n int) error {
	s.hold(b, n)
	if s.overBudget() {
		return s.spill()
	}
	return nil
}

// hold copies b, n digests, to the blocks, and returns where it starts:
// the block's index in the high 32 bits, the offset in it in the low, as
// claimAt reads. The caller spills the store when it is over its budget.
func (s *store) hold(b []byte, n int) (pos uint64) {
	s.bytes += int64(len(b))
	s.records += int64(n)
	last := len(s.blocks) - 1
	if last < 0 || cap(s.blocks[last])-len(s.blocks[last]) < len(b) {
		var blk []byte
		if n := len(s.free); n > 0 && cap(s.free[n-1]) >= len(b) {
			blk, s.free = s.free[n-1], s.free[:n-1]
		} else {
			blk = s.mem.block(max(blockSize, len(b)))
		}
		s.blocks = append(s.blocks, blk)
		last++
	}
	pos = uint64(last)<<32 | uint64(len(s.blocks[last]))
	s.blocks[last] = append(s.blocks[last], b...)
	s.held += int64(len(b))
	return pos
}

// overBudget reports whether the digests in memory exceed the budget.
func (s *store) overBudget() bool { return s.held > s.budget }

func (s *store) spilled() bool { return len(s.runs) > 0 }

// spill writes the digests in memory to a sorted run.
func (s *store) spill() error {
	if s.held == 0 {
		return nil
	}
	f, err := s.dir.create(s.name)
	if err != nil {
		return err
	}
	s.runs = append(s.runs, f)
	w := bufio.NewWriterSize(f, runBufSize)
	var frame [4]byte
	for _, e := range s.sorted() {
		binary.LittleEndian.PutUint32(frame[:], uint32(len(e.rec)))
		w.Write(frame[:])
		w.Write(e.rec)
	}
	if err := w.Flush(); err != nil {
		return spillErr(f.Name(), err)
	}
	for _, b := range s.blocks {
		s.free = append(s.free, b[:0])
	}
	s.blocks, s.held = s.blocks[:0], 0
	clear(s.entries)
	return nil
}

// sortEntry is a digest in memory, with its sort key and place of arrival.
type sortEntry struct {
	rank byte
	seq  int
	key  []byte
	rec  []byte
}

func compareEntries(a, b sortEntry) int {
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// sorted returns the digests in memory in sort order.
func (s *store) sorted() []sortEntry {
	list := s.entries[:0]
	for rec := range eachDigest(s.blocks) {
		rank, key := s.sortKey(rec)
		list = append(list, sortEntry{rank: rank, seq: len(list), key: key, rec: rec})
	}
	slices.SortFunc(list, compareEntries)
	s.entries = list
	return list
}

// runBufSize is the buffer of each run read or written; a merge reads at
// most fanIn runs at once.
const runBufSize = 32 << 10

// fanIn is how many runs one merge reads at once: their buffers take at
// most half the budget.
func (s *store) fanIn() int {
	return int(min(max(s.budget/(2*runBufSize), 2), 256))
}

// stream returns every digest in sort order, those of one sort key in the
// order they were added. A digest stream returns is valid until its next
// call.
func (s *store) stream() (*merger, error) {
	if !s.spilled() {
		return &merger{mem: s.sorted()}, nil
	}
	if err := s.spill(); err != nil {
		return nil, err
	}
	// Merge consecutive runs fanIn at a time, each merge's run in place of
	// those it merged, so that runs stay in order of arrival, a pass over
	// all of them at a time, until one merge reads them all: each digest
	// is copied once per pass, and the passes are the log to the base
	// fanIn of the number of runs.
	for fan := s.fanIn(); len(s.runs) > fan; {
		var merged []*os.File
		for i := 0; i < len(s.runs); i += fan {
			if i+1 == len(s.runs) {
				merged = append(merged, s.runs[i])
				break
			}
			f, err := s.mergeRuns(s.runs[i:min(i+fan, len(s.runs))])
			if err != nil {
				s.runs = append(merged, s.runs[i:]...)
				return nil, err
			}
			merged = append(merged, f)
		}
		s.runs = merged
	}
	return s.openRuns(s.runs)
}

// mergeRuns merges runs into a new one, and removes them.
func (s *store) mergeRuns(runs []*os.File) (*os.File, error) {
	m, err := s.openRuns(runs)
	if err != nil {
		return nil, err
	}
	f, err := s.dir.create(s.name)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, runBufSize)
	var frame [4]byte
	for {
		rec, ok, err := m.next()
		if err != nil || !ok {
			if err == nil {
				err = w.Flush()
			}
			for _, r := range runs {
				r.Close()
				os.Remove(r.Name())
			}
			if err != nil {
				f.Close()
				os.Remove(f.Name())
				return nil, spillErr(f.Name(), err)
			}
			return f, nil
		}
		binary.LittleEndian.PutUint32(frame[:], uint32(len(rec)))
		w.Write(frame[:])
		w.Write(rec)
	}
}

// openRuns returns a merger reading runs from their starts.
func (s *store) openRuns(runs []*os.File) (*merger, error) {
	m := &merger{}
	for i, f := range runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, spillErr(f.Name(), err)
		}
		r := &runReader{f: f, r: bufio.NewReaderSize(f, runBufSize), seq: i, sortKey: s.sortKey}
		ok, err := r.next()
		if err != nil {
			return nil, err
		}
		if ok {
			m.runs = append(m.runs, r)
		}
	}
	heap.Init(m)
	return m, nil
}

// merger yields digests in sort order: from memory, or merged from runs.
type merger struct {
	mem  []sortEntry
	runs []*runReader // a heap
	last *runReader   // whose digest next returned last, to be advanced
}

// next returns the next digest, valid until the next call.
func (m *merger) next() ([]byte, bool, error) {
	if m.runs == nil && m.last == nil {
		if len(m.mem) == 0 {
			return nil, false, nil
		}
		rec := m.mem[0].rec
		m.mem = m.mem[1:]
		return rec, true, nil
	}
	if m.last != nil {
		ok, err := m.last.next()
		if err != nil {
			return nil, false, err
		}
		if ok {
			heap.Fix(m, 0)
		} else {
			heap.Pop(m)
		}
		m.last = nil
	}
	if len(m.runs) == 0 {
		return nil, false, nil
	}
	m.last = m.runs[0]
	return m.last.rec, true, nil
}

func (m *merger) Len() int { return len(m.runs) }
func (m *merger) Less(i, j int) bool {
	a, b := m.runs[i], m.runs[j]
	return compareEntries(sortEntry{rank: a.rank, seq: a.seq, key: a.key}, sortEntry{rank: b.rank, seq: b.seq, key: b.key}) < 0
}
func (m *merger) Swap(i, j int) { m.runs[i], m.runs[j] = m.runs[j], m.runs[i] }
func (m *merger) Push(x any)    { m.runs = append(m.runs, x.(*runReader)) }
func (m *merger) Pop() any {
	r := m.runs[len(m.runs)-1]
	m.runs = m.runs[:len(m.runs)-1]
	return r
}

// runReader reads a sorted run back, a digest at a time.
type runReader struct {
	f       *os.File
	r       *bufio.Reader
	seq     int // the run's place among the runs merged: earlier runs hold earlier digests
	sortKey func([]byte) (byte, []byte)
	rec     []byte
	rank    byte
	key     []byte
}

var errGarbledRun = errors.New("garbled digest")

func (r *runReader) next() (bool, error) {
	var frame [4]byte
	if _, err := io.ReadFull(r.r, frame[:]); err == io.EOF {
		return false, nil
	} else if err != nil {
		return false, spillErr(r.f.Name(), err)
	}
	n := int(binary.LittleEndian.Uint32(frame[:]))
	r.rec = slices.Grow(r.rec[:0], n)[:n]
	if _, err := io.ReadFull(r.r, r.rec); err != nil {
		return false, spillErr(r.f.Name(), fmt.Errorf("%w: %w", errGarbledRun, err))
	}
	r.rank, r.key = r.sortKey(r.rec)
	return true, nil
}

// eachDigest yields the digests of blocks.
func eachDigest(blocks [][]byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for _, b := range blocks {
			for {
				rec, rest, ok := nextDigest(b)
				if !ok {
					break
				}
				if !yield(rec) {
					return
				}
				b = rest
			}
		}
	}
}

// eachClaimAt yields the digests of blocks with their positions, as
// claimAt reads them.
func eachClaimAt(blocks [][]byte) iter.Seq2[[]byte, uint64] {
	return func(yield func([]byte, uint64) bool) {
		for i, b := range blocks {
			for off := 0; ; {
				rec, _, ok := nextDigest(b[off:])
				if !ok {
					break
				}
				if !yield(rec, uint64(i)<<32|uint64(off)) {
					return
				}
				off += 4 + len(rec)
			}
		}
	}
}

// reset empties the store for reuse.
func (s *store) reset() {
	for _, f := range s.runs {
		f.Close()
		os.Remove(f.Name())
	}
	for _, b := range s.blocks {
		s.free = append(s.free, b[:0])
	}
	s.runs, s.blocks, s.held = s.runs[:0], s.blocks[:0], 0
	s.records, s.bytes = 0, 0
}

// close removes the runs.
func (s *store) close() {
	for _, f := range s.runs {
		f.Close()
		os.Remove(f.Name())
	}
	s.runs, s.blocks, s.free, s.entries = nil, nil, nil, nil
	s.mem.free()
}

// blockSource makes the blocks that claims and digests are held in. With
// outside set, it makes them outside the Go heap where the system allows
// (newOutsideBlock), and frees those when asked, and only then.
//
// --cross-card's claims are never garbage before the run ends, yet each
// megabyte of them that the heap held brought the collector's next cycle
// nearer: the run collected five times on the make perf dump where plain
// validation collected none, and while a collection marks, every worker
// pays its write barriers and shares the caches with it: validation
// itself took about 4% more samples than in a plain run, and without
// collections (GOGC=off) no more (docs/performance.md).
type blockSource struct {
	outside bool
	made    [][]byte // the blocks made outside the heap, to free
	// spare, when set, is drawn on first by outsideSlice: memory that
	// another source owns and frees.
	spare *sparePool
}

// sparePool lends the blocks of a store that no longer needs them (the
// pending claims', once resolved) to Finish's parts for their tables: each
// page of a fresh block costs a page fault (the kernel's zeroing, its
// accounting), a page of these has been paid for, and clearing it costs
// less. The store keeps, and frees, its blocks. Its parts take from it at
// once, so it locks.
type sparePool struct {
	mu     sync.Mutex
	blocks [][]byte // each lent up to its length
}

// take returns size bytes of a block, cleared, or ok false when no block
// has that many left.
func (p *sparePool) take(size int) (b []byte, ok bool) {
	// Each piece starts on a cache line: a table's slots are then
	// aligned as Go's own allocations would be, and no two parts write
	// to one line.
	if p == nil {
		return nil, false
	}
	size = (size + 63) &^ 63
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, blk := range p.blocks {
		if n := len(blk); cap(blk)-n >= size {
			p.blocks[i] = blk[:n+size]
			b = blk[n : n+size : n+size]
			clear(b)
			return b, true
		}
	}
	return nil, false
}

// block returns an empty block of capacity size.
func (m *blockSource) block(size int) []byte {
	if !m.outside {
		return make([]byte, 0, size)
	}
	blk, ok := newOutsideBlock(size)
	if ok {
		m.made = append(m.made, blk)
	}
	return blk
}

// free returns the blocks made outside the heap to the system: nothing may
// read them after.
func (m *blockSource) free() {
	for _, blk := range m.made {
		freeOutsideBlock(blk)
	}
	m.made = nil
}

// outsideSlice returns an empty slice of capacity n of T, a type that
// holds no pointer, that m makes as it makes blocks: outside the Go heap
// when m.outside and the system allows, in fresh zeroed memory. Finish's
// tables and lists and the room for a chunk's claims are made there, so
// that the heap of a --cross-card run stays as small as a plain run's,
// which never reaches the collector's first goal (docs/performance.md).
func outsideSlice[T any](m *blockSource, n int) []T {
	size := n * int(unsafe.Sizeof(*new(T)))
	if !m.outside || size == 0 {
		return make([]T, 0, n)
	}
	blk, ok := m.spare.take(size)
	if !ok {
		if blk, ok = newOutsideBlock(size); !ok {
			return make([]T, 0, n)
		}
		m.made = append(m.made, blk)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(blk[:size]))), n)[:0]
}

// held is the size of the blocks made outside the heap and not yet freed.
func (m *blockSource) held() int64 {
	var n int64
	for _, blk := range m.made {
		n += int64(cap(blk))
	}
	return n
}
