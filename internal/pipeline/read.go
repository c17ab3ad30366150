package pipeline

import (
	"bytes"
	"errors"
	"github.com/klauspost/compress/zstd"
	"io"
	"io/fs"
	"strconv"
)

// read feeds every input to the workers, in order, then closes the queues.
func (p *pipeline) read(inputs []Input) {
	defer close(p.work)
	defer close(p.order)
	var dec decoders
	defer dec.close()
	for _, in := range inputs {
		if err := p.readInput(in, &dec); err != nil {
			return // halted
		}
	}
}

// acquire takes a free chunk, or fails once the writer has stopped.
func (p *pipeline) acquire() (*chunk, error) {
	select {
	case c := <-p.free:
		return c, nil
	case <-p.stop:
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
	return err.Error()
}

// readInput reads one input to its end. It returns an error only when the
// run has been halted; a failing input is diagnosed and skipped.
func (p *pipeline) readInput(in Input, dec *decoders) error {
	f, err := openFile(in, p.cfg.Stdin)
	if err != nil {
		return p.diagnose(in.Name, describe(err))
	}
	defer f.Close()
	storedStart := p.bytesRead.Load()
	r, compression, err := dec.open(countingReader{r: f, n: p.bytesRead})
	if err != nil {
		what := "reading"
		if compression != "" {
			what = "reading " + compression + " header"
		}
		return p.diagnose(in.Name, what+": "+describe(err))
	}
	cu := cutter{p: p, in: in, r: r}
	err = cu.run()
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

// cutter cuts one decompressed input into chunks of whole lines (or one
// whole document).
type cutter struct {
	p  *pipeline
	in Input
	r  io.Reader
	c  *chunk // the chunk being filled; its buf starts at a line start
	// line and offset locate c.buf[0] (or, after an error, the first byte
	// that was not judged).
	line   int
	offset int64
}

func (cu *cutter) newChunk(minCap int) error {
	c, err := cu.p.acquire()
	if err != nil {
		return err
	}
	size := max(cu.p.cfg.ChunkSize, minCap)
	if cap(c.buf) < size {
		c.buf = make([]byte, 0, size)
	}
	c.buf = c.buf[:0]
	c.kind = kindLines
	if cu.in.Document {
		c.kind = kindDocument
	}
	c.input = cu.in.Name
	c.line, c.offset = cu.line, cu.offset
	c.unterminated = false
	cu.c = c
	return nil
}

// fill reads once into the free space of the current chunk.
func (cu *cutter) fill() (n int, short bool, err error) {
	c := cu.c
	want := cap(c.buf) - len(c.buf)
	n, err = cu.r.Read(c.buf[len(c.buf):cap(c.buf)])
	c.buf = c.buf[:len(c.buf)+n]
	cu.p.bytesDecompressed.Add(int64(n))
	return n, n < want, err
}

// cut sends the first n bytes of the current chunk (whole lines) on and
// continues with the rest in a new chunk.
func (cu *cutter) cut(n int) error {
	c := cu.c
	tail := c.buf[n:]
	cu.line += bytes.Count(c.buf[:n], nl)
	cu.offset += int64(n)
	if err := cu.newChunk(min(2*len(tail), cu.p.cfg.MaxRecord+1)); err != nil {
		return err
	}
	cu.c.buf = append(cu.c.buf, tail...)
	c.buf = c.buf[:n]
	cu.p.dispatch(c)
	return nil
}

func (cu *cutter) run() error {
	p := cu.p
	cu.line, cu.offset = 1, 0
	if err := cu.newChunk(0); err != nil {
		return err
	}
	doc := cu.in.Document
	for {
		c := cu.c
		if len(c.buf) == cap(c.buf) {
			if !doc {
				if i := bytes.LastIndexByte(c.buf, '\n'); i >= 0 {
					if err := cu.cut(i + 1); err != nil {
						return err
					}
					continue
				}
			}
			if len(c.buf) > p.cfg.MaxRecord {
				if err := cu.skipTooLarge(); err != nil {
					return err
				}
				continue
			}
			grown := make([]byte, len(c.buf), min(2*cap(c.buf), p.cfg.MaxRecord+1))
			copy(grown, c.buf)
			c.buf = grown
		}
		n, short, err := cu.fill()
		if errors.Is(err, io.EOF) {
			// An empty document is still a record (a broken one); an
			// empty NDJSON input holds none.
			if len(c.buf) > 0 || doc && cu.offset == 0 {
				p.dispatch(c)
			} else {
				p.free <- c
			}
			cu.c = nil
			return nil
		}
		if err != nil {
			// Judge the whole lines read before the failure; the rest of
			// the line (or document) it cut is lost.
			if i := bytes.LastIndexByte(c.buf, '\n'); i >= 0 && !doc {
				if cerr := cu.cut(i + 1); cerr != nil {
					return cerr
				}
			}
			p.free <- cu.c
			cu.c = nil
			return err
		}
		if short && n > 0 && !doc {
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

// skipTooLarge handles a record longer than MaxRecord whose first bytes
// fill the current chunk: it reads on to the end of the line (or
// document) without keeping more than a chunk at a time, passing the
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
			c.kind = kindPiece
			c.buf = c.buf[:n]
			p.dispatch(c)
		} else {
			c.buf = nil
			p.free <- c
		}
		return nil
	}
	report := func() error {
		c, err := p.acquire()
		if err != nil {
			return err
		}
		c.kind, c.input, c.line, c.offset, c.unterminated = kindTooLarge, cu.in.Name, line, offset, last != '\n'
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
		if !cu.in.Document {
			if i := bytes.IndexByte(c.buf, '\n'); i >= 0 {
				// The record ends here; the rest starts the next line.
				cu.line, cu.offset = line+1, offset+size+int64(i+1)
				if perr := pass(i + 1); perr != nil {
					return perr
				}
				if err != nil {
					cu.r = errReader{err}
				}
				return report()
			}
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
