package pipeline

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/mediatype"
)

// A regular, uncompressed NDJSON file of mapMinSize bytes or more, judged
// by two workers or more, is mapped rather than read: its chunks are
// views of the mapping, so the reader copies nothing and touches only the
// pages it cuts at, and each worker finds its own chunk's lines
// (lineChain). At two workers the reader's copy and line counting were
// serial work beside both workers (docs/performance.md). A smaller file
// gains nothing measurable, and the read path sizes its one chunk to it.
//
// mapMinSize is a variable so that tests can map small files (or none).
var mapMinSize = 1 << 20

const (
	// mapMaxSize bounds the address space one input takes.
	mapMaxSize = 1 << 40
	// mapReleaseStep is how far the writer gets past the pages it last
	// let go of before it lets go of the next: what a mapped input adds
	// to the resident set beyond the chunks in flight.
	mapReleaseStep = 4 << 20
)

// errShrank is what a fault on a mapped file's page means: the file was
// cut short while it was judged.
const errShrank = "the file was truncated while it was read"

// errPageUnreadable is what a fault on a page the file still has means
// when reading that page through the file fails too: the storage could
// not give it (an I/O error, as read(2) would have returned).
const errPageUnreadable = "a page of the file could not be read: "

// mapping is a file's bytes mapped read-only, shared by the chunks that
// view it and unmapped when the last of them is recycled.
type mapping struct {
	data  []byte
	f     *os.File // kept open to tell whether it shrank
	refs  atomic.Int32
	chain lineChain
	// released is how many bytes from the start the writer has let go
	// of the pages of.
	released int
	// ioErr is set when a fault was the storage's, not a truncation.
	ioErr atomic.Pointer[error]
}

func (m *mapping) hold() { m.refs.Add(1) }

func (m *mapping) release() {
	if m.refs.Add(-1) == 0 {
		unmapFile(m.data)
		m.data = nil
		m.f.Close()
	}
}

// judged lets go of the pages before end once the writer is a step past
// the last it let go of; pages are reclaimable page cache either way,
// but the resident set then stays within the chunks in flight.
func (m *mapping) judged(end int64) {
	page := int64(os.Getpagesize())
	end -= end % page
	if end-int64(m.released) >= mapReleaseStep {
		dropPages(m.data[m.released:end])
		m.released = int(end)
	}
}

// size is the file's size now, or the mapping's if it cannot be told.
func (m *mapping) size() int64 {
	if fi, err := m.f.Stat(); err == nil {
		return fi.Size()
	}
	return int64(len(m.data))
}

// catchFault, deferred by a function that reads m's bytes, stores in *at
// the offset of the page a fault on them hit (faultOffset) and returns
// normally; any other panic goes on.
func (m *mapping) catchFault(at *int64) {
	if r := recover(); r != nil {
		off, ok := m.faultOffset(r)
		if !ok {
			panic(r)
		}
		*at = off
	}
}

// faultOffset returns the offset in the mapping of the page of the fault
// that r, a recovered panic, reports, or false when r is no fault in the
// mapping.
func (m *mapping) faultOffset(r any) (int64, bool) {
	e, ok := r.(interface{ Addr() uintptr })
	if !ok || len(m.data) == 0 {
		return 0, false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))
	addr := e.Addr()
	if addr < base || addr-base >= uintptr(len(m.data)) {
		return 0, false
	}
	// Where in its page the fault hit depends on how the bytes were
	// scanned, and the bytes before it in the page are gone as well.
	off := int64(addr - base)
	off -= off % int64(os.Getpagesize())
	if off < m.size() {
		// A page the file still has: either the storage failed to give
		// it, which reading it through the file tells, or the fault is the
		// program's own (a write into the read-only mapping).
		var one [1]byte
		_, err := m.f.ReadAt(one[:], off)
		if err == nil || err == io.EOF {
			return 0, false
		}
		m.ioErr.CompareAndSwap(nil, &err)
	}
	return off, true
}

// lineChain numbers the lines of a mapped input without the reader
// counting them: the worker of each chunk publishes the chunk's count of
// newlines, in any order, and a chunk's first line is known once every
// chunk before it has published. A run that shows line numbers has each
// worker count its chunk first and wait for its first line (a short wait:
// counting runs at memory speed and chunks are taken in order); a run
// that shows none (lazyLines) counts the lines as it judges them and
// publishes at the end, so that no worker waits for another and no pass
// over the bytes precedes the judging.
type lineChain struct {
	mu   sync.Mutex
	cond sync.Cond
	// slots hold, by chunk number modulo len(slots), what each chunk
	// published and, once it is known, its first line. A slot is used
	// again only by a chunk len(slots) later, which cannot be in flight
	// before the chunk that used it is written and recycled, by which
	// time that chunk and every one before it have published.
	slots []chainSlot
	// settled is the first chunk whose first line is not yet known for
	// want of a count before it, and line that chunk's first line.
	settled, line int
}

type chainSlot struct{ chunk, count, first int }

// init readies the chain for at most inFlight chunks in flight at once.
func (lc *lineChain) init(inFlight int) {
	lc.cond.L = &lc.mu
	lc.slots = make([]chainSlot, inFlight)
	for i := range lc.slots {
		lc.slots[i].chunk = -1
	}
	lc.line = 1
}

// publish records that chunk i holds count newlines.
func (lc *lineChain) publish(i, count int) {
	lc.mu.Lock()
	n := len(lc.slots)
	lc.slots[i%n] = chainSlot{chunk: i, count: count}
	moved := false
	for s := &lc.slots[lc.settled%n]; s.chunk == lc.settled; s = &lc.slots[lc.settled%n] {
		s.first = lc.line
		lc.line += s.count
		lc.settled++
		moved = true
	}
	lc.mu.Unlock()
	if moved {
		lc.cond.Broadcast()
	}
}

// first returns the first line of chunk i, waiting for every chunk before
// it to publish. The caller holds chunk i, so its slot is still its own.
func (lc *lineChain) first(i int) int {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	for lc.settled < i {
		lc.cond.Wait()
	}
	if lc.settled == i {
		return lc.line
	}
	return lc.slots[i%len(lc.slots)].first
}

// mapInput maps f when the input is a regular, uncompressed NDJSON file
// large enough to gain from it, and returns nil (the file untouched) when
// it is to be read.
func (p *pipeline) mapInput(in Input, f any) (m *mapping) {
	osf, ok := f.(*os.File)
	// One worker gains nothing: the reader's copy runs beside it, on a
	// core of its own, and leaves the bytes in the cache for it, so a
	// mapping made -j 1 slower (docs/performance.md).
	if !ok || in.Framing == FramingJSON || p.cfg.Jobs < 2 {
		return nil
	}
	size := regularSize(osf)
	if size < int64(p.mapMinSize) || size > mapMaxSize || int64(int(size)) != size {
		return nil
	}
	data, err := mapFile(osf, size)
	if err != nil {
		return nil
	}
	m = &mapping{data: data, f: osf}
	m.chain.init(cap(p.free))
	defer func() {
		// A fault here (the file shrank before the framing was told)
		// leaves it to the read path, which reads what is there.
		if r := recover(); r != nil {
			if _, fault := m.faultOffset(r); !fault {
				panic(r)
			}
			unmapFile(data)
			m = nil
		}
	}()
	// A UTF-16 or UTF-32 file is left to the read path, which refuses it.
	if isZstd(data) || bytes.HasPrefix(data, gzipMagic) || mediatype.CheckEncoding(data[:min(len(data), 4)]) != nil || !p.ndjson(in, data) {
		unmapFile(data)
		return nil
	}
	return m
}

// ndjson tells a mapped input's framing as detect does a read one's.
func (p *pipeline) ndjson(in Input, data []byte) bool {
	if in.Framing == FramingNDJSON {
		return true
	}
	head := data[:min(len(data), p.cfg.MaxRecord+1)]
	framing, ok := framingOf(head, len(head) == len(data) && len(head) <= p.cfg.MaxRecord)
	return !ok || framing == FramingNDJSON
}

// mapCutter cuts a mapped NDJSON input into chunks of whole lines, as
// runLines cuts a read one, the same lines in each chunk but for where
// the chunks end, without copying them or counting their lines.
type mapCutter struct {
	cu    cutter // its offset is the next chunk's start; size is the file's
	m     *mapping
	chunk int // the next chunk's number in the line chain
}

// mappedHook, when set (by tests), is called as each mapped input's
// cutting starts, and mappedChunkHook as a worker starts to judge a
// mapped chunk, its lines counted.
var (
	mappedHook func(in Input)
	// readHook, when set (by tests), is called as each regular file that
	// is read, not mapped, starts to be read, its size taken (standard
	// input too, when it is one).
	readHook        func(in Input)
	mappedChunkHook func(c *chunk)
	// tooLargeHook, when set (by tests), is called once the pieces of a
	// mapped record longer than MaxRecord, start..end, are sent on.
	tooLargeHook func(start, end int64)
)

func (p *pipeline) readMapped(in Input, m *mapping) error {
	m.hold()
	defer m.release()
	if p.hooks.mapped != nil {
		p.hooks.mapped(in)
	}
	mc := mapCutter{cu: cutter{p: p, in: in, size: int64(len(m.data)), file: true, framing: FramingNDJSON}, m: m}
	p.framed[FramingNDJSON].Add(1)
	return mc.run()
}

func (mc *mapCutter) run() (err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, fault := mc.m.faultOffset(r); !fault {
				panic(r)
			}
			// The chunks sent on say where the file ends, if they get
			// that far: the writer reports the first fault in order.
			err = mc.send(kindFault, mc.cu.offset, mc.cu.offset, 0)
		}
	}()
	p, data := mc.cu.p, mc.m.data
	size, maxRecord := int64(len(data)), int64(p.cfg.MaxRecord)
	for mc.cu.offset < size {
		start := mc.cu.offset
		n := int64(p.cfg.ChunkSize)
		if limit := mc.cu.shareLimit(); limit > 0 {
			n = int64(limit)
		}
		end := start + n
		if end < size {
			if i := bytes.LastIndexByte(data[start:end], '\n'); i >= 0 {
				end = start + int64(i) + 1
			} else {
				// A line longer than the chunk: the read path grows the
				// chunk up to MaxRecord+1 bytes for it.
				window := min(size, start+maxRecord+1)
				if j := bytes.IndexByte(data[min(end, window):window], '\n'); j >= 0 {
					end += int64(j) + 1
				} else if window-start > maxRecord {
					if err := mc.tooLarge(start, window); err != nil {
						return err
					}
					continue
				} else {
					end = size
				}
			}
		} else {
			end = size
		}
		if err := mc.send(kindLines, start, end, -1); err != nil {
			return err
		}
		mc.advance(end)
	}
	return nil
}

func (mc *mapCutter) advance(end int64) {
	mc.cu.p.bytesRead.Add(end - mc.cu.offset)
	mc.cu.p.bytesDecompressed.Add(end - mc.cu.offset)
	mc.cu.offset = end
}

// tooLarge passes on a line longer than MaxRecord, found at start with no
// newline before from, as skipTooLarge does a read one: in pieces of a
// chunk at most for --invalid-out, then its verdict.
func (mc *mapCutter) tooLarge(start, from int64) error {
	p, data := mc.cu.p, mc.m.data
	end := int64(len(data))
	if i := bytes.IndexByte(data[from:], '\n'); i >= 0 {
		end = from + int64(i) + 1
	}
	// Read before any piece is sent: a fault here, the file cut short,
	// then leaves no piece of the record written without its verdict.
	unterminated := data[end-1] != '\n'
	if p.cfg.InvalidOut != nil {
		for at := start; at < end; at += int64(p.cfg.ChunkSize) {
			if err := mc.send(kindPiece, at, min(end, at+int64(p.cfg.ChunkSize)), 0); err != nil {
				return err
			}
		}
	}
	if p.hooks.tooLarge != nil {
		p.hooks.tooLarge(start, end)
	}
	lines := 1
	if unterminated {
		lines = 0
	}
	if err := mc.send(kindTooLarge, start, start, lines); err != nil {
		return err
	}
	mc.advance(end)
	return nil
}

// send hands out the bytes from..to of the mapping as a chunk of kind.
// lines is the chunk's count of newlines, or -1 for its worker to count.
func (mc *mapCutter) send(kind chunkKind, from, to int64, lines int) error {
	p := mc.cu.p
	c, err := p.acquire()
	if err != nil {
		return err
	}
	c.kind, c.input = kind, mc.cu.in.Name
	c.line, c.col, c.offset, c.recordOffset = 0, 1, from, from
	c.buf = mc.m.data[from:to:to]
	c.spans = c.spans[:0]
	c.unterminated = kind == kindTooLarge && lines == 0
	c.fault = kind == kindFault
	if kind == kindPiece {
		c.recordOffset = mc.cu.offset
	}
	mc.m.hold()
	c.mapped, c.chainAt, c.lines, c.published = mc.m, mc.chunk, lines, false
	mc.chunk++
	p.dispatch(c)
	return nil
}

// settleLine gives a chunk of a mapped input its first line number,
// finding its newlines first when the reader did not count them. Under
// lazyLines it only publishes a count the reader gave: the chunk's
// records are judged with line numbers counted from 0, which nothing
// shows, and publishLines publishes the count they end at.
func (w *worker) settleLine(c *chunk) {
	lines := c.lines
	if w.lazyLines {
		if lines >= 0 {
			w.publishLines(c, lines)
		}
		return
	}
	if lines < 0 {
		lines = w.indexLines(c)
	}
	w.publishLines(c, lines)
	c.line = c.mapped.chain.first(c.chainAt)
}

// publishLines publishes c's count of newlines, once.
func (w *worker) publishLines(c *chunk, count int) {
	if !c.published {
		c.published = true
		c.mapped.chain.publish(c.chainAt, count)
	}
}

// judgedLines publishes, under lazyLines, the count of newlines of a
// mapped chunk that its judging found (or, if it stopped short, a count
// of them), before the writer may recycle the chunk.
func (w *worker) judgedLines(c *chunk) {
	if c.published {
		return
	}
	n := c.newlines
	if n < 0 || c.kind != kindLines {
		n = w.indexLines(c)
	}
	w.publishLines(c, n)
}

// indexLines counts c's newlines and keeps where the first of them are
// in c.ends, for lines to judge c by. A fault cuts c short, after the
// last newline before it, and marks it faulted.
func (w *worker) indexLines(c *chunk) int {
	for {
		n, at := tryIndexLines(c)
		if at < 0 {
			return n
		}
		c.cutAt(at)
	}
}

func tryIndexLines(c *chunk) (n int, fault int64) {
	defer c.mapped.catchFault(&fault)
	n, c.ends = indexNewlines(c.buf, c.ends)
	return n, -1
}

// cutAt ends c after its last newline before mapping offset at, where
// its file no longer has bytes, and marks it faulted: what follows in the
// input is not judged.
func (c *chunk) cutAt(at int64) {
	for {
		fault := c.tryCutAt(at)
		if fault < 0 {
			return
		}
		// The file shrank further: look before that page.
		at = fault
	}
}

func (c *chunk) tryCutAt(at int64) (fault int64) {
	defer c.mapped.catchFault(&fault)
	n := int(max(0, min(at-c.offset, int64(len(c.buf)))))
	if c.kind == kindLines {
		n = bytes.LastIndexByte(c.buf[:n], '\n') + 1
	} else {
		n = 0
	}
	c.buf = c.buf[:n:n]
	c.fault = true
	return -1
}

// processMapped is process for a chunk that views a mapped file. A fault
// on its bytes (the file was truncated) cuts the chunk short before the
// line it was in, and the chunk's records (from the piece the writer has
// not yet written) are judged again without it, so that no record is
// judged from bytes the file no longer holds. Only a page the file lost
// faults; the rest of the last page it kept reads as zeros, so the file's
// size is checked after judging as well.
func (w *worker) processMapped(c *chunk, from int, limit int64) bool {
	stopped := int64(-1) // where a record cut short stopped being read
	for {
		ok, at := w.processGuarded(c, from, limit)
		if at < 0 && (c.kind == kindLines || c.kind == kindPiece) && len(c.buf) > 0 {
			if size := c.mapped.size(); size < c.offset+int64(len(c.buf)) {
				at = size
			}
		}
		if at < 0 {
			if c.fault {
				w.noteFault(c)
				if stopped >= 0 {
					c.faultOffset = stopped
				}
			}
			return ok
		}
		// A fault is on a byte of the chunk: cut before it, whatever
		// the address says, so that every pass keeps fewer bytes.
		c.cutAt(min(at, c.offset+int64(len(c.buf))-1))
		if c.kind == kindPiece && c.recordOffset < c.offset {
			// The record's first pieces are in --invalid-out already:
			// end it there with its verdict, as a read input's record
			// ends where the file does, rather than leave them
			// uncounted and without a newline.
			stopped = c.offset
			c.kind, c.offset, c.unterminated = kindTooLarge, c.recordOffset, true
		}
		// The fault may have left the validators mid-card.
		w.v = fastvalidate.MustNew(w.cfg.Profile, w.cfg.Options...)
		w.schema = nil
		from = c.from
	}
}

func (w *worker) processGuarded(c *chunk, from int, limit int64) (ok bool, at int64) {
	ok = true // what a fault leaves: processMapped judges the chunk again
	defer c.mapped.catchFault(&at)
	return w.process(c, from, limit), -1
}

// noteFault says where the judging of c's faulted input stopped: after
// the whole lines c kept.
func (w *worker) noteFault(c *chunk) {
	n := 0
	if c.kind == kindLines {
		n = w.indexLines(c)
	}
	if w.lazyLines {
		// The lines were judged without their numbers: wait for them.
		w.publishLines(c, n)
		c.line = c.mapped.chain.first(c.chainAt)
	}
	c.faultLine = c.line + n
	c.faultOffset = c.offset + int64(len(c.buf))
}

// faultMessage is the diagnostic of an input whose file shrank, or whose
// storage failed, while it was mapped, worded as a failed read's.
func faultMessage(c *chunk) string {
	off := strconv.FormatInt(c.faultOffset, 10)
	why := errShrank
	if c.mapped != nil {
		if err := c.mapped.ioErr.Load(); err != nil {
			why = errPageUnreadable + describe(*err)
		}
	}
	return c.input + ": line " + strconv.Itoa(c.faultLine) + ", offset " + off + " (" + off +
		" bytes read as stored): reading: " + why + "; the rest of the input was not judged"
}
