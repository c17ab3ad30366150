package dump

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/bits"
	"os"
	"slices"
	"sync"
)

// A card's content hash is needed by --cross-card only when another record
// claims the card's identity: dump.duplicate-id counts the distinct
// contents of an identity's records, and dump.duplicate-card groups
// records by content, whose equal contents have equal identities. Most
// identities of a dump are claimed once, and hashing every card's content
// was a third of what --cross-card added to validation (docs/performance.md).
// So an identified card read from a file that can be read again claims its
// identity with a pending claim: the XXH3-128 of its bytes and where they
// lie. Once every record is judged, the identities claimed by two records
// or more are resolved: each of their records gets its content hash, read
// again from its file when no record of the same bytes was hashed before
// (equal bytes, equal content), and then makes the claims of identity and
// content that a card hashed as it was read makes. Cards of standard
// input, of a compressed file or of any input a second read cannot find
// them in are hashed as they are read, and claim their identity with a
// pending claim that holds the hash, so that all of an identity's claims
// are resolved together.
const (
	pendingRaw byte = 'r' // hash: of the record's bytes, which lie at offset, length bytes long
	pendingSum byte = 's' // hash: the card's content hash
)

// appendPending encodes a pending claim as a claim is framed: the length,
// the kind, the identity (the key), the hash, the place and, for
// pendingRaw, where the record's bytes lie in its input.
func appendPending(dst []byte, kind byte, id []byte, hash [16]byte, input []byte, line int, offset int64, length int) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, kind)
	dst = appendBytes(dst, id)
	dst = append(dst, hash[:]...)
	dst = appendBytes(dst, input)
	dst = binary.AppendUvarint(dst, uint64(line))
	dst = binary.AppendUvarint(dst, uint64(offset))
	dst = binary.AppendUvarint(dst, uint64(length))
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// isPending tells a pending claim from the others by its first byte.
func isPending(rec []byte) bool {
	return len(rec) > 0 && (rec[0] == pendingRaw || rec[0] == pendingSum)
}

// pendingClaim is a decoded pending claim; its slices lie in the record.
type pendingClaim struct {
	kind   byte
	id     []byte
	hash   [16]byte
	input  []byte
	line   int
	offset int64
	length int
}

func decodePending(rec []byte) (p pendingClaim, ok bool) {
	r := reader{b: rec}
	p.kind = r.byte()
	p.id = r.bytes()
	copy(p.hash[:], r.n(16))
	p.input = r.bytes()
	p.line = int(r.uvarint())
	offset, length := r.uvarint(), r.uvarint()
	if offset > 1<<62 || length > 1<<31 {
		r.bad = true
	}
	p.offset, p.length = int64(offset), int(length)
	return p, !r.bad && r.off == len(r.b) && (p.kind == pendingRaw || p.kind == pendingSum)
}

// byIdentity is the sort key of pending claims: the identity.
func byIdentity(rec []byte) (byte, []byte) {
	r := reader{b: rec}
	r.byte()
	return 0, r.bytes()
}

// ChangedError is a file --cross-card read again, once every record was
// judged, for the content of records whose identity another record
// claims, and found not to hold the bytes judged at their place: it was
// changed, truncated or replaced while the run read it.
type ChangedError struct {
	Path   string
	Line   int   // of the record
	Offset int64 // of the record's first byte
	Err    error // the failure to read, or nil for other bytes
}

func (e *ChangedError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: reading the record of line %d again (byte offset %d): %s", e.Path, e.Line, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: changed while it was read: line %d (byte offset %d) no longer holds the record judged", e.Path, e.Line, e.Offset)
}

func (e *ChangedError) Unwrap() error { return e.Err }

// minRereadSize is the least size of a file whose cards' content hashes
// wait for a second read: checking that a file is not compressed opens it
// once more, which costs about what hashing the few cards of a smaller
// file does.
const minRereadSize = 64 << 10

// rereadInputs tells which inputs a second read finds each record of at
// its byte offset: regular files, not compressed, each the only file its
// input name stands for.
type rereadInputs struct {
	paths map[string]string // input name to file
	mu    sync.Mutex
	known map[string]bool // whether each input checked is one
}

// canReread reports whether the records of input name can be read again
// at their offsets. A file is checked once, by the first worker to judge a
// card of it; the pipeline chose the file's compression by the same magic
// numbers (internal/pipeline's decoders), and a file that changes after
// the check is caught when it is read again (ChangedError).
func (in *rereadInputs) canReread(name string) bool {
	if in == nil {
		return false
	}
	path, ok := in.paths[name]
	if !ok {
		return false
	}
	in.mu.Lock()
	can, checked := in.known[name]
	in.mu.Unlock()
	if checked {
		return can
	}
	can = plainFile(path)
	in.mu.Lock()
	in.known[name] = can
	in.mu.Unlock()
	return can
}

// plainFile reports whether path is a regular file of at least
// minRereadSize bytes that the pipeline reads as it is stored, not
// decompressed. It is stated before it is opened, so that a FIFO's reader
// is never taken.
func plainFile(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() < minRereadSize {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [4]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return false
	}
	return !compressed(head[:])
}

// compressed tells the magic numbers of the streams the pipeline
// decompresses: a zstd frame, a zstd skippable frame, a gzip member.
func compressed(head []byte) bool {
	zstdFrame := []byte{0x28, 0xb5, 0x2f, 0xfd}
	skippable := head[0]&0xf0 == 0x50 && head[1] == 0x2a && head[2] == 0x4d && head[3] == 0x18
	return bytes.Equal(head, zstdFrame) || skippable || head[0] == 0x1f && head[1] == 0x8b
}

// maxRereadFiles bounds the files a resolution holds open at once.
const maxRereadFiles = 64

// resolver resolves the pending claims of identities claimed twice or
// more into claims of identity and content, added to the Cross's claims.
type resolver struct {
	c      *Cross
	x      *Extractor // hashes the records read again
	names  *placeNames
	files  map[string]*os.File // by input name
	rec    []byte
	claims []byte // made, added to c.st a batch at a time
	// known holds the content hash of the records read again, by the
	// hash of their bytes, up to maxKnown of them: records of the same
	// bytes, the most common duplicates in a crawl, are read once.
	known    map[[16]byte][16]byte
	maxKnown int
}

func newResolver(c *Cross) *resolver {
	x := NewExtractor(KeyID)
	x.claimsOnly = true
	return &resolver{c: c, x: x, names: c.placeNames(), files: map[string]*os.File{},
		known: map[[16]byte][16]byte{}, maxKnown: int(max(c.groupBudget/64, 1024))}
}

// resolve makes the claims of the identities that pending claims give
// two records or more; the others, claimed once, make no finding.
func (c *Cross) resolve() error {
	if c.pending.records == 0 {
		return nil
	}
	rs := newResolver(c)
	defer rs.close()
	var err error
	if c.pending.spilled() {
		err = rs.sorted()
	} else {
		err = rs.inMemory()
	}
	if err == nil && len(rs.claims) > 0 {
		err = c.addClaims(rs.claims)
	}
	c.pending.reset()
	c.pendingHashes.reset()
	return err
}

// inMemory resolves the pending claims of identities whose hashes are
// claimed twice or more, in the order they came (so that each group's
// records keep theirs); an identity claimed once whose hash another
// shares is resolved for nothing but gives no finding.
//
// Most identities are claimed once: a bit per hash, in a table of bits
// sixteen times the claims, finds those that may be claimed again (their
// bit set already, by the same hash or another), and only those are
// counted, in a map that stays small. A count table of every identity
// (groupCounts), 2 MiB of fresh memory on the make perf dump whose
// look-ups missed the cache, was most of what resolving cost, on the
// single goroutine of the run's end.
func (rs *resolver) inMemory() error {
	p, list := rs.c.pending, &rs.c.pendingHashes
	if int64(list.n) != p.records {
		return errGarbledClaim
	}
	// Outside the heap, freed as resolving ends (outsideSlice).
	mem := blockSource{outside: true}
	defer mem.free()
	seen, twice := newHashBits(&mem, list.n), newHashBits(&mem, list.n)
	// The hashes that may be claimed twice, each with its claims; twice
	// has their bits set, so that the map is looked up for few others.
	var again map[uint64]int
	for h := range rs.identityHashes() {
		if seen.testAndSet(h) {
			if again == nil {
				// Sized at once for the hashes a table of sixteen
				// bits a claim finds set by chance, about one claim
				// in 32 (1,340 of the make perf dump's 53,371): grown
				// from empty, its growing was about a tenth of
				// resolving (docs/performance.md).
				again = make(map[uint64]int, p.records/32+8)
			}
			again[h] = 0
			twice.testAndSet(h)
		}
	}
	if len(again) == 0 {
		return nil
	}
	for h := range rs.identityHashes() {
		if !twice.test(h) {
			continue
		}
		if n, ok := again[h]; ok {
			again[h] = n + 1
		}
	}
	for _, chunk := range list.chunks {
		for i := 0; i < len(chunk); i += claimHashSize {
			h, pos := hashAt(chunk, i)
			if rs.c.hashOnly != nil {
				h = rs.c.hashOnly(h)
			}
			if !twice.test(h) || again[h] < 2 {
				continue
			}
			if err := rs.claim(claimAt(p.blocks, pos)); err != nil {
				return err
			}
		}
	}
	return nil
}

// identityHashes yields the hash of each pending claim's identity, in the
// order they came (Cross.addPending).
func (rs *resolver) identityHashes() iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		for _, chunk := range rs.c.pendingHashes.chunks {
			for i := 0; i < len(chunk); i += claimHashSize {
				h, _ := hashAt(chunk, i)
				if rs.c.hashOnly != nil {
					h = rs.c.hashOnly(h)
				}
				if !yield(h) {
					return
				}
			}
		}
	}
}

// hashBits is a table of bits indexed by a hash's low bits.
type hashBits struct {
	words []uint64
	mask  uint64
}

// newHashBits returns a table of at least sixteen bits per hash of n, so
// that a hash finds its bit set by another for about one in sixteen.
func newHashBits(mem *blockSource, n int) hashBits {
	size := 1 << bits.Len(uint(16*n+63))
	return hashBits{words: outsideSlice[uint64](mem, size/64)[:size/64], mask: uint64(size - 1)}
}

// test reports whether h's bit is set.
func (b hashBits) test(h uint64) bool {
	i := h & b.mask
	return b.words[i/64]&(uint64(1)<<(i%64)) != 0
}

// testAndSet sets h's bit and reports whether it was set.
func (b hashBits) testAndSet(h uint64) bool {
	i := h & b.mask
	w, bit := &b.words[i/64], uint64(1)<<(i%64)
	set := *w&bit != 0
	*w |= bit
	return set
}

// sorted resolves the pending claims as their store merges them, an
// identity at a time, holding the first of each until a second shows.
func (rs *resolver) sorted() error {
	m, err := rs.c.pending.stream()
	if err != nil {
		return err
	}
	var first []byte
	n := 0
	for {
		rec, ok, err := m.next()
		if err != nil || !ok {
			return err
		}
		_, id := byIdentity(rec)
		if n > 0 {
			if _, firstID := byIdentity(first); bytes.Equal(id, firstID) {
				if n++; n == 2 {
					if err := rs.claim(first); err != nil {
						return err
					}
				}
				if err := rs.claim(rec); err != nil {
					return err
				}
				continue
			}
		}
		first, n = append(first[:0], rec...), 1
	}
}

// claim resolves one pending claim: the claims of identity and content
// the card makes, with its content hash.
func (rs *resolver) claim(rec []byte) error {
	p, ok := decodePending(rec)
	if !ok {
		return errGarbledClaim
	}
	sum := p.hash
	if p.kind == pendingRaw {
		var err error
		if sum, err = rs.contentSum(&p); err != nil {
			return err
		}
	}
	rs.claims = appendClaim(rs.claims, groupID, p.id, sum[:], p.input, p.line)
	rs.claims = appendClaim(rs.claims, groupContent, sum[:], nil, p.input, p.line)
	if len(rs.claims) >= blockSize/4 {
		err := rs.c.addClaims(rs.claims)
		rs.claims = rs.claims[:0]
		return err
	}
	return nil
}

// contentSum returns the content hash of the record p places, reading it
// again unless a record of the same bytes was.
func (rs *resolver) contentSum(p *pendingClaim) ([16]byte, error) {
	if sum, ok := rs.known[p.hash]; ok {
		return sum, nil
	}
	rec, err := rs.read(p)
	if err != nil {
		return [16]byte{}, err
	}
	sum := rs.x.contentSum(rec)
	if len(rs.known) >= rs.maxKnown {
		clear(rs.known)
	}
	rs.known[p.hash] = sum
	return sum, nil
}

// read reads the record p places from its file, and checks that it is
// the bytes judged.
func (rs *resolver) read(p *pendingClaim) ([]byte, error) {
	input, ok := rs.names.name(p.input)
	if !ok || rs.c.inputs == nil {
		return nil, errGarbledClaim
	}
	path, ok := rs.c.inputs.paths[input]
	if !ok {
		return nil, errGarbledClaim
	}
	f := rs.files[input]
	if f == nil {
		if len(rs.files) >= maxRereadFiles {
			rs.close()
		}
		var err error
		if f, err = os.Open(path); err != nil {
			return nil, &ChangedError{Path: path, Line: p.line, Offset: p.offset, Err: unwrapPath(err)}
		}
		rs.files[input] = f
	}
	rs.rec = slices.Grow(rs.rec[:0], p.length)[:p.length]
	n, err := f.ReadAt(rs.rec, p.offset)
	if n == p.length {
		err = nil
	}
	if errors.Is(err, io.EOF) {
		return nil, &ChangedError{Path: path, Line: p.line, Offset: p.offset}
	}
	if err != nil {
		return nil, &ChangedError{Path: path, Line: p.line, Offset: p.offset, Err: unwrapPath(err)}
	}
	if sum128(rs.rec) != p.hash {
		return nil, &ChangedError{Path: path, Line: p.line, Offset: p.offset}
	}
	return rs.rec, nil
}

func (rs *resolver) close() {
	for name, f := range rs.files {
		f.Close()
		delete(rs.files, name)
	}
}
