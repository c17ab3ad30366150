package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cardscan/cardscan/internal/migrate"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/visible"
)

// An NDJSON dump is migrated in chunks of lines, on one goroutine per
// core, and written in the order it was read: a chunk holds at most
// chunkLines lines or about chunkBytes of text, and at most twice as
// many chunks as workers are read ahead, which bounds memory to a few
// megabytes whatever the dump's size.
const (
	chunkLines = 256
	chunkBytes = 512 << 10
)

// migrateWorker migrates cards on one goroutine: a Migrator is not safe
// for concurrent use.
type migrateWorker struct {
	m   *migrate.Migrator
	rec migrate.Record
	buf []byte
}

// tally is what the cards of a chunk (or a whole card file) add to the
// run's summary and exit status.
type tally struct {
	counts [4]int // by status, in statusOrder
	// notWritten counts the changed cards --write failed to write: they
	// are out of counts[0], as no file holds them migrated.
	notWritten int
	wouldRun   bool // a card --check fails on
	changed    bool // a card's bytes changed
}

var statusOrder = [4]string{migrate.StatusMigrated, migrate.StatusUnchanged, migrate.StatusRefused, migrate.StatusFailed}

func (t *tally) add(o tally) {
	for i := range t.counts {
		t.counts[i] += o.counts[i]
	}
	t.notWritten += o.notWritten
	t.wouldRun = t.wouldRun || o.wouldRun
	t.changed = t.changed || o.changed
}

// one migrates a card, appending its record to recs when records are
// written, or else a line saying why to notes when it is refused or
// failed, and counts it in t.
func (w *migrateWorker) one(name string, line int, card []byte, t *tally, recs, notes *[]byte) []byte {
	w.rec.Input, w.rec.Line = name, line
	w.buf = w.m.Migrate(w.buf[:0], card, &w.rec)
	for i, s := range statusOrder {
		if w.rec.Status == s {
			t.counts[i]++
		}
	}
	// A card --check fails: one that would change, or a signed one that
	// would need a change it is refused; a file that is no A2A card (a
	// package.json under a walked directory) does not fail it.
	if w.rec.Changed() || w.rec.Status == migrate.StatusFailed ||
		(w.rec.Status == migrate.StatusRefused && len(w.rec.Changes) > 0 && w.rec.Changes[0].Rule == "migrate.signed") {
		t.wouldRun = true
	}
	w.record(recs, notes)
	return w.buf
}

// record appends the record of the card just migrated to recs when
// records are written, or else to notes the line saying why it was
// refused or failed.
func (w *migrateWorker) record(recs, notes *[]byte) {
	if recs != nil {
		b, _ := json.Marshal(&w.rec) // a Record always marshals
		// Card text written as verdict records write it (issue #37).
		*recs = append(append(*recs, visible.EscapeJSON(b)...), '\n')
	} else if notes != nil {
		*notes = appendRefusal(*notes, &w.rec)
	}
}

// appendRefusal appends a line saying why a refused or failed card was
// not migrated: its input, line in a dump, status and the refusal's rule
// and sentence, card text escaped for a terminal. Other cards add none.
func appendRefusal(dst []byte, rec *migrate.Record) []byte {
	if rec.Status != migrate.StatusRefused && rec.Status != migrate.StatusFailed {
		return dst
	}
	dst = append(dst, "migrate: "...)
	dst = append(dst, report.TextSafe(rec.Input)...)
	if rec.Line > 0 {
		dst = fmt.Appendf(dst, ":%d", rec.Line)
	}
	dst = append(dst, ": "+rec.Status...)
	for i := len(rec.Changes) - 1; i >= 0; i-- {
		if c := rec.Changes[i]; c.Action == "refused" {
			dst = append(dst, ": "+c.Rule+": "...)
			dst = append(dst, report.TextSafe(c.Message)...)
			break
		}
	}
	if len(rec.Errors) > 0 {
		e := rec.Errors[0]
		dst = append(dst, "; first: "+e.Rule+" at "...)
		dst = append(dst, report.TextSafe(e.Path+": "+e.Message)...)
	}
	return append(dst, '\n')
}

// chunk is a run of lines of a dump and, once done is closed, what
// migrating them gives.
type chunk struct {
	name      string
	firstLine int
	text      []byte    // the lines with their terminators
	ends      [][2]int  // each line's text end and terminator end in text
	done      chan bool // closed when out, recs, notes and tally are set
	out       []byte
	recs      []byte
	notes     []byte // without records: why cards were refused, a line each
	tally     tally
	// barrier, when set, makes the writer stop at this place in the
	// stream and wait while the reader writes a line itself.
	barrier *barrier
}

type barrier struct{ reached, resume chan bool }

// process migrates a chunk's lines; lines that do not change are copied.
func (w *migrateWorker) process(c *chunk, cards, records, write bool) {
	recs, notes := &c.recs, (*[]byte)(nil)
	if !records {
		recs, notes = nil, &c.notes
	}
	start := 0
	for i, e := range c.ends {
		text, term := c.text[start:e[0]], c.text[e[0]:e[1]]
		start = e[1]
		res := text
		if len(bytes.TrimSpace(text)) > 0 {
			migrated := w.one(c.name, c.firstLine+i, text, &c.tally, recs, notes)
			if w.rec.Changed() && w.rec.Status != migrate.StatusFailed {
				res, c.tally.changed = compact(migrated), true
			}
		}
		if cards {
			if len(term) == 0 && !write {
				term = []byte{'\n'}
			}
			c.out = append(append(c.out, res...), term...)
		}
	}
	close(c.done)
}

// lines migrates an NDJSON stream, one card per line; with --write, into
// a temporary file renamed over the input only if a card changed.
func (r *migrateRun) lines(in pipeline.Input, src *bufio.Reader) error {
	var tmp *os.File
	var tw *bufio.Writer
	out := r.cards
	if r.o.write {
		var err error
		if tmp, err = os.CreateTemp(filepath.Dir(in.Path), "."+filepath.Base(in.Path)+".*"); err != nil {
			return err
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		tw = bufio.NewWriterSize(tmp, 256<<10)
		out = tw
	}
	workers := len(r.workers)
	work := make(chan *chunk, workers)
	order := make(chan *chunk, 2*workers)
	for _, w := range r.workers {
		go func() {
			for c := range work {
				w.process(c, out != nil, r.records != nil, r.o.write)
			}
		}()
	}
	written := make(chan error, 1)
	var t tally
	go func() { written <- r.writeChunks(order, out, &t) }()
	readErr := r.readChunks(in.Name, src, work, order, out)
	close(work)
	close(order)
	writeErr := <-written
	err := errors.Join(readErr, writeErr)
	if err == nil && r.o.write && t.changed {
		if err = tw.Flush(); err == nil {
			err = r.commit(in.Path, tmp)
		}
	}
	if err != nil && r.o.write {
		t.unwritten()
	}
	r.tally.add(t)
	return err
}

// unwritten moves the migrated cards of a file --write failed to
// rewrite to notWritten: the file holds none of them.
func (t *tally) unwritten() {
	t.notWritten += t.counts[0]
	t.counts[0] = 0
}

// writeChunks writes the chunks' cards and records in the order they
// were read; after a write error it only drains.
func (r *migrateRun) writeChunks(order <-chan *chunk, out io.Writer, t *tally) error {
	var err error
	for c := range order {
		if c.barrier != nil {
			close(c.barrier.reached)
			<-c.barrier.resume
			continue
		}
		<-c.done
		t.add(c.tally)
		if err != nil {
			continue
		}
		if out != nil {
			_, err = out.Write(c.out)
		}
		if r.records != nil && err == nil {
			_, err = r.records.Write(c.recs)
		}
		r.refusals(c.notes)
	}
	return err
}

// readChunks reads the dump into chunks for the workers, in order. A
// line longer than --max-record is reported and written as it was, by
// the reader itself while the writer waits at its place, so that it is
// never held whole.
func (r *migrateRun) readChunks(name string, br *bufio.Reader, work, order chan<- *chunk, out io.Writer) error {
	c := &chunk{name: name, firstLine: 1, done: make(chan bool)}
	send := func(next int) {
		if len(c.ends) > 0 {
			order <- c
			work <- c
		}
		c = &chunk{name: name, firstLine: next, done: make(chan bool)}
	}
	defer func() { send(0) }()
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) || len(bytes.TrimRight(b, "\r\n")) > int(r.o.maxRecord) {
			send(line)
			if err := r.longLine(name, line, br, b, err, order, out); err != nil {
				return err
			}
			c.firstLine = line + 1
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if len(b) == 0 {
			return nil
		}
		c.text = append(c.text, b...)
		c.ends = append(c.ends, [2]int{len(c.text) - (len(b) - len(bytes.TrimRight(b, "\r\n"))), len(c.text)})
		if len(c.ends) == chunkLines || len(c.text) >= chunkBytes {
			send(line + 1)
		}
		if err != nil {
			return nil
		}
	}
}

// longLine handles a line that does not fit the read buffer, or is
// longer than --max-record: up to --max-record it is read whole and
// migrated in its place; past it, it is reported and copied as it was.
// b is what ReadSlice gave, with err.
func (r *migrateRun) longLine(name string, line int, br *bufio.Reader, b []byte, err error, order chan<- *chunk, out io.Writer) error {
	long := append([]byte(nil), b...)
	for errors.Is(err, bufio.ErrBufferFull) && len(long) <= int(r.o.maxRecord)+2 {
		b, err = br.ReadSlice('\n')
		long = append(long, b...)
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return fmt.Errorf("line %d: %w", line, err)
	}
	text := bytes.TrimRight(long, "\r\n")
	if len(text) <= int(r.o.maxRecord) {
		// A card between the buffer's size and --max-record: a chunk of
		// its own, migrated here by the reader's own worker.
		c := &chunk{name: name, firstLine: line, text: long, ends: [][2]int{{len(text), len(long)}}, done: make(chan bool)}
		r.solo.process(c, out != nil, r.records != nil, r.o.write)
		order <- c
		return nil
	}
	r.con.Errorf("migrate: %s:%d: longer than --max-record %s; the line is kept as it was", name, line, r.o.maxRecord.String())
	r.ioErrors++
	// Its record, refused, so that a reader of the records does not lose
	// it; the stderr line above stays, as the run's status is 3.
	var recs []byte
	r.solo.rec.Input, r.solo.rec.Line = name, line
	r.solo.m.Unread(&r.solo.rec, fmt.Sprintf("the line is longer than --max-record %s and was not read past line %d, column %d: kept as it was", r.o.maxRecord.String(), line, int(r.o.maxRecord)+1))
	r.solo.record(&recs, nil)
	r.tally.counts[2]++ // refused, in statusOrder
	bar := &barrier{reached: make(chan bool), resume: make(chan bool)}
	order <- &chunk{barrier: bar}
	<-bar.reached
	defer close(bar.resume)
	var werr error
	if r.records != nil {
		// The writer waits at the barrier: the records are the reader's.
		_, werr = r.records.Write(recs)
	}
	if out != nil && werr == nil {
		_, werr = out.Write(long)
	}
	for errors.Is(err, bufio.ErrBufferFull) && werr == nil {
		b, err = br.ReadSlice('\n')
		if out != nil {
			_, werr = out.Write(b)
		}
	}
	if werr != nil {
		return werr
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return fmt.Errorf("line %d: %w", line, err)
	}
	return nil
}

// refusals writes the lines of notes (appendRefusal's) to the console.
func (r *migrateRun) refusals(notes []byte) {
	for len(notes) > 0 {
		line, rest, _ := bytes.Cut(notes, []byte{'\n'})
		r.con.Errorf("%s", line)
		notes = rest
	}
}

// newWorkers returns n workers, each with its own Migrator.
func newWorkers(opts migrate.Options, n int) ([]*migrateWorker, error) {
	ws := make([]*migrateWorker, n)
	for i := range ws {
		m, err := migrate.New(opts)
		if err != nil {
			return nil, err
		}
		ws[i] = &migrateWorker{m: m}
	}
	return ws, nil
}
