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
	"os"
	"path/filepath"
	"strconv"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/klauspost/compress/zstd"
	"github.com/zeebo/xxh3"
)

// A digest file holds what one shard of a sharded run kept of its records
// (--digest-out), for cardscan merge to combine with the other shards':
// --cross-card's claims, or diff's digests of both dumps. It is a zstd
// stream of a header, the records in sort order, each tagged with its
// place in one run over all inputs, and a trailer; a file without its
// trailer (a writer stopped mid-way) is refused. Records are split by a
// hash of their key among the parts of a set (PartName), so that P merges
// run apart each judge every key of their part.

// Digest file kinds.
const (
	ClaimsFile byte = 'c' // --cross-card's claims
	DiffFile   byte = 'd' // diff's digests, of the old dump (side 0) and the new (side 1)
)

const digestMagic = "cardscan-digest\x00\x01"

// digestTrailer ends a complete file, after a record of length 0 and the
// count of records.
const digestTrailer = "end"

// PartName is the file of part k of parts of a digest set written to path.
func PartName(path string, k, parts int) string {
	if parts <= 1 {
		return path
	}
	return path + ".part-" + strconv.Itoa(k) + "-of-" + strconv.Itoa(parts)
}

// DigestSet collects one shard's records for its digest file.
type DigestSet struct {
	kind  byte
	mode  KeyMode
	dir   *spillDir
	st    *store
	order map[string]int
}

// NewClaimDigests returns a DigestSet of --cross-card's claims. order
// places each input among all of a run's, as one run would read them;
// memory bounds what is held before it spills, as --memory does.
func NewClaimDigests(memory int64, order map[string]int) *DigestSet {
	removeStaleOnce()
	dir := &spillDir{}
	return &DigestSet{kind: ClaimsFile, dir: dir, order: order,
		st: newStore("claims", dir, max(memory/2, 1), tagged(byGroup))}
}

// NewDiffDigests returns a DigestSet of diff's digests of both dumps,
// keyed by mode.
func NewDiffDigests(memory int64, mode KeyMode, order map[string]int) *DigestSet {
	removeStaleOnce()
	dir := &spillDir{}
	return &DigestSet{kind: DiffFile, mode: mode, dir: dir, order: order,
		st: newStore("digests", dir, max(memory/2, 1), tagged(func(rec []byte) (byte, []byte) {
			_, key := digestKey(rec)
			return 0, key
		}))}
}

// SetOrder replaces the places of the inputs, for diff's second dump.
func (s *DigestSet) SetOrder(order map[string]int) { s.order = order }

// tag is what a digest file adds to each record: its side, and its place
// in one run over every input, the input's and the record's offset in it.
type tag struct {
	side   byte
	input  uint64
	offset uint64
}

func compareTags(a, b tag) int {
	if c := cmp.Compare(a.side, b.side); c != 0 {
		return c
	}
	if c := cmp.Compare(a.input, b.input); c != 0 {
		return c
	}
	return cmp.Compare(a.offset, b.offset)
}

func appendTag(dst []byte, t tag) []byte {
	dst = append(dst, t.side)
	dst = binary.AppendUvarint(dst, t.input)
	return binary.AppendUvarint(dst, t.offset)
}

// splitTag splits a tagged record into its tag and the record.
func splitTag(rec []byte) (tag, []byte, bool) {
	r := reader{b: rec}
	t := tag{side: r.byte(), input: r.uvarint(), offset: r.uvarint()}
	return t, r.rest(), !r.bad
}

// tagged is the sort key of tagged records: the side, then the record's own
// sort key. Records of one key keep their order of arrival in a store,
// which for one shard is their tags' order.
func tagged(inner func([]byte) (byte, []byte)) func([]byte) (byte, []byte) {
	return func(rec []byte) (byte, []byte) {
		t, rest, _ := splitTag(rec)
		rank, key := inner(rest)
		return t.side*16 + rank, key
	}
}

// Extract returns a function for pipeline.Config.Extract: the claims or
// digests of each record, tagged with side (0, or 1 for diff's new dump).
func (s *DigestSet) Extract(side byte) func() func(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte {
	return func() func(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte {
		x := NewExtractor(s.mode)
		inner := x.Append
		if s.kind == ClaimsFile {
			x = NewExtractor(KeyID)
			x.claimsOnly = true
			inner = x.AppendClaims
		}
		var scratch []byte
		return func(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte {
			scratch = inner(scratch[:0], vd, v)
			t := tag{side: side, input: uint64(s.order[vd.Input]), offset: uint64(vd.Offset)}
			for rest := scratch; ; {
				rec, r, ok := nextDigest(rest)
				if !ok {
					return dst
				}
				start := len(dst)
				dst = append(dst, 0, 0, 0, 0)
				dst = appendTag(dst, t)
				dst = append(dst, rec...)
				binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
				rest = r
			}
		}
	}
}

// Add adds what Extract's functions appended.
func (s *DigestSet) Add(b []byte) error { return s.st.add(b) }

// Close removes the temporary files.
func (s *DigestSet) Close() {
	s.st.close()
	s.dir.remove()
}

// partOf is the part, of parts, of an untagged record of a file of kind:
// by the hash of its key (with a claim's group), which is what a merge
// groups records by.
func partOf(kind byte, rec []byte, parts int) int {
	if parts <= 1 {
		return 0
	}
	var h uint64
	if kind == ClaimsFile {
		r := reader{b: rec}
		r.byte()
		r.bytes()
		h = xxh3.Hash(rec[:r.off])
	} else {
		_, key := digestKey(rec)
		h = xxh3.Hash(key)
	}
	return int(h % uint64(parts))
}

// Write writes the set's records to parts files (PartName), each put in
// place whole when it is complete: a re-run shard replaces them, and one
// stopped leaves the files of before.
func (s *DigestSet) Write(path string, parts int) error {
	m, err := s.st.stream()
	if err != nil {
		return err
	}
	ws := make([]*digestWriter, parts)
	defer func() {
		for _, w := range ws {
			if w != nil {
				w.abort()
			}
		}
	}()
	for k := range ws {
		if ws[k], err = newDigestWriter(PartName(path, k, parts), s.kind, s.mode, k, parts); err != nil {
			return err
		}
	}
	for {
		rec, ok, err := m.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		_, inner, good := splitTag(rec)
		if !good {
			return errGarbledRun
		}
		if err := ws[partOf(s.kind, inner, parts)].add(rec); err != nil {
			return err
		}
	}
	for k, w := range ws {
		if err := w.finish(); err != nil {
			return err
		}
		ws[k] = nil
	}
	return nil
}

// digestWriter writes one digest file, to a temporary file renamed over
// its path by finish.
type digestWriter struct {
	path string
	f    *os.File
	z    *zstd.Encoder
	w    *bufio.Writer
	n    uint64
	buf  []byte
}

// digestWindow is the zstd window of digest files: a merge holds a decoder
// of that much per file it reads.
const digestWindow = 1 << 20

func newDigestWriter(path string, kind byte, mode KeyMode, part, parts int) (*digestWriter, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, &SpillError{What: "digest file", Path: path, Err: unwrapPath(err)}
	}
	z, err := zstd.NewWriter(f, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(digestWindow), zstd.WithLowerEncoderMem(true))
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	w := &digestWriter{path: path, f: f, z: z, w: bufio.NewWriterSize(z, runBufSize)}
	head := append([]byte(digestMagic), kind, byte(mode))
	head = binary.AppendUvarint(head, uint64(part))
	head = binary.AppendUvarint(head, uint64(parts))
	w.w.Write(head)
	return w, nil
}

func (w *digestWriter) add(rec []byte) error {
	w.n++
	w.buf = binary.AppendUvarint(w.buf[:0], uint64(len(rec)))
	w.w.Write(w.buf)
	_, err := w.w.Write(rec)
	return w.fail(err)
}

func (w *digestWriter) fail(err error) error {
	if err == nil {
		return nil
	}
	return &SpillError{What: "digest file", Path: w.path, Err: unwrapPath(err)}
}

// finish writes the trailer and puts the file in place.
func (w *digestWriter) finish() error {
	w.buf = binary.AppendUvarint(append(w.buf[:0], 0), w.n)
	w.w.Write(append(w.buf, digestTrailer...))
	err := w.w.Flush()
	if err == nil {
		err = w.z.Close()
	}
	if err == nil {
		err = w.f.Chmod(0o644)
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(w.f.Name(), w.path)
	}
	if err != nil {
		os.Remove(w.f.Name())
		return w.fail(err)
	}
	w.f = nil
	return nil
}

func (w *digestWriter) abort() {
	if w.f != nil {
		w.z.Close()
		w.f.Close()
		os.Remove(w.f.Name())
		w.f = nil
	}
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// DigestFileError is a digest file that cannot be merged: unreadable,
// not a digest file, cut short, or of another kind than the others.
type DigestFileError struct {
	Path string
	Msg  string
}

func (e *DigestFileError) Error() string { return e.Path + ": " + e.Msg }

// digestFile reads a digest file a record at a time: the records of one
// side, or of both (side -1).
type digestFile struct {
	path   string
	f      *os.File
	z      *zstd.Decoder
	r      *bufio.Reader
	kind   byte
	mode   KeyMode
	side   int
	n      uint64 // records read
	seq    int    // its place among the files merged, for a stable order
	rec    []byte
	tag    tag
	body   []byte // the record without its tag
	rank   byte
	key    []byte
	ended  bool
	header struct{ part, parts uint64 }
	info   os.FileInfo // nil when it could not be stated
	held   *int64      // the bytes of record buffer its set's files hold
}

func openDigestFile(path string, side int) (*digestFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &DigestFileError{Path: path, Msg: unwrapPath(err).Error()}
	}
	// The window of the writer's, and no more: a frame claiming a larger
	// one was not written by cardscan, and would hold that much memory
	// for each of up to MaxMergeFiles files.
	z, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxWindow(digestWindow))
	if err != nil {
		f.Close()
		return nil, err
	}
	d := &digestFile{path: path, f: f, z: z, r: bufio.NewReaderSize(z, runBufSize), side: side}
	d.info, _ = f.Stat()
	head := make([]byte, len(digestMagic)+2)
	if _, err := io.ReadFull(d.r, head); err != nil || string(head[:len(digestMagic)]) != digestMagic {
		zstdStream := err != nil && zstdMagicAt(f)
		d.close()
		if wideFrame(err) {
			return nil, &DigestFileError{Path: path, Msg: wideWindow}
		}
		name := digestMagic[:len(digestMagic)-1] // without the format version
		if err == nil && string(head[:len(name)]) == name {
			return nil, &DigestFileError{Path: path, Msg: fmt.Sprintf("a digest file of format version %d, written by another cardscan; this one reads version %d",
				head[len(name)], digestMagic[len(name)])}
		}
		if zstdStream {
			// A zstd stream that ends or breaks before the header is
			// out: a digest file cut short or damaged, not another file.
			return nil, &DigestFileError{Path: path, Msg: streamFault(err)}
		}
		return nil, &DigestFileError{Path: path, Msg: "not a cardscan digest file (--digest-out writes them)"}
	}
	d.kind, d.mode = head[len(digestMagic)], KeyMode(head[len(digestMagic)+1])
	var e1, e2 error
	d.header.part, e1 = binary.ReadUvarint(d.r)
	d.header.parts, e2 = binary.ReadUvarint(d.r)
	if e1 != nil || e2 != nil || d.kind != ClaimsFile && d.kind != DiffFile {
		d.close()
		return nil, &DigestFileError{Path: path, Msg: "garbled header"}
	}
	return d, nil
}

// wideWindow refuses a digest file whose zstd window is past the writer's.
var wideWindow = fmt.Sprintf("a zstd window larger than the %d MiB cardscan writes digest files with: not a digest file it wrote", digestWindow>>20)

// wideFrame says the decoder refused a frame for its window: declared, or
// (a frame of one segment) its whole content's size.
func wideFrame(err error) bool {
	return errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded)
}

// cutShort is why a record or the trailer could not be read: the file
// ends (its writer stopped), or its zstd window is past the writer's.
func (d *digestFile) cutShort(err error) error {
	if wideFrame(err) {
		return d.garbled(wideWindow, nil)
	}
	if errors.Is(err, errHeld) {
		return d.garbled(fmt.Sprintf("states a record of a size that, with the records held at once of the other files, passes %d MiB: records are kilobytes", maxHeldRecords>>20), nil)
	}
	return d.garbled(streamFault(err), nil)
}

// streamFault says why a digest file's zstd stream gave no more bytes:
// it ended (its writer was stopped, or a copy of it was), or the decoder
// found it damaged.
func streamFault(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "cut short, with no trailer (was its writer stopped, or its copy?)"
	}
	return "corrupt: its zstd stream does not decode (" + err.Error() + ")"
}

// zstdMagicAt says f starts as a zstd frame does.
func zstdMagicAt(f *os.File) bool {
	var magic [4]byte
	_, err := f.ReadAt(magic[:], 0)
	return err == nil && magic == [4]byte{0x28, 0xb5, 0x2f, 0xfd}
}

func (d *digestFile) garbled(what string, err error) error {
	msg := what
	if err != nil {
		msg += ": " + err.Error()
	}
	return &DigestFileError{Path: d.path, Msg: msg}
}

// next reads the next record of the file's side; it reports false at the
// end of the side or the file, and an error for a file cut short.
func (d *digestFile) next() (bool, error) {
	for !d.ended {
		n, err := binary.ReadUvarint(d.r)
		if err != nil {
			return false, d.cutShort(err)
		}
		if n == 0 {
			return false, d.trailer()
		}
		if n > 1<<31 {
			return false, d.garbled("garbled record length", nil)
		}
		if err := d.readRecord(int(n)); err != nil {
			return false, d.cutShort(err)
		}
		d.n++
		t, body, ok := splitTag(d.rec)
		if !ok {
			return false, d.garbled("garbled record", nil)
		}
		if d.side >= 0 && int(t.side) != d.side {
			if int(t.side) < d.side {
				continue
			}
			// Sides follow one another: the rest is another side's.
			d.ended = true
			return false, nil
		}
		d.tag, d.body = t, body
		d.rank, d.key = d.sortKey(body)
		return true, nil
	}
	return false, nil
}

// maxHeldRecords bounds the bytes of the records a merge holds at once,
// the current one of each file. A record is one card's claims or digests,
// kilobytes, so MaxMergeFiles files hold megabytes (and sixteen cards of
// 16 MiB, the default --max-record, fit); files whose records state more
// are hostile or damaged. Go's collector lets the heap reach about twice
// what is held. A variable, for a test to lower.
var maxHeldRecords int64 = 256 << 20

// recordStep is how much of a record is read at a time: the length a
// file claims is believed only as its bytes arrive, so that a few bytes
// claiming gigabytes take no more than they hold (the buffer doubles, to
// at most twice what arrived).
const recordStep = 1 << 20

// readRecord reads the next n bytes into d.rec, counting its buffer
// against maxHeldRecords with the other files of its set.
func (d *digestFile) readRecord(n int) error {
	if n < cap(d.rec)/4 && cap(d.rec) > recordStep {
		// Let go of a buffer a large record grew, for the held bound.
		d.hold(-cap(d.rec))
		d.rec = nil
	}
	d.rec = d.rec[:0]
	for len(d.rec) < n {
		at := len(d.rec)
		step := min(n-at, recordStep)
		if at+step > cap(d.rec) {
			// Doubling, counted before it is allocated.
			grown := min(max(2*cap(d.rec), at+step), n)
			if err := d.hold(grown - cap(d.rec)); err != nil {
				return err
			}
			d.rec = append(make([]byte, 0, grown), d.rec...)
		}
		d.rec = d.rec[:at+step]
		if _, err := io.ReadFull(d.r, d.rec[at:]); err != nil {
			return err
		}
	}
	return nil
}

// errHeld is a merge's files holding records past maxHeldRecords.
var errHeld = errors.New("records held at once")

// hold counts delta bytes of record buffer for the files of d's set.
func (d *digestFile) hold(delta int) error {
	if d.held == nil {
		return nil
	}
	*d.held += int64(delta)
	if delta > 0 && *d.held > maxHeldRecords {
		return errHeld
	}
	return nil
}

func (d *digestFile) sortKey(body []byte) (byte, []byte) {
	if d.kind == ClaimsFile {
		return byGroup(body)
	}
	_, key := digestKey(body)
	return 0, key
}

// trailer checks the end of the file: the count of records and the
// trailer, and nothing after them.
func (d *digestFile) trailer() error {
	d.ended = true
	n, err := binary.ReadUvarint(d.r)
	end := make([]byte, len(digestTrailer))
	if err == nil {
		_, err = io.ReadFull(d.r, end)
	}
	if err != nil || string(end) != digestTrailer {
		return d.garbled("cut short, with no trailer (was its writer stopped?)", nil)
	}
	if n != d.n {
		return d.garbled(fmt.Sprintf("holds %d records, its trailer says %d", d.n, n), nil)
	}
	if _, err := d.r.ReadByte(); err != io.EOF {
		return d.garbled("data after the trailer", err)
	}
	return nil
}

func (d *digestFile) close() {
	d.z.Close()
	d.f.Close()
}

// fileMerger yields the records of several digest files in sort order,
// those of one key in the order of their tags: the order one run over all
// the shards' inputs would have.
type fileMerger struct {
	files []*digestFile // a heap of those with a record
	last  *digestFile
	count int64
	// The last record's place, to find one yielded again by another file.
	lastRank byte
	lastKey  []byte
	lastTag  tag
	lastFile *digestFile
}

func newFileMerger(files []*digestFile) (*fileMerger, error) {
	m := &fileMerger{}
	for _, f := range files {
		ok, err := f.next()
		if err != nil {
			return nil, err
		}
		if ok {
			m.files = append(m.files, f)
		}
	}
	heap.Init(m)
	return m, nil
}

// next returns the next record without its tag, valid until the next
// call.
func (m *fileMerger) next() ([]byte, bool, error) {
	if m.last != nil {
		m.lastRank, m.lastKey, m.lastTag, m.lastFile = m.last.rank, append(m.lastKey[:0], m.last.key...), m.last.tag, m.last
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
	if len(m.files) == 0 {
		return nil, false, nil
	}
	m.last = m.files[0]
	if err := m.again(); err != nil {
		return nil, false, err
	}
	m.count++
	return m.last.body, true, nil
}

// again refuses a record another file yielded just before: its key and
// its place in one run over all the inputs are the record's own, so two
// files holding it are one shard's file given twice (a copy, which
// os.SameFile cannot tell) or shards of runs over overlapping inputs.
// Files sort records of one key by place, so such twins come together.
func (m *fileMerger) again() error {
	f, prev := m.last, m.lastFile
	if prev == nil || prev == f || f.rank != m.lastRank || f.tag != m.lastTag || !bytes.Equal(f.key, m.lastKey) {
		return nil
	}
	return &DigestFileError{Path: f.path, Msg: fmt.Sprintf("holds a record that %s holds too (input %d, offset %d): one shard's file given twice, under another name, or shards of different runs; its records would be counted twice",
		prev.path, f.tag.input, f.tag.offset)}
}

func (m *fileMerger) Len() int { return len(m.files) }
func (m *fileMerger) Less(i, j int) bool {
	a, b := m.files[i], m.files[j]
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c < 0
	}
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	if c := compareTags(a.tag, b.tag); c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}
func (m *fileMerger) Swap(i, j int) { m.files[i], m.files[j] = m.files[j], m.files[i] }
func (m *fileMerger) Push(x any)    { m.files = append(m.files, x.(*digestFile)) }
func (m *fileMerger) Pop() any {
	f := m.files[len(m.files)-1]
	m.files = m.files[:len(m.files)-1]
	return f
}

// MaxMergeFiles bounds the digest files one merge reads at once: each
// holds a zstd decoder and buffers, a few MB.
const MaxMergeFiles = 4096

// openSet opens paths on side, checking they are all of one kind (and key
// mode) and that no part of a set is given with another part.
func openSet(paths []string, side int) ([]*digestFile, error) {
	if len(paths) > MaxMergeFiles {
		return nil, fmt.Errorf("%d digest files: a merge reads at most %d at once", len(paths), MaxMergeFiles)
	}
	var files []*digestFile
	fail := func(err error) ([]*digestFile, error) {
		for _, f := range files {
			f.close()
		}
		return nil, err
	}
	held := new(int64)
	for i, p := range paths {
		f, err := openDigestFile(p, side)
		if err != nil {
			return fail(err)
		}
		f.seq, f.held = i, held
		files = append(files, f)
		if twin := sameFileAs(files); twin != nil {
			return fail(&DigestFileError{Path: p, Msg: fmt.Sprintf("is %s, given twice: its records would be counted twice", twin.path)})
		}
		first := files[0]
		switch {
		case f.kind != first.kind:
			return fail(&DigestFileError{Path: p, Msg: fmt.Sprintf("holds %s, but %s holds %s: merge files of one kind", kindName(f.kind), first.path, kindName(first.kind))})
		case f.mode != first.mode:
			return fail(&DigestFileError{Path: p, Msg: fmt.Sprintf("was written with another --key than %s", first.path)})
		case f.header != first.header:
			return fail(&DigestFileError{Path: p, Msg: fmt.Sprintf("is part %d of %d, but %s is part %d of %d: merge the files of one part together",
				f.header.part, f.header.parts, first.path, first.header.part, first.header.parts)})
		}
	}
	return files, nil
}

// sameFileAs returns the file among files[:len-1] that is the last one,
// by identity (a path given twice, a link), or nil. Each file is stated
// once, when opened: at MaxMergeFiles, the comparisons take milliseconds.
func sameFileAs(files []*digestFile) *digestFile {
	last := files[len(files)-1]
	if last.info == nil {
		return nil
	}
	for _, f := range files[:len(files)-1] {
		if f.info != nil && os.SameFile(last.info, f.info) {
			return f
		}
	}
	return nil
}

func kindName(k byte) string {
	if k == ClaimsFile {
		return "--cross-card claims"
	}
	return "diff digests"
}

// DigestFileKind reads the kind of the digest file at path.
func DigestFileKind(path string) (byte, error) {
	f, err := openDigestFile(path, -1)
	if err != nil {
		return 0, err
	}
	defer f.close()
	return f.kind, nil
}

// MergeFiles judges the claims of the digest files at paths as one
// --cross-card run over all their shards' inputs would, writing the
// findings to w as Cross.Finish does. c supplies the levels and the memory
// bound of a group.
func (c *Cross) MergeFiles(paths []string, w report.VerdictWriter) (*CrossCounts, error) {
	files, err := openSet(paths, 0)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, f := range files {
			f.close()
		}
	}()
	if len(files) > 0 && files[0].kind != ClaimsFile {
		return nil, &DigestFileError{Path: files[0].path, Msg: "holds diff digests, not --cross-card claims"}
	}
	m, err := newFileMerger(files)
	if err != nil {
		return nil, err
	}
	counts := &CrossCounts{Rules: map[string]int64{}}
	bw := bufio.NewWriterSize(w, 64<<10)
	out := &findingWriter{c: c, counts: counts, out: w, w: bw}
	err = c.findFrom(m, out)
	if err == nil {
		err = bw.Flush()
	}
	return counts, err
}

// MergeFiles compares the old and new digests of the digest files at
// paths as one diff of the whole dumps would, writing the changes to w.
func (d *Differ) MergeFiles(paths []string, w io.Writer) (DiffSummary, error) {
	sum := DiffSummary{KeyKinds: map[string]int64{}, Partitions: len(paths)}
	olds, err := openSet(paths, 0)
	if err != nil {
		return sum, err
	}
	news, err := openSet(paths, 1)
	if err != nil {
		for _, f := range olds {
			f.close()
		}
		return sum, err
	}
	defer func() {
		for _, f := range append(olds, news...) {
			f.close()
		}
	}()
	if len(olds) > 0 && olds[0].kind != DiffFile {
		return sum, &DigestFileError{Path: olds[0].path, Msg: "holds --cross-card claims, not diff digests"}
	}
	om, err := newFileMerger(olds)
	if err != nil {
		return sum, err
	}
	nm, err := newFileMerger(news)
	if err != nil {
		return sum, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	err = d.compareFrom(om, nm, &sum, bw)
	if err == nil {
		err = bw.Flush()
	}
	sum.OldRecords, sum.NewRecords = om.count, nm.count
	return sum, err
}
