package pipeline

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/summary"
)

// hold keeps the output of a compressed input (its verdicts and record
// copies, and their counts) in a temporary file until the input has been
// read to its end, so that every gzip member's CRC and every zstd frame's
// checksum has passed before any of it is written (Config.HoldCompressed).
// A stream that turns out corrupt may have handed out bytes that are not
// what was compressed, lines that were never in the dump; its held output
// is then dropped. Disk, not memory, takes what a large input's output
// needs.
type hold struct {
	seq  int // the input held, or 0 for none
	name string
	f    *os.File // unlinked once created
	w    *bufio.Writer
	st   Stats
	buf  []byte
}

const (
	heldFindings byte = iota
	heldValid
	heldInvalid
	heldExtracted
	// heldAlso + i holds Config.Also[i]'s verdicts.
	heldAlso
)

func newStats() Stats {
	return Stats{Counts: summary.Counts{Rules: map[string]int64{}, Profiles: map[string]int64{}}, ProfileInvalid: map[string]int64{}}
}

// inputTally counts the records of the input being read.
type inputTally struct {
	seq              int // 0 for none
	name             string
	records, invalid int64
}

// countInput adds records of input seq. The writer sees each input's
// chunks together and in order, so a new seq ends the previous input.
func (st *Stats) countInput(seq int, name string, records, invalid int64) {
	if st.input.seq != seq {
		st.endInput()
		st.input = inputTally{seq: seq, name: name}
	}
	st.input.records += records
	st.input.invalid += invalid
}

// endInput ranks the input being counted among the worst.
func (st *Stats) endInput() {
	if t := st.input; t.seq != 0 {
		st.WorstInputs = summary.KeepWorst(st.WorstInputs, summary.InputCount{Input: t.name, Records: t.records, Invalid: t.invalid})
	}
	st.input = inputTally{}
}

// keep adds c's output and counts to the held input's.
func (h *hold) keep(c *chunk) error {
	if h.f == nil {
		f, err := os.CreateTemp("", "cardscan-hold-")
		if err != nil {
			return &OutputError{Name: "held output", Err: err}
		}
		os.Remove(f.Name())
		h.f, h.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	if h.seq != c.seq {
		h.seq, h.name, h.st = c.seq, c.input, newStats()
	}
	h.st.addChunk(&c.st)
	h.st.countInput(c.seq, c.input, c.st.records, c.st.invalid)
	for _, seg := range []struct {
		kind byte
		b    []byte
	}{{heldFindings, c.out}, {heldValid, c.validOut}, {heldInvalid, c.invalidOut}, {heldExtracted, c.extracted}} {
		if err := h.keepSegment(seg.kind, seg.b); err != nil {
			return err
		}
	}
	for i, b := range c.also {
		if err := h.keepSegment(heldAlso+byte(i), b); err != nil {
			return err
		}
	}
	return nil
}

func (h *hold) keepSegment(kind byte, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	var head [1 + binary.MaxVarintLen64]byte
	head[0] = kind
	n := binary.PutUvarint(head[1:], uint64(len(b)))
	h.w.Write(head[:1+n])
	if _, err := h.w.Write(b); err != nil {
		return &OutputError{Name: "held output", Err: err}
	}
	return nil
}

// held reports the counts held for input seq, if any.
func (h *hold) held(seq int) *Stats {
	if h.seq == 0 || h.seq != seq {
		return nil
	}
	return &h.st
}

// release writes the held input's output and adds its counts to st: its
// stream has ended without a fault.
func (h *hold) release(cfg *Config, st *Stats) error {
	if h.seq == 0 {
		return nil
	}
	h.seq = 0
	st.addStats(&h.st)
	if err := h.w.Flush(); err != nil {
		return &OutputError{Name: "held output", Err: err}
	}
	if _, err := h.f.Seek(0, io.SeekStart); err != nil {
		return &OutputError{Name: "held output", Err: err}
	}
	r := bufio.NewReaderSize(h.f, 64<<10)
	for {
		kind, err := r.ReadByte()
		if errors.Is(err, io.EOF) {
			break
		}
		n, err2 := binary.ReadUvarint(r)
		if err != nil || err2 != nil {
			return &OutputError{Name: "held output", Err: errors.Join(err, err2)}
		}
		if uint64(cap(h.buf)) < n {
			h.buf = make([]byte, n)
		}
		b := h.buf[:n]
		if _, err := io.ReadFull(r, b); err != nil {
			return &OutputError{Name: "held output", Err: err}
		}
		if kind == heldExtracted {
			if err := cfg.Collect(b); err != nil {
				return &OutputError{Name: "digest", Err: err}
			}
			continue
		}
		var dst io.Writer = cfg.Findings
		name := "stdout"
		switch kind {
		case heldValid:
			dst, name = cfg.ValidOut, "--valid-out"
		case heldInvalid:
			dst, name = cfg.InvalidOut, "--invalid-out"
		case heldFindings:
		default:
			out := cfg.Also[kind-heldAlso]
			dst, name = out.W, out.Name
		}
		if _, err := dst.Write(b); err != nil {
			return &OutputError{Name: name, Err: err}
		}
	}
	if cap(h.buf) > 4<<20 {
		h.buf = nil
	}
	return h.reset()
}

// drop forgets the held input's output and returns how many records it
// held.
func (h *hold) drop() (records int64, err error) {
	if h.seq == 0 {
		return 0, nil
	}
	h.seq = 0
	return h.st.Records, h.reset()
}

func (h *hold) reset() error {
	h.w.Reset(h.f)
	if err := h.f.Truncate(0); err != nil {
		return &OutputError{Name: "held output", Err: err}
	}
	if _, err := h.f.Seek(0, io.SeekStart); err != nil {
		return &OutputError{Name: "held output", Err: err}
	}
	return nil
}

func (h *hold) close() {
	if h.f != nil {
		h.f.Close()
	}
}

// dropNote is what a diagnostic adds when held records are dropped.
func dropNote(records int64) string {
	if records == 1 {
		return "; the record read from it before was not written (--on-corrupt drop)"
	}
	return fmt.Sprintf("; the %d records read from it before were not written (--on-corrupt drop)", records)
}

// addChunk adds a chunk's counts to st.
func (st *Stats) addChunk(s *chunkStats) {
	st.Records += s.records
	st.Valid += s.valid
	st.Invalid += s.invalid
	st.Errors += s.errors
	st.Warnings += s.warnings
	st.Signed += s.signed
	st.Verified += s.verified
	st.SignatureFindings += s.signatureFindings
	st.SchemaWouldPass += s.schemaWouldPass
	for status, n := range s.outcomes {
		if n != 0 {
			if st.SignatureOutcomes == nil {
				st.SignatureOutcomes = map[string]int64{}
			}
			st.SignatureOutcomes[cardsig.Status(status).String()] += n
		}
	}
	if s.anyFindings {
		for code, n := range s.rules {
			if n != 0 {
				st.Rules[codeName(code)] += n
			}
		}
	}
	for _, pc := range s.profiles {
		if pc.n != 0 {
			st.Profiles[pc.name] += pc.n
		}
		if pc.invalid != 0 {
			st.ProfileInvalid[pc.name] += pc.invalid
		}
	}
}

// addStats adds o's record counts to st.
func (st *Stats) addStats(o *Stats) {
	// One process's counts cannot overflow: each record is a byte or
	// more of input read, and an int64 of bytes is 9 EB.
	_ = st.Counts.Add(&o.Counts)
	st.Signed += o.Signed
	st.Verified += o.Verified
	st.SignatureFindings += o.SignatureFindings
	st.SchemaWouldPass += o.SchemaWouldPass
	for k, n := range o.ProfileInvalid {
		st.ProfileInvalid[k] += n
	}
	for _, c := range o.WorstInputs {
		st.WorstInputs = summary.KeepWorst(st.WorstInputs, c)
	}
	if t := o.input; t.seq != 0 {
		st.countInput(t.seq, t.name, t.records, t.invalid)
	}
}
