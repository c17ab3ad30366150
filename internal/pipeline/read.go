package pipeline

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math"
	"runtime/debug"
	"strconv"
	"unsafe"

	"github.com/cardscan/cardscan/internal/mediatype"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/klauspost/compress/zstd"
)

// read feeds every input to the workers, in order, then closes the queues.
func (p *pipeline) read(inputs []Input) {
	defer close(p.work)
	defer close(p.order)
	// The reader cuts mapped files; a truncated one faults (mapCutter).
	debug.SetPanicOnFault(true)
	var dec decoders
	defer dec.close()
	for _, in := range inputs {
		// A run that has stopped (--max-invalid, an output error, an
		// interrupt) opens no further input: the writer has returned,
		// and mapping or reading the next one would only cost.
		select {
		case <-p.stop:
			return
		case <-p.cfg.Interrupt:
			return
		default:
		}
		if err := p.readInput(in, &dec); err != nil {
			return // halted
		}
	}
}

// acquire takes a free chunk, or fails once the writer has stopped.
func (p *pipeline) acquire() (*chunk, error) {
	select {
	case c := <-p.free:
		c.seq, c.compressed, c.fault = p.seq, p.compressed, false
		c.ends = c.ends[:0]
		return c, nil
	case <-p.stop:
		return nil, errHalted
	case <-p.cfg.Interrupt:
		return nil, errHalted
	}
}

// dispatch queues c for the writer, and for a worker unless it is ready.
func (p *pipeline) dispatch(c *chunk) {
	p.order <- c
	if c.kind == kindDiagnostic {
		c.out, c.validOut, c.invalidOut = c.out[:0], c.validOut[:0], c.invalidOut[:0]
		c.st.reset(p.ruleSlots)
		c.done <- struct{}{}
		return
	}
	if int(p.workers.Load()) < p.cfg.Jobs {
		// Each of the first Jobs chunks starts a worker, so that a run
		// of one chunk (a one-card file) pays for one validator, its
		// buffers and the OS thread it wakes, rather than one per CPU,
		// and a longer one has every worker from its first chunks on.
		p.workers.Add(1)
		p.running.Add(1)
		go p.runWorker()
	}
	p.work <- c
}

func (p *pipeline) diagnose(name, msg string) error {
	p.inputErrors.Add(1)
	c, err := p.acquire()
	if err != nil {
		return err
	}
	c.kind, c.input, c.diag, c.buf = kindDiagnostic, name, name+": "+msg, c.buf[:0]
	p.dispatch(c)
	return nil
}

func describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	// The decoder words a window over its limit as a size limit.
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
		return "zstd window larger than the 128 MiB accepted (compress with --long=27 or less)"
	}
	// The first frame's magic was seen before the decoder began: the one
	// it misses is that of a frame after the last.
	if errors.Is(err, zstd.ErrMagicMismatch) {
		return "bytes after a zstd frame that start no zstd frame (trailing garbage or padding, which zstd -d refuses too)"
	}
	return err.Error()
}

// readInput reads one input to its end. It returns an error only when the
// run has been halted; a failing input is diagnosed and skipped.
func (p *pipeline) readInput(in Input, dec *decoders) error {
	p.seq++
	p.compressed = false
	f, err := openFile(in, p.cfg.Stdin)
	if err != nil {
		return p.diagnose(in.Name, describe(err))
	}
	if m := p.mapInput(in, f); m != nil {
		return p.readMapped(in, m) // which closes f when done with it
	}
	defer f.Close()
	size := regularSize(f)
	var stored io.Reader = f
	switch rest := stdinRemaining(in, p.cfg.Stdin); {
	case size > 0:
		stored = &sizedReader{r: f, size: size}
	case rest > 0:
		// Standard input redirected from a file: its size tells a
		// file cut short from one that ended, as for a named file,
		// though the input is not sized for its chunks (not a file
		// that is cardscan's to map or to measure from its start).
		stored = &sizedReader{r: f, size: rest}
	}
	if p.hooks.read != nil && (size >= 0 || stored != io.Reader(f)) {
		p.hooks.read(in)
	}
	storedStart := p.bytesRead.Load()
	r, compression, err := dec.open(countingReader{r: stored, n: p.bytesRead})
	if err != nil {
		what := "reading"
		if compression != "" {
			what = "reading " + compression + " header"
		}
		return p.diagnose(in.Name, what+": "+describe(err))
	}
	p.compressed = compression != ""
	cu := cutter{p: p, in: in, r: r, size: -1, stored: -1}
	if size >= 0 {
		cu.file = true
		if compression == "" {
			cu.size = size
		} else {
			cu.stored, cu.storedStart, cu.peek = size, storedStart, dec.peek
		}
	}
	err = cu.run()
	if cu.framing != FramingAuto {
		p.framed[cu.framing].Add(1)
	}
	var encErr *mediatype.EncodingError
	if errors.As(err, &encErr) {
		return p.diagnose(in.Name, encErr.Error())
	}
	if err == nil && compression == "gzip" && dec.gzip.Zeros() > 0 {
		p.cfg.Note(in.Name + ": trailing zero bytes ignored (" + strconv.FormatInt(dec.gzip.Zeros(), 10) + " after the last gzip member)")
	}
	if err == nil || err == errHalted {
		return err
	}
	what := "reading"
	if compression != "" {
		what = "reading " + compression + " stream"
	}
	return p.diagnose(in.Name, "line "+strconv.Itoa(cu.line)+", offset "+strconv.FormatInt(cu.offset, 10)+
		" ("+strconv.FormatInt(p.bytesRead.Load()-storedStart, 10)+" bytes read as stored): "+what+": "+describe(err)+
		"; the rest of the input was not judged")
}

// cutter cuts one decompressed input into chunks of whole records.
type cutter struct {
	p  *pipeline
	in Input
	r  io.Reader
	c  *chunk // the chunk being filled; its buf starts at a record or line start
	// framing is the one chosen for the input (FramingAuto until then);
	// sp finds the records when it is FramingJSON.
	framing Framing
	sp      splitter
	// line, col and offset locate c.buf[0] (or, after an error, the first
	// byte that was not judged).
	line, col int
	offset    int64
	// size is the input's size when it is a file read as stored, -1
	// otherwise: chunks of a file smaller than ChunkSize are made no
	// larger than what is left of it.
	size int64
	// file is set when the input is stored in a regular file, which has
	// the rest at once: a short read from it (or from its decompressor,
	// which returns a block a read) is no sign to pass on what is read.
	file bool
	// stored is the size of a compressed regular file, -1 otherwise;
	// storedStart is the run's bytesRead when its reading began, and peek
	// the buffer its decompressor reads it through: together they say
	// how much of it the decompressor has taken (estimatedSize).
	stored, storedStart int64
	peek                *bufio.Reader
}

// minChunk is the least capacity of a chunk sized to what is left of a
// file: room for the tail of a file that grew while it was read.
const minChunk = 4 << 10

func (cu *cutter) newChunk(minCap int) error {
	c, err := cu.p.acquire()
	if err != nil {
		return err
	}
	size := cu.p.cfg.ChunkSize
	if cu.size >= 0 {
		// What is left from this chunk's start, and a byte more, so that
		// the read that drains the file is short. A chunk of ChunkSize
		// for a one-card file took the heap of a one-card run past the
		// collector's first goal.
		size = int(min(int64(size), max(cu.size-cu.offset+1, minChunk)))
	}
	size = max(size, minCap)
	limit := cu.shareLimit()
	if limit >= size {
		limit = 0
	}
	if cap(c.mem) < size {
		c.mem = make([]byte, 0, size)
	}
	c.buf = c.mem[:0]
	if limit > 0 {
		c.buf = c.mem[:0:max(limit, minCap)]
	}
	c.spans = c.spans[:0]
	c.kind = kindLines
	if cu.framing == FramingJSON {
		c.kind = kindValues
	}
	c.input = cu.in.Name
	c.line, c.col, c.offset = cu.line, cu.col, cu.offset
	c.unterminated, c.inputEnd = false, false
	cu.c = c
	return nil
}

// shareLimit is the size, when below ChunkSize, of the next chunk of a
// file that several workers share, or 0 when it has no limit but the
// chunk size. The first chunks are small and double, from a sixteenth of
// the chunk size, so that every worker starts after a short read rather
// than the first waiting for a whole chunk and the next for two; the last
// ones are an equal share of what is left (a sixteenth of the chunk size
// at least), so that the workers finish together rather than one judging
// the last full chunk alone. Only the chunks' sizes change: not their
// number in flight, nor what is held.
func (cu *cutter) shareLimit() int {
	jobs, chunkSize := int64(cu.p.cfg.Jobs), int64(cu.p.cfg.ChunkSize)
	if jobs < 2 {
		return 0
	}
	size := cu.size
	if size < 0 {
		size = cu.estimatedSize()
	}
	// A file that fits in one round of chunks is not worth sizing.
	if size < 2*jobs*chunkSize {
		return 0
	}
	least := max(chunkSize/16, minChunk)
	ramp := max(least, cu.offset)
	share := max(least, (size-cu.offset)/(2*jobs))
	return int(min(ramp, share, chunkSize))
}

// estimatedSize guesses the decompressed size of a compressed file, for
// shareLimit alone, or returns -1 for any other input: what is
// decompressed so far, and the stored bytes the decompressor has not yet
// taken at the ratio of those it has. Before the first chunk there is no
// ratio, and the stored size stands for the size (a file rarely
// decompresses to fewer bytes than it stores). A wrong guess sizes
// chunks worse, nothing more: their bytes are the same.
func (cu *cutter) estimatedSize() int64 {
	if cu.stored < 0 || cu.peek == nil {
		return -1
	}
	taken := cu.p.bytesRead.Load() - cu.storedStart - int64(cu.peek.Buffered())
	if taken <= 0 || cu.offset <= 0 {
		return cu.stored
	}
	left := float64(max(0, cu.stored-taken)) * float64(cu.offset) / float64(taken)
	return cu.offset + int64(min(left, float64(math.MaxInt64/2)))
}

// fill reads once into the free space of the current chunk.
func (cu *cutter) fill() (n int, short bool, err error) {
	c := cu.c
	want := cap(c.buf) - len(c.buf)
	n, err = cu.r.Read(c.buf[len(c.buf):cap(c.buf)])
	c.buf = c.buf[:len(c.buf)+n]
	cu.p.bytesDecompressed.Add(int64(n))
	// A short read of a file says nothing: it has more until EOF (the
	// first read may come from the framing peek's buffer, and a zstd
	// decoder returns a block at a time).
	return n, n < want && !cu.file, err
}

// cut sends the first n bytes of the current chunk (whole lines) on and
// continues with the rest in a new chunk.
func (cu *cutter) cut(n int) error {
	c := cu.c
	tail := c.buf[n:]
	if c.kind == kindLines {
		// NDJSON is cut after a newline. The pass that counts the lines
		// keeps where they end, so that the worker does not search for
		// them again: one pass over the bytes rather than two.
		var lines int
		lines, c.ends = indexNewlines(c.buf[:n], c.ends)
		cu.offset += int64(n)
		cu.line += lines
		cu.col = 1
	} else {
		cu.advance(c.buf[:n])
	}
	if err := cu.newChunk(min(2*len(tail), cu.p.cfg.MaxRecord+1)); err != nil {
		return err
	}
	cu.c.buf = append(cu.c.buf, tail...)
	c.buf = c.buf[:n]
	cu.p.dispatch(c)
	return nil
}

// advance moves the cutter's place past b, the bytes sent on. NDJSON is
// cut after a newline, so only a JSON-framed input, cut where a record
// starts, has a column to count: on the line b ends in.
func (cu *cutter) advance(b []byte) {
	cu.offset += int64(len(b))
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		cu.line += bytes.Count(b, nl)
		cu.col = 1 + report.CodePoints(b[i+1:])
		return
	}
	cu.col += report.CodePoints(b)
}

func (cu *cutter) run() error {
	cu.line, cu.col, cu.offset = 1, 1, 0
	if err := cu.newChunk(0); err != nil {
		return err
	}
	if err := cu.checkEncoding(); err != nil {
		cu.p.free <- cu.c
		cu.c = nil
		return err
	}
	cu.framing = cu.in.Framing
	if cu.framing == FramingAuto {
		cu.framing = cu.detect()
	}
	if cu.framing == FramingJSON {
		cu.c.kind = kindValues
		return cu.runJSON()
	}
	return cu.runLines()
}

// checkEncoding reads the first bytes of the input (up to 4, fewer when
// they tell already or it ends or fails first, the failure kept for the
// framing's reader) and refuses a UTF-16 or UTF-32 text (mediatype.CheckEncoding).
func (cu *cutter) checkEncoding() error {
	for !mediatype.EncodingKnown(cu.c.buf) {
		if _, _, err := cu.fill(); err != nil {
			cu.r = errReader{err}
			break
		}
	}
	return mediatype.CheckEncoding(cu.c.buf)
}

// grow gives the current chunk room for more of a record that fills it,
// up to MaxRecord+1 bytes; it reports false when the chunk is that large.
func (cu *cutter) grow() bool {
	c := cu.c
	if len(c.buf) > cu.p.cfg.MaxRecord {
		return false
	}
	want := min(2*cap(c.buf), cu.p.cfg.MaxRecord+1)
	if cap(c.mem) >= want && len(c.buf) > 0 && &c.mem[:1][0] == &c.buf[0] {
		// A chunk limited by shareLimit: its allocation has room.
		c.buf = c.mem[:len(c.buf):want]
		return true
	}
	grown := make([]byte, len(c.buf), want)
	copy(grown, c.buf)
	c.buf, c.mem = grown, grown
	return true
}

// detect reads until it can tell the framing of the input: JSON when its
// text (after an optional BOM and white space) starts an array, or starts
// an object or a string on a first line that is not one complete value;
// NDJSON otherwise. An array is a list of records wherever it ends: as
// one NDJSON record it could only be judged "not an object", and an
// array written on one line (jq -c -s) is often longer than MaxRecord. A
// first line still open at MaxRecord bytes is taken for NDJSON. A read
// error is kept for the framing's reader to meet.
func (cu *cutter) detect() Framing {
	eof := false
	for {
		// Only the first MaxRecord+1 bytes decide, as for a mapped input,
		// so that a chunk larger than MaxRecord does not see further.
		b, whole := cu.c.buf, eof
		if len(b) > cu.p.cfg.MaxRecord {
			b, whole = b[:cu.p.cfg.MaxRecord+1], false
		}
		if framing, ok := framingOf(b, whole); ok {
			return framing
		}
		if eof || len(b) > cu.p.cfg.MaxRecord || len(b) == cap(b) && !cu.grow() {
			return FramingNDJSON
		}
		if _, _, err := cu.fill(); err != nil {
			// Replayed to the framing's reader, which meets it in turn.
			cu.r = errReader{err}
			eof = true
		}
	}
}

// framingOf tells the framing from b, the start of an input (all of it
// when eof is set), as detect says; ok is false when more is needed.
func framingOf(b []byte, eof bool) (framing Framing, ok bool) {
	i := 0
	if bytes.HasPrefix(b, utf8BOM) {
		i = len(utf8BOM)
	}
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i >= len(b) || len(b) < len(utf8BOM) && bytes.HasPrefix(utf8BOM, b) {
		return FramingAuto, false
	}
	switch b[i] {
	case '[':
		return FramingJSON, true
	case '{', '"':
		if nl := bytes.IndexByte(b[i:], '\n'); nl >= 0 {
			return framingOfLine(b[i : i+nl]), true
		}
		if eof {
			return framingOfLine(b[i:]), true
		}
		return FramingAuto, false
	}
	return FramingNDJSON, true
}

// framingOfLine is NDJSON when line holds exactly one complete JSON
// value (as far as the splitter can tell: inside a value it follows only
// strings and brackets), JSON otherwise.
func framingOfLine(line []byte) Framing {
	var sp splitter
	sp.reset(0, true) // as after a BOM: the first value is whole, an array too
	var spans [2]span
	got := sp.finish(sp.scan(line, 0, spans[:0]))
	if len(got) == 1 && !got[0].broken {
		return FramingNDJSON
	}
	return FramingJSON
}

// runLines cuts NDJSON: chunks end after a newline.
func (cu *cutter) runLines() error {
	p := cu.p
	// What detect read may hold whole lines already: pass them on before
	// waiting for more, so that a card written to a pipe that stays open
	// is judged as soon as its line is complete. A file has the rest at
	// once.
	if i := bytes.LastIndexByte(cu.c.buf, '\n'); i >= 0 && !cu.file {
		if err := cu.cut(i + 1); err != nil {
			return err
		}
	}
	for {
		c := cu.c
		if len(c.buf) == cap(c.buf) {
			if i := bytes.LastIndexByte(c.buf, '\n'); i >= 0 {
				if err := cu.cut(i + 1); err != nil {
					return err
				}
				continue
			}
			if !cu.grow() {
				if err := cu.skipTooLarge(); err != nil {
					return err
				}
				continue
			}
		}
		n, short, err := cu.fill()
		if errors.Is(err, io.EOF) {
			// An empty input holds no record.
			if len(c.buf) > 0 {
				_, c.ends = indexNewlines(c.buf, c.ends)
				p.dispatch(c)
			} else {
				p.free <- c
			}
			cu.c = nil
			return nil
		}
		if err != nil {
			// Judge the whole lines read before the failure; the rest of
			// the line it cut is lost.
			if i := bytes.LastIndexByte(c.buf, '\n'); i >= 0 {
				if cerr := cu.cut(i + 1); cerr != nil {
					return cerr
				}
			}
			p.free <- cu.c
			cu.c = nil
			return err
		}
		if short && n > 0 {
			// The source has no more for now (a pipe): pass on what is
			// complete rather than wait for a full chunk.
			if i := bytes.LastIndexByte(c.buf, '\n'); i >= 0 {
				if err := cu.cut(i + 1); err != nil {
					return err
				}
			}
		}
	}
}

// runJSON cuts a sequence of JSON texts: chunks end after a record, and
// carry the records' spans for the workers.
func (cu *cutter) runJSON() error {
	p := cu.p
	for len(cu.c.buf) < len(utf8BOM) {
		if _, _, err := cu.fill(); err != nil {
			cu.r = errReader{err}
			break
		}
	}
	bom := bytes.HasPrefix(cu.c.buf, utf8BOM)
	start := int64(0)
	if bom {
		start = int64(len(utf8BOM))
	}
	cu.sp.reset(start, bom)
	cu.sp.limit = int64(p.cfg.MaxRecord)
	cu.c.spans = cu.sp.scan(cu.c.buf, cu.c.offset, cu.c.spans[:0])
	// Likewise the records complete in what detect and the reads above
	// gave, unless a file has the rest at once.
	if len(cu.c.spans) > 0 && !cu.file {
		if n := cu.jsonCut(); n > 0 {
			if err := cu.cut(n); err != nil {
				return err
			}
		}
	}
	for {
		c := cu.c
		// A chunk of tiny records (an array of digits) ends early, so that
		// its spans take no more than a quarter of its size.
		if len(c.buf) == cap(c.buf) || len(c.spans) >= p.cfg.ChunkSize/(4*int(unsafe.Sizeof(span{}))) {
			if n := cu.jsonCut(); n > 0 {
				if err := cu.cut(n); err != nil {
					return err
				}
				continue
			}
		}
		if len(c.buf) == cap(c.buf) {
			if !cu.grow() {
				if spans := cu.sp.settle(c.spans); len(spans) > len(c.spans) {
					// An element whole, then only white space: not a
					// record too large.
					c.spans = spans
					continue
				}
				if err := cu.streamTooLarge(); err != nil {
					return err
				}
				continue
			}
		}
		n, short, err := cu.fill()
		c.spans = cu.sp.scan(c.buf, c.offset, c.spans)
		if errors.Is(err, io.EOF) {
			c.spans, c.inputEnd = cu.sp.finish(c.spans), true
			if len(c.spans) > 0 {
				p.dispatch(c)
			} else {
				p.free <- c
			}
			cu.c = nil
			return nil
		}
		if err != nil {
			// Judge the records read before the failure; the one it cut
			// is lost.
			if cutAt := cu.jsonCut(); cutAt > 0 && len(c.spans) > 0 {
				if cerr := cu.cut(cutAt); cerr != nil {
					return cerr
				}
			}
			p.free <- cu.c
			cu.c = nil
			return err
		}
		if short && n > 0 && len(c.spans) > 0 {
			if cutAt := cu.jsonCut(); cutAt > 0 {
				if err := cu.cut(cutAt); err != nil {
					return err
				}
			}
		}
	}
}

// jsonCut returns how many bytes of the current chunk hold only records
// the splitter has completed: up to the one in progress, or all.
func (cu *cutter) jsonCut() int {
	if p := cu.sp.pending(); p >= 0 {
		return int(p - cu.c.offset)
	}
	return len(cu.c.buf)
}

// streamTooLarge handles a JSON record longer than MaxRecord that fills
// the current chunk from its start, as skipTooLarge does a line: the
// splitter follows it to its end without keeping more than a chunk.
func (cu *cutter) streamTooLarge() error {
	p := cu.p
	keep := p.cfg.InvalidOut != nil
	line, col, offset := cu.line, cu.col, cu.offset
	var last byte // the record's last byte so far
	pass := func(n int) error {
		c := cu.c
		if n > 0 {
			last = c.buf[n-1]
		}
		cu.advance(c.buf[:n])
		tail := c.buf[n:]
		spans := c.spans
		if err := cu.newChunk(len(tail)); err != nil {
			return err
		}
		cu.c.buf = append(cu.c.buf, tail...)
		cu.c.spans, c.spans = append(cu.c.spans, spans...), spans[:0]
		if keep {
			c.kind, c.recordOffset = kindPiece, offset
			c.buf = c.buf[:n]
			p.dispatch(c)
		} else {
			c.buf, c.mem = nil, nil
			p.free <- c
		}
		return nil
	}
	if err := pass(len(cu.c.buf)); err != nil {
		return err
	}
	for {
		c := cu.c
		_, _, err := cu.fill()
		// Once the element is whole it ends there, before the white
		// space after it reaches bytes already passed on.
		c.spans = cu.sp.settle(cu.sp.scan(c.buf, c.offset, c.spans))
		if err != nil {
			c.spans = cu.sp.finish(c.spans)
			cu.r = errReader{err}
		}
		if len(c.spans) > 0 {
			// The first record the splitter completes is this one.
			end := int(c.spans[0].end - c.offset)
			c.spans = c.spans[:copy(c.spans, c.spans[1:])]
			if perr := pass(end); perr != nil {
				return perr
			}
			rc, aerr := p.acquire()
			if aerr != nil {
				return aerr
			}
			rc.kind, rc.input, rc.line, rc.col, rc.offset, rc.unterminated = kindTooLarge, cu.in.Name, line, col, offset, last != '\n'
			rc.buf = rc.buf[:0]
			p.dispatch(rc)
			return nil
		}
		if len(c.buf) == cap(c.buf) {
			if perr := pass(len(c.buf)); perr != nil {
				return perr
			}
		}
	}
}

// skipTooLarge handles a line longer than MaxRecord whose first bytes
// fill the current chunk: it reads on to the end of the line without keeping more than a chunk at a time, passing the
// bytes on to --invalid-out if that is wanted, and reports the record. A
// read error is left for run to meet on its next read.
func (cu *cutter) skipTooLarge() error {
	p := cu.p
	keep := p.cfg.InvalidOut != nil
	line, offset := cu.line, cu.offset
	size := int64(0)
	var last byte // the record's last byte so far
	// pass sends the first n bytes of the current chunk on as a piece of
	// the record, or drops them, and starts a chunk with the rest.
	pass := func(n int) error {
		c := cu.c
		size += int64(n)
		if n > 0 {
			last = c.buf[n-1]
		}
		tail := c.buf[n:]
		if nerr := cu.newChunk(len(tail)); nerr != nil {
			return nerr
		}
		cu.c.buf = append(cu.c.buf, tail...)
		if keep {
			c.kind, c.recordOffset = kindPiece, offset
			c.buf = c.buf[:n]
			p.dispatch(c)
		} else {
			c.buf, c.mem = nil, nil
			p.free <- c
		}
		return nil
	}
	report := func() error {
		c, err := p.acquire()
		if err != nil {
			return err
		}
		c.kind, c.input, c.line, c.col, c.offset, c.unterminated = kindTooLarge, cu.in.Name, line, 1, offset, last != '\n'
		c.buf = c.buf[:0]
		p.dispatch(c)
		return nil
	}
	if err := pass(len(cu.c.buf)); err != nil {
		return err
	}
	for {
		c := cu.c
		_, _, err := cu.fill()
		if i := bytes.IndexByte(c.buf, '\n'); i >= 0 {
			// The record ends here; the rest starts the next line.
			cu.line, cu.col, cu.offset = line+1, 1, offset+size+int64(i+1)
			if perr := pass(i + 1); perr != nil {
				return perr
			}
			if err != nil {
				cu.r = errReader{err}
			}
			return report()
		}
		if err != nil {
			if perr := pass(len(c.buf)); perr != nil {
				return perr
			}
			cu.line, cu.offset = line, offset+size
			cu.r = errReader{err}
			return report()
		}
		if len(c.buf) == cap(c.buf) {
			if perr := pass(len(c.buf)); perr != nil {
				return perr
			}
		}
	}
}

// errReader replays the error that ended a stream.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// sizedReader reads a regular file that held size bytes when it was
// opened. Its end before them means that the file was truncated while
// it was read: an error, as for a mapped file, since an end would pass
// the bytes left for the whole input, and the line the cut went through
// for a card. A file that grows is read to its new end; one whose size
// says nothing (/proc reports 0) is not checked.
type sizedReader struct {
	r          io.Reader
	size, read int64
}

func (s *sizedReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.read += int64(n)
	if err == io.EOF && s.read < s.size {
		err = errors.New(errShrank)
	}
	return n, err
}
