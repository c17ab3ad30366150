// Package pipeline validates streams of cards in parallel and writes the
// verdicts in input order.
//
// One goroutine reads the inputs, decompresses them and cuts them into
// chunks of whole lines; workers, each owning a fastvalidate.Validator,
// judge a chunk's records and render its verdicts into the chunk's own
// buffers; the caller's goroutine waits for the chunks in the order they
// were read and copies their buffers out. The number of chunks in flight is
// fixed at 2 × jobs + 2, and a worker whose verdicts reach a chunk's size
// hands them over in pieces, waiting for its chunk's turn, so memory stays
// bounded by jobs × chunk size whatever the records' sizes (a record longer
// than a chunk grows one buffer up to the record limit, and a longer one is
// never held whole).
package pipeline

import (
	"errors"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/cardscan/cardscan/rule"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/summary"
)

// Output is a further output of verdicts, beside Config.Findings, in a
// format of its own (--format FORMAT=FILE).
type Output struct {
	W    report.VerdictWriter
	Name string // the output, as errors name it
}

// Defaults for Config's sizes.
const (
	DefaultChunkSize = 1 << 20
	DefaultMaxRecord = 16 << 20
)

// Config says what a Run does.
type Config struct {
	Profile   string // a profile fastvalidate.New accepts
	Jobs      int    // workers; GOMAXPROCS when 0
	ChunkSize int    // bytes per chunk; DefaultChunkSize when 0
	MaxRecord int    // longest record validated; DefaultMaxRecord when 0

	// All says valid cards are reported too, so that their verdicts need
	// a column; the writers' own WriterOptions.All says how they are
	// rendered.
	All bool

	// MaxInvalid stops the run after that many invalid cards (0: never).
	MaxInvalid int64

	// HoldCompressed holds the output of a compressed input (findings,
	// record copies and counts) on disk until the input has been read to
	// its end through every checksum, and drops it if the stream is
	// corrupt (--on-corrupt drop): no record of a corrupt stream is
	// written, and none of a compressed input before its end is verified.
	HoldCompressed bool

	// FailOnWarning makes a card with a warning fail like one with an
	// error (--fail-on warning): it is reported, copied and counted as
	// invalid, in every format.
	FailOnWarning bool

	// Findings renders the verdicts and writes them, in input order, to
	// stdout; nil writes none.
	Findings report.VerdictWriter
	// Also are further outputs of the verdicts, each in its own format,
	// written in input order as Findings is.
	Also       []Output
	ValidOut   io.Writer // receives every valid record, or nil
	InvalidOut io.Writer // receives every invalid record, or nil

	// Diagnose receives the message of every input that could not be read
	// completely, in input order, after the verdicts read before the
	// failure have been written.
	Diagnose func(msg string)
	// Note receives, from the reading goroutine, what was passed over in
	// an input that was read to its end: a gzip stream's zero padding.
	Note func(msg string)

	// Stdin is read for an Input with an empty Path.
	Stdin io.Reader

	// Progress, when not nil, is kept up to date while the run goes on.
	Progress *Progress

	// Options are passed to every fastvalidate.New.
	Options []fastvalidate.Option

	// Signatures, when not nil, has the workers verify the signatures of
	// the cards that carry them.
	Signatures *Signatures

	// MinLevel, when SeverityError, keeps warnings out of the verdicts
	// written (--min-level error); Stats and the record copies still
	// count them. 0 writes every finding.
	MinLevel fastvalidate.Severity

	// Extract, when not nil, is called once per worker for a function
	// that the worker calls on every verdict it renders, after any
	// signature or --fail-on verdict change; what it appends to dst is
	// handed to Collect in input order. The verdict is passed by value, so
	// that a record's Verdict stays on its worker's stack when Extract is
	// nil (TestWorkerDoesNotAllocate). It lets a caller keep a digest of
	// every record (cardscan diff, --cross-card) without judging the
	// records twice. v is the worker's Validator when its last Validate
	// judged vd.Card, so that what it read of the card can be used again
	// (digest.Hasher.Load), and nil otherwise.
	Extract func() func(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte
	// Recall, when not nil (with Extract), is called once per worker for
	// a function called with each record before it is judged. When it
	// reports ok, it has appended what Extract would append for the
	// record, whose verdict, valid, it knows from the same bytes judged
	// before with the same Config (cardscan diff's old dump): the record
	// is counted as valid and not judged again, so it adds no findings,
	// no profile or rule counts and no copy to ValidOut. Not used with Signatures.
	Recall func() func(dst, rec []byte, input string, line int) ([]byte, bool)
	// Collect receives the bytes Extract appended, a chunk's (or a
	// piece's) at a time, in input order, on Run's goroutine. An error
	// stops the run as an output error does.
	Collect func(b []byte) error

	// Slice, when its Count is above 1, has the run judge only the
	// records of its slice (RecordShard): the others are read and passed
	// over, neither counted, written nor copied, so that Count runs with
	// every Index, given the same inputs, judge every record once.
	Slice Slice

	// Interrupt, when closed, ends the run early: no more input is read,
	// the records already read are judged and written (or, if the writer
	// is waiting for input, dropped, so that outputs hold whole records
	// only), and Run returns with Stats.Interrupted set.
	Interrupt <-chan struct{}
}

// Slice is one of Count slices of the records, by RecordShard.
type Slice struct {
	Index, Count int
}

// Owns reports whether the record starting at offset of its decompressed
// input belongs to the slice.
func (s Slice) Owns(offset int64) bool {
	return s.Count <= 1 || RecordShard(offset, s.Count) == s.Index
}

// RecordShard is the slice, of n, of the record that starts at offset of
// its decompressed input. The offset names a record in any framing (an
// NDJSON line, an array element, one of several documents in a row) and
// is known before the record is parsed; mixing it (SplitMix64's
// finaliser) spreads neighbouring records, of any size, evenly.
func RecordShard(offset int64, n int) int {
	z := uint64(offset) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z % uint64(n))
}

// Progress holds counters that another goroutine may read during a Run.
type Progress struct {
	BytesRead         atomic.Int64 // bytes read from the inputs as stored
	BytesDecompressed atomic.Int64 // the same bytes decompressed: those judged
	Records           atomic.Int64 // records judged and written
}

// Stats counts what a Run saw.
type Stats struct {
	// Counts are the summary's: Rules counts the findings of each rule
	// by ID (at most fastvalidate's per-card cap of findings are seen per
	// card), and Profiles counts cards under "" when no profile judged
	// them (e.g. a card that is not JSON, under the auto profile).
	summary.Counts
	// ProfileInvalid counts, of each profile's cards, the invalid ones.
	ProfileInvalid map[string]int64
	// WorstInputs are the inputs with the most invalid records, worst
	// first (summary.KeepWorst); an input is counted when the next one
	// starts, so that one entry, not one per chunk, is kept per input.
	WorstInputs []summary.InputCount
	input       inputTally

	Inputs      int64
	InputErrors int64 // inputs that could not be read to the end
	// Framings counts inputs by the framing they were read with
	// ("ndjson" or "json"); an input that could not be opened has none.
	Framings          map[string]int64
	BytesRead         int64
	BytesDecompressed int64
	// Stopped is set when MaxInvalid ended the run early.
	Stopped bool
	// Interrupted is set when Config.Interrupt ended the run early.
	Interrupted bool

	// With Config.Signatures: the cards carrying signatures, those a
	// trusted key signed, and the findings of the signature rules.
	Signed, Verified, SignatureFindings int64

	// SchemaWouldPass counts the cards the agentcard profile (or auto,
	// for an AgentCard) judged invalid that the agentcard-schema profile
	// passes: where draft-aevum-agentcard-00 and the AgentCard JSON Schema
	// v1.0 disagree (docs/rules.md). Only invalid cards are judged again.
	SchemaWouldPass int64
	// SignatureOutcomes counts the signatures checked by outcome
	// (cardsig.Status's names: verified, untrusted-origin, expired,
	// revoked, key-unknown, invalid, alg); nil when none was checked.
	SignatureOutcomes map[string]int64
}

// OutputError wraps a failure to write verdicts or records; the run stops
// at once. errors.Is(err, syscall.EPIPE) tells a closed pipe.
type OutputError struct {
	Name string // "stdout", or the flag naming the output
	Err  error
}

func (e *OutputError) Error() string { return e.Name + ": " + e.Err.Error() }
func (e *OutputError) Unwrap() error { return e.Err }

// Run validates every record of inputs, writes the verdicts and records as
// cfg says, and returns what it counted. It returns an error only when an
// output could not be written; unreadable inputs are reported through
// cfg.Diagnose and counted in Stats.InputErrors.
func Run(cfg Config, inputs []Input) (Stats, error) {
	if cfg.Jobs <= 0 {
		cfg.Jobs = runtime.GOMAXPROCS(0)
	}
	if cfg.ChunkSize <= 0 {
		cfg.ChunkSize = DefaultChunkSize
	}
	if cfg.MaxRecord <= 0 {
		cfg.MaxRecord = DefaultMaxRecord
	}
	if cfg.Diagnose == nil {
		cfg.Diagnose = func(string) {}
	}
	if cfg.Note == nil {
		cfg.Note = func(string) {}
	}
	if cfg.Progress == nil {
		cfg.Progress = new(Progress)
	}
	if _, err := fastvalidate.New(cfg.Profile, cfg.Options...); err != nil {
		return Stats{}, err
	}
	p := newPipeline(&cfg)
	return p.run(inputs)
}

type pipeline struct {
	cfg     *Config
	free    chan *chunk // chunks not in flight; its capacity bounds memory
	order   chan *chunk // chunks in input order, for the writer
	work    chan *chunk // chunks for the workers
	stop    chan struct{}
	stopped atomic.Bool

	bytesRead         *atomic.Int64
	bytesDecompressed *atomic.Int64
	inputErrors       atomic.Int64
	framed            [framingCount]atomic.Int64

	ruleSlots int
	// workers counts the workers started: the reader starts one with
	// each of the first Jobs chunks it hands out (dispatch).
	workers atomic.Int32
	// running counts the reader and the workers, which read the chunks'
	// bytes, and writing is the chunk the writer has not yet recycled:
	// after an early stop, releaseInFlight lets go of their mappings.
	running sync.WaitGroup
	writing *chunk
	limiter *worker // re-judges the piece in which MaxInvalid is reached
	hold    *hold   // with Config.HoldCompressed

	// The input being read, for the chunks the reader takes: its number
	// (from 1) and whether it is compressed.
	seq        int
	compressed bool

	// faulted is the input whose mapped file was found truncated: the
	// writer drops its chunks after the one that found it.
	faulted int

	// mapMinSize is the package's, as the run started: the reader of a
	// run that stopped early may still be winding down when the next
	// run starts.
	mapMinSize int
	// hooks are the package's test hooks as the run started, for the
	// same reason: a test clears them once Run has returned.
	hooks testHooks
}

// testHooks are the test hooks of mapped.go, as a run holds them.
type testHooks struct {
	mapped      func(Input)
	read        func(Input)
	mappedChunk func(*chunk)
	tooLarge    func(start, end int64)
}

func newPipeline(cfg *Config) *pipeline {
	inFlight := 2*cfg.Jobs + 2
	p := &pipeline{
		cfg:       cfg,
		free:      make(chan *chunk, inFlight),
		order:     make(chan *chunk, inFlight),
		work:      make(chan *chunk, cfg.Jobs),
		stop:      make(chan struct{}),
		bytesRead: &cfg.Progress.BytesRead,

		mapMinSize: mapMinSize,
		hooks:      testHooks{mapped: mappedHook, read: readHook, mappedChunk: mappedChunkHook, tooLarge: tooLargeHook},
	}
	p.bytesDecompressed = &cfg.Progress.BytesDecompressed
	for _, r := range rule.All() {
		p.ruleSlots = max(p.ruleSlots, int(r.Code)+1)
	}
	for range inFlight {
		p.free <- &chunk{done: make(chan struct{}, 1), resume: make(chan struct{}, 1)}
	}
	return p
}

func (p *pipeline) run(inputs []Input) (Stats, error) {
	// The writer judges again the chunk in which --max-invalid is
	// reached, which may view a mapped file.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	p.running.Add(1)
	go func() {
		defer p.running.Done()
		p.read(inputs)
	}()
	st := newStats()
	st.Inputs = int64(len(inputs))
	if p.cfg.HoldCompressed {
		p.hold = &hold{}
		defer p.hold.close()
	}
	err := p.write(&st)
	if err == nil && p.hold != nil && p.hold.seq != 0 {
		// Stopped or interrupted before the end of the stream.
		var n int64
		name := p.hold.name
		if n, err = p.hold.drop(); err == nil && n > 0 {
			p.cfg.Diagnose(name + ": the run ended before the end of its compressed stream" + dropNote(n))
		}
	}
	st.endInput()
	select {
	case <-p.cfg.Interrupt:
		st.Interrupted = true
	default:
	}
	if err != nil || st.Stopped || st.Interrupted {
		p.halt()
		go p.releaseInFlight()
	}
	st.BytesRead = p.bytesRead.Load()
	st.BytesDecompressed = p.bytesDecompressed.Load()
	st.InputErrors = p.inputErrors.Load()
	st.Framings = map[string]int64{}
	for f := range p.framed {
		if n := p.framed[f].Load(); n > 0 {
			st.Framings[Framing(f).String()] = n
		}
	}
	return st, err
}

// halt tells the reader to stop early.
func (p *pipeline) halt() {
	if p.stopped.CompareAndSwap(false, true) {
		close(p.stop)
	}
}

func (p *pipeline) runWorker() {
	defer p.running.Done()
	w := newWorker(p.cfg, p.ruleSlots)
	w.pieceLimit, w.halted = p.cfg.ChunkSize, p.stop
	// A truncated mapped file faults; processMapped recovers.
	debug.SetPanicOnFault(true)
	for c := range p.work {
		ok := false
		if c.mapped != nil {
			w.settleLine(c)
			if p.hooks.mappedChunk != nil {
				p.hooks.mappedChunk(c)
			}
			ok = w.processMapped(c, 0, 0)
			if w.lazyLines {
				w.judgedLines(c)
			}
		} else {
			ok = w.process(c, 0, 0)
		}
		if ok {
			c.done <- struct{}{}
			// The send readies the writer on this worker's P, behind the
			// next chunk: with every P judging, it would wait for this one
			// to block or be preempted (10 ms), and the reader, waiting
			// for the chunk the writer frees, with it. Yield so that both
			// run now; a yield per chunk costs a microsecond.
			runtime.Gosched()
		}
	}
}

// write copies the chunks' output in input order and sums their counts.
// On an output error or when MaxInvalid is reached it returns at once; the
// reader and workers then wind down by themselves.
func (p *pipeline) write(st *Stats) error {
	for {
		select {
		case c, ok := <-p.order:
			if !ok {
				if p.hold != nil {
					return p.hold.release(p.cfg, st)
				}
				return nil
			}
			if err := p.writeChunk(c, st); err != nil || st.Stopped {
				return err
			}
		case <-p.cfg.Interrupt:
			// Write what has been read; the reader stops at its next
			// chunk, and a read it is blocked in (a terminal, a pipe) is
			// abandoned with the partial chunk it fills.
			for {
				select {
				case c, ok := <-p.order:
					if !ok {
						return nil
					}
					if err := p.writeChunk(c, st); err != nil || st.Stopped {
						return err
					}
				default:
					return nil
				}
			}
		}
	}
}

// writeChunk writes c's output, piece by piece, as its worker judges it.
func (p *pipeline) writeChunk(c *chunk, st *Stats) error {
	cfg := p.cfg
	p.writing = c
	if c.seq == p.faulted {
		return p.skipChunk(c)
	}
	if p.hold != nil && p.hold.seq != 0 && p.hold.seq != c.seq {
		// The held input has ended without a fault.
		if err := p.hold.release(cfg, st); err != nil {
			return err
		}
	}
	for {
		<-c.done
		invalid := st.Invalid
		if h := p.hold; h != nil && h.held(c.seq) != nil {
			invalid += h.st.Invalid
		}
		if cfg.MaxInvalid > 0 && invalid+c.st.invalid >= cfg.MaxInvalid && c.st.invalid > 0 {
			if p.limiter == nil {
				p.limiter = newWorker(cfg, p.ruleSlots)
			}
			if c.mapped != nil {
				p.limiter.processMapped(c, c.from, cfg.MaxInvalid-invalid)
			} else {
				p.limiter.process(c, c.from, cfg.MaxInvalid-invalid)
			}
			st.Stopped = true
		}
		if err := p.emit(c, st); err != nil {
			return err
		}
		if st.Stopped {
			return nil
		}
		if !c.partial {
			break
		}
		c.out, c.validOut, c.invalidOut = c.out[:0], c.validOut[:0], c.invalidOut[:0]
		c.extracted = c.extracted[:0]
		c.resetAlso()
		c.st.reset(p.ruleSlots)
		c.resume <- struct{}{}
	}
	if c.fault {
		p.faulted = c.seq
		p.inputErrors.Add(1)
		cfg.Diagnose(faultMessage(c))
	}
	p.recycle(c)
	return nil
}

// skipChunk waits for the worker to be done with a chunk of an input
// whose file was found truncated before it, and recycles it unwritten.
func (p *pipeline) skipChunk(c *chunk) error {
	for {
		<-c.done
		if !c.partial {
			break
		}
		c.resume <- struct{}{}
	}
	p.recycle(c)
	return nil
}

func (p *pipeline) emit(c *chunk, st *Stats) error {
	cfg := p.cfg
	if h := p.hold; h != nil {
		if c.compressed && c.kind != kindDiagnostic {
			cfg.Progress.Records.Add(c.st.records)
			return h.keep(c)
		}
		if c.kind == kindDiagnostic && h.held(c.seq) != nil {
			n, err := h.drop()
			if err != nil {
				return err
			}
			c.diag += dropNote(n)
		}
	}
	// Count before writing, so that a run cut short by a closed pipe
	// still knows the verdicts it judged.
	s := &c.st
	st.addChunk(s)
	st.countInput(c.seq, c.input, s.records, s.invalid)
	if len(c.out) > 0 {
		if _, err := cfg.Findings.Write(c.out); err != nil {
			return &OutputError{Name: "stdout", Err: err}
		}
	}
	for i, b := range c.also {
		if len(b) > 0 {
			if _, err := cfg.Also[i].W.Write(b); err != nil {
				return &OutputError{Name: cfg.Also[i].Name, Err: err}
			}
		}
	}
	if len(c.validOut) > 0 {
		if _, err := cfg.ValidOut.Write(c.validOut); err != nil {
			return &OutputError{Name: "--valid-out", Err: err}
		}
	}
	if len(c.invalidOut) > 0 {
		if _, err := cfg.InvalidOut.Write(c.invalidOut); err != nil {
			return &OutputError{Name: "--invalid-out", Err: err}
		}
	}
	if cfg.Collect != nil && len(c.extracted) > 0 {
		if err := cfg.Collect(c.extracted); err != nil {
			return &OutputError{Name: "digest", Err: err}
		}
	}
	cfg.Progress.Records.Add(s.records)
	if c.kind == kindDiagnostic {
		cfg.Diagnose(c.diag)
	}
	return nil
}

// recycle returns a chunk to the free list. Buffers grown for one long
// record are dropped rather than kept for the rest of the run.
func (p *pipeline) recycle(c *chunk) {
	p.writing = nil
	if m := c.mapped; m != nil {
		m.judged(c.offset + int64(len(c.buf)))
		c.mapped, c.buf = nil, nil
		m.release()
	}
	if cap(c.buf) > 4*p.cfg.ChunkSize || cap(c.mem) > 4*p.cfg.ChunkSize {
		c.buf, c.mem = nil, nil
	}
	if cap(c.ends) > 4*p.cfg.ChunkSize/lineEndsPer {
		// The line ends of a chunk grown for a long record and the
		// lines read after it.
		c.ends = nil
	}
	c.out = shrink(c.out, 4*p.cfg.ChunkSize)
	c.validOut = shrink(c.validOut, 4*p.cfg.ChunkSize)
	c.invalidOut = shrink(c.invalidOut, 4*p.cfg.ChunkSize)
	c.extracted = shrink(c.extracted, 4*p.cfg.ChunkSize)
	for i := range c.also {
		c.also[i] = shrink(c.also[i], 4*p.cfg.ChunkSize)
	}
	p.free <- c
}

// releaseInFlight lets go of the mappings held by the chunks still in
// flight when the writer stopped early, once the reader and the workers,
// which may still read them, have ended; otherwise each such run left
// its mapped inputs mapped and open. A reader blocked for good in a read
// of a pipe keeps them, as it keeps its goroutine.
func (p *pipeline) releaseInFlight() {
	p.running.Wait()
	if c := p.writing; c != nil && c.mapped != nil {
		c.mapped.release()
		c.mapped = nil
	}
	for c := range p.order {
		if c.mapped != nil {
			c.mapped.release()
			c.mapped = nil
		}
	}
}

func shrink(b []byte, limit int) []byte {
	if cap(b) > limit {
		return nil
	}
	return b[:0]
}

func codeName(code int) string { return fastvalidate.Code(code).String() }

// errHalted ends reading when the writer has stopped.
var errHalted = errors.New("halted")
