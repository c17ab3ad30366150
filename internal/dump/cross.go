package dump

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/zeebo/xxh3"
)

// The groups of --cross-card: a claim each card makes, keyed by what two
// cards must share to be compared.
const (
	groupID       byte = 'i' // key: the identity; other: the content hash
	groupEndpoint byte = 'e' // key: an endpoint URL; other: the identity
	groupContent  byte = 'c' // key: the content hash
)

// Cross finds, across a whole validation run, what no single card shows
// (--cross-card): dump.duplicate-id, dump.shared-endpoint and
// dump.duplicate-card. Its claims are held in memory up to a budget, then
// sorted to temporary files as diff's digests are, by rule and key, and
// judged a group at a time as they are merged.
type Cross struct {
	dir *spillDir
	st  *store
	// pending holds the identity claims whose content hash waits for
	// their identity to be claimed twice (see pendingRaw), and inputs
	// tells the inputs whose records can be read again for it.
	pending *store
	inputs  *rereadInputs
	// names numbers the inputs of the claims Extract's functions take,
	// which hold their input's number in place of its name.
	names inputNames
	// groupBudget bounds what a group of claims of one key holds in
	// memory, its places and its others each, when the claims spilled.
	groupBudget int64

	// Levels sets the level of dump rules, as --rule and a policy file
	// do; a rule it leaves out keeps its default, and SeverityOff drops
	// the rule's findings uncounted.
	Levels map[fastvalidate.Code]fastvalidate.Severity
	// MinLevel, when SeverityError, keeps warnings out of the output;
	// they are counted all the same, as the cards' are.
	MinLevel fastvalidate.Severity

	// Jobs bounds the goroutines Finish groups the claims on; 0 is one
	// per CPU the process may use, as -j's default is.
	Jobs int
	// ClaimRoom, when set, is the room Extract's functions make at once
	// for the claims of a chunk of records (pipeline.Config.ChunkSize/4
	// holds those of a chunk of cards of 1.8 KB, 235 B each): the
	// pipeline's buffer for them, grown by append from empty, left each
	// smaller size to the collector, which that garbage set off twice at
	// the start of a --cross-card run of the make perf dump.
	ClaimRoom int
	// rooms makes the rooms for claims, outside the heap, up to
	// maxOutsideRooms of them; roomsMu guards it, for every worker's
	// function.
	rooms   blockSource
	roomsMu sync.Mutex

	// hashes holds the group hash of each claim in c.st and where it
	// lies there, in their order, while c.st holds them all in memory
	// (addRun), in chunks of hashChunk: one slice grown by append copied
	// all it held at each doubling, into fresh memory that page-faulted.
	hashes claimHashes
	// pendingHashes holds the same of the pending claims in c.pending,
	// the hash their identity's (addPending), for resolve.
	pendingHashes claimHashes
	// A table that compares its groups by hash alone, for a test to
	// have every group collide with others: the groups are told apart by
	// their keys all the same.
	hashOnly func(uint64) uint64
}

// NewCross returns a Cross that holds at most about memory bytes of claims
// before it spills them.
func NewCross(memory int64) (*Cross, error) {
	removeStaleOnce()
	dir := &spillDir{}
	// Grouping the claims takes about twice as much again: the peak RSS
	// of --cross-card beyond plain validation's was 3.0 times its claims
	// on the make perf dump (71 MB against 28 MB, for 14.5 MB of claims;
	// docs/cli.md).
	budget := max(memory/4, 1)
	// Pending claims take the place of an identified card's claims of
	// identity and content, and share their budget.
	c := &Cross{dir: dir, st: newStore("claims", dir, max(budget/2, 1), byGroup),
		pending: newStore("pending", dir, max(budget/2, 1), byIdentity), groupBudget: max(budget/4, 1)}
	c.st.mem.outside, c.pending.mem.outside, c.hashes.mem.outside, c.rooms.outside = true, true, true, true
	c.pendingHashes.mem.outside = true
	return c, nil
}

// Reread names the files that the inputs named stand for, by input name,
// those whose cards' content hashes may wait for a second read of the
// cards that need them: an input it leaves out, or that is no regular
// file of at least minRereadSize bytes read as stored, has its cards
// hashed as they are read. An input name must stand for one file only.
// It is called before the records are.
func (c *Cross) Reread(paths map[string]string) {
	c.inputs = &rereadInputs{paths: paths, known: map[string]bool{}}
}

// byGroup is the sort key of claims: the rule of the findings their group
// makes, in the rules' name order, then the key, which is the order
// Finish writes the findings in.
func byGroup(rec []byte) (byte, []byte) {
	r := reader{b: rec}
	group := r.byte()
	return groupRank[group], r.bytes()
}

// groupCode pairs a group with the rule of its findings.
type groupCode struct {
	group byte
	code  fastvalidate.Code
}

var groupCodes = []groupCode{
	{groupID, fastvalidate.CodeDumpDuplicateID},
	{groupEndpoint, fastvalidate.CodeDumpSharedEndpoint},
	{groupContent, fastvalidate.CodeDumpDuplicateCard},
	{groupLookalike, fastvalidate.CodeContentImpersonation},
}

// groupRank places each group by its rule's name; a byte that is no group
// ranks last.
var groupRank = func() (rank [256]byte) {
	for i := range rank {
		rank[i] = byte(len(groupCodes))
	}
	codes := slices.Clone(groupCodes)
	slices.SortFunc(codes, func(a, b groupCode) int { return strings.Compare(a.code.String(), b.code.String()) })
	for i, g := range codes {
		rank[g.group] = byte(i)
	}
	return rank
}()

// Extract returns a function for pipeline.Config.Extract: the claims of
// each record.
func (c *Cross) Extract() func(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte {
	x := NewExtractor(KeyID)
	x.claimsOnly = true
	lastInput, reread := "", false
	return func(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte {
		if vd.Input != lastInput || len(x.place) == 0 {
			lastInput, reread = vd.Input, c.inputs.canReread(vd.Input)
			x.place = binary.AppendUvarint(x.place[:0], uint64(c.names.number(vd.Input)))
		}
		x.mayDefer = reread
		if len(dst) == 0 && cap(dst) < c.ClaimRoom {
			dst = c.room()
		}
		return x.appendCrossClaims(dst, vd, v)
	}
}

// maxOutsideRooms bounds the rooms for claims made outside the heap: the
// pipeline keeps a room for each chunk in flight (six with -j 2) and drops
// one only once it has grown past four chunks, so that more are seldom
// made; any more are the heap's.
const maxOutsideRooms = 64

// room returns an empty room of ClaimRoom bytes for a chunk's claims,
// outside the heap while fewer than maxOutsideRooms are: 1.5 MB of them
// with -j 2, on the heap, brought the collector's first cycle on within
// the first 20 ms of the make perf dump, which plain validation never
// collects in (docs/performance.md). Finish frees them; see Close.
func (c *Cross) room() []byte {
	c.roomsMu.Lock()
	defer c.roomsMu.Unlock()
	if len(c.rooms.made) >= maxOutsideRooms {
		return make([]byte, 0, c.ClaimRoom)
	}
	return c.rooms.block(c.ClaimRoom)
}

// Add adds claims, as Extract's functions appended them: the pending
// claims to their store, the others to theirs, each in the order added.
func (c *Cross) Add(b []byte) error {
	for len(b) > 0 {
		// The longest run of claims of one store.
		rec, rest, ok := nextDigest(b)
		if !ok {
			return errGarbledClaim
		}
		pending := isPending(rec)
		end, n := 0, 0
		for ok && isPending(rec) == pending {
			end, n = len(b)-len(rest), n+1
			rec, rest, ok = nextDigest(b[end:])
		}
		var err error
		if pending {
			err = c.addPending(b[:end], n)
		} else {
			err = c.addRun(b[:end], n)
		}
		if err != nil {
			return err
		}
		b = b[end:]
	}
	return nil
}

// addClaims adds claims that are not pending to their store, as Add does.
func (c *Cross) addClaims(b []byte) error {
	n := 0
	for rest := b; len(rest) > 0; n++ {
		_, r, ok := nextDigest(rest)
		if !ok {
			return errGarbledClaim
		}
		rest = r
	}
	return c.addRun(b, n)
}

// hashChunk is how many claims a chunk of Cross.hashes holds: 128 KiB.
const hashChunk = 8192

// claimHashSize is the size of a claim's entry in claimHashes: its group
// hash and where it lies in the store (claimAt), little-endian.
const claimHashSize = 16

// claimHashes lists the group hash of each claim held and where it lies,
// claimHashSize bytes a claim, in chunks of hashChunk claims, made outside
// the Go heap as the claims' blocks are (blockSource).
type claimHashes struct {
	chunks [][]byte
	n      int // claims
	mem    blockSource
}

func (l *claimHashes) add(hash, pos uint64) {
	if k := len(l.chunks); k == 0 || len(l.chunks[k-1]) == hashChunk*claimHashSize {
		l.chunks = append(l.chunks, l.mem.block(hashChunk*claimHashSize))
	}
	last := &l.chunks[len(l.chunks)-1]
	*last = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(*last, hash), pos)
	l.n++
}

// hashAt returns the hash and place of the entry at offset i of a chunk.
func hashAt(chunk []byte, i int) (hash, pos uint64) {
	e := chunk[i : i+claimHashSize]
	return binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint64(e[8:])
}

// reset empties the list and frees its chunks.
func (l *claimHashes) reset() {
	l.chunks, l.n = nil, 0
	l.mem.free()
}

// addRun adds b, n claims that are not pending, to c.st, and notes the
// hash of each one's group and key and where it lies, while c.st holds
// all such claims in memory, for findInMemory. Hashing them here, as they
// arrive and are in the cache, rather than reading all the claims again
// in Finish took a pass over them out of the single-threaded end of the
// run; and with where each lies, each of Finish's parts reads its own
// claims only (docs/performance.md).
func (c *Cross) addRun(b []byte, n int) error {
	pos := c.st.hold(b, n)
	if c.st.overBudget() || c.st.spilled() {
		// findSorted groups the claims as they are merged.
		c.hashes.reset()
		if c.st.overBudget() {
			return c.st.spill()
		}
		return nil
	}
	for off := 0; off < len(b); {
		rec, _, ok := nextDigest(b[off:])
		if !ok {
			return errGarbledClaim
		}
		h, ok := groupHash(rec)
		if !ok {
			return errGarbledClaim
		}
		c.hashes.add(h, pos+uint64(off))
		off += 4 + len(rec)
	}
	return nil
}

// addPending adds b, n pending claims, to c.pending, and notes the hash
// of each one's identity and where it lies, while c.pending holds all of
// them in memory, for resolve: hashed here, as they arrive and are in the
// cache, rather than read again from c.pending on the run's last
// goroutine once every record is judged, while the other cores idle
// (docs/performance.md).
func (c *Cross) addPending(b []byte, n int) error {
	pos := c.pending.hold(b, n)
	if c.pending.overBudget() || c.pending.spilled() {
		// resolve's sorted reads them as they are merged.
		c.pendingHashes.reset()
		if c.pending.overBudget() {
			return c.pending.spill()
		}
		return nil
	}
	for off := 0; off < len(b); {
		rec, _, ok := nextDigest(b[off:])
		if !ok {
			return errGarbledClaim
		}
		_, id := byIdentity(rec)
		c.pendingHashes.add(xxh3.Hash(id), pos+uint64(off))
		off += 4 + len(rec)
	}
	return nil
}

// Close removes the temporary files. It leaves the rooms of Extract's
// functions as they are unless Finish freed them: a run that ends early
// (an error, a signal, --max-invalid) returns while its workers still
// judge the chunks in flight, and write their claims in those rooms.
func (c *Cross) Close() {
	c.hashes.reset()
	c.pendingHashes.reset()
	c.st.close()
	c.pending.close()
	c.dir.remove()
}

// AppendClaims appends the claims of the record vd judged: its identity,
// each endpoint URL it names (once), and its content; v is as for Append.
func (x *Extractor) AppendClaims(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte {
	x.fill(vd, v, false)
	d := &x.d
	x.place = append(x.place[:0], d.Input...)
	x.id = append(append(append(x.id[:0], d.Kind...), ' '), x.key...)
	if d.Kind != KindRecord && d.Kind != KindSource {
		dst = appendClaim(dst, groupID, x.id, d.Sum[:], x.place, d.Line)
	}
	dst = x.appendEndpointClaims(dst)
	return appendClaim(dst, groupContent, d.Sum[:], nil, x.place, d.Line)
}

// appendEndpointClaims appends the claims of each endpoint URL the card
// names (once) and content.impersonation's, of the identity x.id.
func (x *Extractor) appendEndpointClaims(dst []byte) []byte {
	start := 0
	for i, end := range x.epEnds {
		if e := x.eps[start:end]; !x.namedBefore(e, i) {
			dst = appendClaim(dst, groupEndpoint, e, x.id, x.place, x.d.Line)
		}
		start = end
	}
	return x.appendLookalikeClaims(dst)
}

// appendCrossClaims appends the claims of the record vd judged as
// AppendClaims does, but that their input is x.place (Cross.Extract's
// number), and that an identified card's claims of identity and content
// are one pending claim: of its content hash, or, when x.mayDefer, of the
// hash of its bytes and their place, its content hash being computed only
// if another record claims the identity.
func (x *Extractor) appendCrossClaims(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte {
	x.fill(vd, v, false)
	d := &x.d
	x.id = append(append(append(x.id[:0], d.Kind...), ' '), x.key...)
	dst = x.appendEndpointClaims(dst)
	switch {
	case d.Kind == KindRecord || d.Kind == KindSource:
		return appendClaim(dst, groupContent, d.Sum[:], nil, x.place, d.Line)
	case x.sumDeferred:
		return appendPending(dst, pendingRaw, x.id, sum128(vd.Card), x.place, d.Line, vd.Offset, len(vd.Card))
	}
	return appendPending(dst, pendingSum, x.id, d.Sum, x.place, d.Line, 0, 0)
}

// namedBefore reports whether one of the card's first n endpoints is e.
func (x *Extractor) namedBefore(e []byte, n int) bool {
	start := 0
	for _, end := range x.epEnds[:n] {
		if bytes.Equal(x.eps[start:end], e) {
			return true
		}
		start = end
	}
	return false
}

// cardSumPrefix starts dump.duplicate-card's key: the card's content hash
// (Digest.Sum, from its members' hashes), not diff's content key, which
// is the XXH3-128 of the canonical form and named by contentPrefix, so
// that a key never claims a hash it is not.
const cardSumPrefix = "content:"

// groupHash hashes a claim's group and key, the bytes that encode them at
// its start; ok is false when they are garbled. The rest of the claim is
// read, and checked, only if its group may make a finding.
func groupHash(rec []byte) (h uint64, ok bool) {
	r := reader{b: rec}
	r.byte()
	r.bytes()
	keyEnd := r.off
	return xxh3.Hash(rec[:keyEnd]), !r.bad
}

var errGarbledClaim = errors.New("a claim's temporary record is garbled")

// appendClaim encodes a claim as a digest is framed: the length, the group
// in place of the key kind, the key, then the rest.
func appendClaim[S ~string | ~[]byte](dst []byte, group byte, key, other []byte, input S, line int) []byte {
	start := len(dst)
	dst = appendClaimHead(append(dst, 0, 0, 0, 0), group, key, other)
	return endClaim(dst, start, input, line)
}

// appendClaimHead appends what a claim holds between its length and its
// place: its group, key and other.
func appendClaimHead(dst []byte, group byte, key, other []byte) []byte {
	dst = append(dst, group)
	dst = appendBytes(dst, key)
	return appendBytes(dst, other)
}

// appendHeadClaim appends a claim as appendClaim does, its group, key and
// other already encoded in head (appendClaimHead).
func appendHeadClaim(dst, head, input []byte, line int) []byte {
	start := len(dst)
	dst = append(append(dst, 0, 0, 0, 0), head...)
	return endClaim(dst, start, input, line)
}

// endClaim appends a claim's place to the claim begun at start of dst,
// and writes its length there.
func endClaim[S ~string | ~[]byte](dst []byte, start int, input S, line int) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(input)))
	dst = append(dst, input...)
	dst = binary.AppendUvarint(dst, uint64(line))
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// Place is a record named by a finding.
type Place = report.Place

// CrossCounts counts the findings, those of rules turned off excepted.
type CrossCounts struct {
	Rules    map[string]int64 // by rule
	Errors   int64            // findings at level error
	Warnings int64            // findings at level warning
}

// level returns the level of code's findings in this run.
func (c *Cross) level(code fastvalidate.Code) fastvalidate.Severity {
	if sev, ok := c.Levels[code]; ok {
		return sev
	}
	return code.Severity()
}

// Finish writes the findings through w, sorted by rule and key, and
// counts them.
func (c *Cross) Finish(w report.VerdictWriter) (*CrossCounts, error) {
	counts := &CrossCounts{Rules: map[string]int64{}}
	// Every record is judged, and no worker writes its claims any more.
	c.roomsMu.Lock()
	c.rooms.free()
	c.roomsMu.Unlock()
	if err := c.resolve(); err != nil {
		return counts, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	out := &findingWriter{c: c, counts: counts, out: w, w: bw}
	var err error
	if c.st.spilled() {
		err = c.findSorted(out)
	} else {
		err = c.findInMemory(out)
	}
	if err == nil {
		err = bw.Flush()
	}
	return counts, err
}

// claimGroup is a group of claims of one group and key that findInMemory
// builds. It holds no pointer, so that a part's groups are made outside
// the heap with its tables: its key, and the first spelling of a
// groupLookalike group, lie in the part's arena.
type claimGroup struct {
	n      int // claims
	others int // distinct
	key    arenaRef
	first  arenaRef // groupLookalike's: the first claim's other
	seq    uint32   // the group's number, for findInMemory's seen
	group  byte
	// groupLookalike's: its claims come from two origins or more, and
	// spell the text two ways or more (lookalikeSpellings).
	origins, spellings bool
}

// claimAt returns the claim at position pos of blocks, the block's index
// in its high 32 bits and the claim's offset in it in the low.
func claimAt(blocks [][]byte, pos uint64) []byte {
	rec, _, _ := nextDigest(blocks[pos>>32][uint32(pos):])
	return rec
}

// claimPlace returns the place of the claim at pos in blocks.
func claimPlace(blocks [][]byte, pos uint64, names *placeNames) (Place, error) {
	r := reader{b: claimAt(blocks, pos)}
	r.byte()
	r.bytes() // key
	r.bytes() // other
	input, line := r.bytes(), int(r.uvarint())
	name, ok := names.name(input)
	if r.bad || !ok {
		return Place{}, errGarbledClaim
	}
	return Place{Input: name, Line: line}, nil
}

// groupMembers lists the claims of groups of two or more, in the order
// they came: where each lies in the blocks (claimAt) and its group's
// index. Their places are read only for a group that makes a finding:
// most groups of two claims or more make none (a name many cards give
// alike). One list written in order, rather than a list per group
// appended to as its claims came, spared a cache miss per claim.
type groupMembers struct {
	pos   []uint64
	group []uint32
}

// groupFinding returns the finding a group of n claims of one group and
// key makes, others of them distinct (lookalike: for groupLookalike, that
// they come from two origins or more and spell the text two ways or
// more), if any.
func groupFinding(group byte, key string, n, others int, lookalike bool) (finding, bool) {
	f := finding{group: group, key: key, n: n, others: others}
	switch {
	case n < 2:
		return finding{}, false
	case group == groupID && others > 1:
		f.code = fastvalidate.CodeDumpDuplicateID
	case group == groupEndpoint && others > 1:
		f.code = fastvalidate.CodeDumpSharedEndpoint
	case group == groupContent:
		f.code = fastvalidate.CodeDumpDuplicateCard
	case group == groupLookalike && lookalike:
		f.code = fastvalidate.CodeContentImpersonation
	default:
		return finding{}, false
	}
	return f, true
}

// finding is a finding about several records, but for the records: its
// rule, and the group, key and counts of the claims that make it. Its
// text is made only for a finding that is written (text): thousands are
// counted but not written under --quiet or --min-level, and making each
// one's message cost more than grouping their claims.
type finding struct {
	code      fastvalidate.Code
	group     byte
	key       string // as the claims hold it
	n, others int
}

// compare orders findings as they are written: by rule, then key.
func (f *finding) compare(g *finding) int {
	if c := strings.Compare(f.code.String(), g.code.String()); c != 0 {
		return c
	}
	return strings.Compare(f.key, g.key)
}

// text returns the finding's key as diff's records give it, that key's
// kind (diff's key_kind), and its message.
func (f *finding) text() (kind, key, msg string) {
	switch f.group {
	case groupID:
		// The key is the identity's kind and value, as AppendClaims
		// joined them.
		kind, id, _ := strings.Cut(f.key, " ")
		return kind, id, fmt.Sprintf("%s is claimed by %d records with %d different contents", f.key, f.n, f.others)
	case groupEndpoint:
		return KindEndpoint, f.key, fmt.Sprintf("endpoint %s is claimed by %d records of %d different identities", f.key, f.n, f.others)
	case groupContent:
		k := cardSumPrefix + base64URL([]byte(f.key))
		return KindRecord, k, fmt.Sprintf("the same card (%s) is in %d records", k, f.n)
	}
	what, skel, _ := strings.Cut(f.key, " ")
	return KindSkeleton, f.key, fmt.Sprintf("%d records of different origins give a %s spelt differently with one confusable skeleton, %q: one passes for another", f.n, what, skel)
}

// findInMemory judges the claims, all in memory.
//
// Most claims are the only one of their group (a card's content, its
// identity, its endpoints), and no finding names fewer than two records:
// a first pass counts the claims of each group by a hash of its group and
// key, so that only groups that may hold two are built. Building every
// group, with its strings and places, took most of --cross-card's time
// after the workers on the make perf dump. The hashes are counted in a
// table of their own (groupCounts), which also finds each claim's group
// in the second pass: Go's map of every claim was most of what the first
// pass cost, and sorting the hashes instead, then a map of those seen
// twice, a fifth of Finish.
//
// Finish runs once every worker is done, on one goroutine: its time is
// the run's on the wall clock whatever the cores. The claims are split by
// their group hash into a part per job (crossParts), each counted and
// grouped on a goroutine of its own, in a table of its own a part of the
// size; the findings are then written in their one sort order, whatever
// part found them, so the output is the same for any number of parts.
func (c *Cross) findInMemory(out *findingWriter) error {
	if int64(c.hashes.n) != c.st.records {
		return errGarbledClaim
	}
	parts := make([]claimPart, crossParts(c.Jobs, c.hashes.n))
	// The pending claims, resolved, left their blocks to their store.
	spare := &sparePool{blocks: slices.Clone(c.pending.free)}
	for i := range parts {
		parts[i].t.mem.spare = spare
	}
	if len(parts) == 1 {
		parts[0].group(c, 0, 1)
	} else {
		var wg sync.WaitGroup
		for i := range parts {
			wg.Go(func() { parts[i].group(c, i, len(parts)) })
		}
		wg.Wait()
	}
	c.hashes.reset()
	defer func() {
		for i := range parts {
			parts[i].t.mem.free()
		}
	}()
	for i := range parts {
		if parts[i].err != nil {
			return parts[i].err
		}
	}
	return writeGroups(parts, c.st.blocks, c.placeNames(), out)
}

// minPartClaims is the fewest claims a part of Finish's grouping is given
// (crossParts): a goroutine and a table each are not worth fewer. A
// variable so that tests may split a few claims in many parts.
var minPartClaims = 4096

// crossParts returns how many parts Finish groups claims claims in.
func crossParts(jobs, claims int) int {
	return jobParts(jobs, int64(claims), int64(minPartClaims))
}

// jobParts returns how many parts work of n items is split in, at least
// floor items a part, with jobs goroutines at most: one per CPU the
// process may use, when jobs is 0.
func jobParts(jobs int, n, floor int64) int {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	return int(max(min(int64(jobs), n/floor), 1))
}

// hashPart returns the part of parts that claims of group hash h are grouped
// in: by the hash's high half, as the tables' slots are by its low bits,
// so that a part's hashes fill its table as evenly as all of them would.
func hashPart(h uint64, parts int) int {
	return int((h >> 32) * uint64(parts) >> 32)
}

// claimPart is the claims of one part of Finish's grouping, the claims
// whose group hashes hashPart gives it: its groups, their members in the
// order they came, and its count table.
type claimPart struct {
	t       groupCounts
	groups  []claimGroup // outside the heap, with the part's tables
	members groupMembers
	err     error
	// The groups are found by the claims' hashes: the groups of one
	// hash are told apart by key when two share it (group's list of
	// first groups holds the first, others, by group and key, the
	// second and later).
	others map[string]int // by group and key, the group's index
	gk     []byte         // others' key
	// The others seen of each group, by the group's number, to count its
	// distinct others: a list searched per claim made an endpoint that
	// many cards share cost the square of their number. They are told
	// apart by their XXH3-128, as cards are by their content hashes, with
	// the same odds (sum128): a map of the (group, key, other) triples
	// themselves allocated each one.
	seen seenOthers
}

// seenOthers is a set of the others of groups, each by its group's number
// and its XXH3-128, in a table open-addressed by the hash with linear
// probing, at most two thirds full, made outside the heap as the part's
// other tables are: Go's map of them, 1.3 MB on the make perf dump, was
// most of what Finish put on the heap, and brought on a collection there.
type seenOthers struct {
	slots []seenSlot
	mask  uint64
	n     int
	mem   *blockSource
}

// seenSlot is a slot of seenOthers: group is the group's number, 0 when
// the slot is empty (groups number from 1).
type seenSlot struct {
	lo, hi uint64
	group  uint32
}

// reset empties the set, sized for about n others.
func (s *seenOthers) reset(mem *blockSource, n int) {
	size := 1 << bits.Len(uint(n+n/2+8))
	s.mem, s.n, s.mask = mem, 0, uint64(size-1)
	s.slots = outsideSlice[seenSlot](mem, size)[:size]
}

// add adds group's other of hash h, and reports whether it was new.
func (s *seenOthers) add(group uint32, h xxh3.Uint128) bool {
	i := s.slot(group, h)
	if s.slots[i].group != 0 {
		return false
	}
	if 3*(s.n+1) > 2*len(s.slots) {
		s.grow()
		i = s.slot(group, h)
	}
	s.slots[i] = seenSlot{lo: h.Lo, hi: h.Hi, group: group}
	s.n++
	return true
}

// slot returns the slot of group's other of hash h: its own, or the empty
// one it would take.
func (s *seenOthers) slot(group uint32, h xxh3.Uint128) uint64 {
	// An endpoint's others are many identities of one group: the
	// group's number, spread by a multiplier, keeps them apart from
	// another group's of the same hash, and XXH3's bits are as good as
	// random.
	i := (h.Lo ^ uint64(group)*0x9e3779b97f4a7c15) & s.mask
	for {
		sl := &s.slots[i]
		if sl.group == 0 || sl.group == group && sl.lo == h.Lo && sl.hi == h.Hi {
			return i
		}
		i = (i + 1) & s.mask
	}
}

// grow doubles the table.
func (s *seenOthers) grow() {
	old := s.slots
	size := 2 * len(old)
	s.slots, s.mask = outsideSlice[seenSlot](s.mem, size)[:size], uint64(size-1)
	for _, sl := range old {
		if sl.group != 0 {
			s.slots[s.slot(sl.group, xxh3.Uint128{Lo: sl.lo, Hi: sl.hi})] = sl
		}
	}
}

// group counts and groups the claims of part, of parts. Its claims are
// found in c.hashes twice, once per pass, rather than listed: a list of
// where they lie was fresh memory, which cost more in page faults than
// reading c.hashes again did.
func (p *claimPart) group(c *Cross, part, parts int) {
	t := &p.t
	t.mem.outside = true
	t.arena.mem = &t.mem
	// Claims share their groups (a name, a host, an endpoint many cards
	// give): 50,000 hashes for 150,000 claims on the make perf dump. A
	// part's share of the claims, split by hash, strays from an even one
	// by about its square root: the eighth more spares the list of them
	// its growth.
	share := c.hashes.n / parts
	t.reset(share+share/8+64, share/3, c.hashOnly)
	for _, chunk := range c.hashes.chunks {
		for i := 0; i < len(chunk); i += claimHashSize {
			if h, _ := hashAt(chunk, i); parts == 1 || hashPart(h, parts) == part {
				t.add(h)
			}
		}
	}
	// Most claims of shared hashes are content.impersonation's, which
	// note no others here: sized for a sixth of them (the make perf
	// dump's parts noted 8,713 and 4,810 others of 56,235 and 49,587
	// such claims), the set grows seldom; sized for a quarter, as Go's
	// map was so as not to be rehashed, its fresh pages faulted in for
	// nothing.
	p.seen.reset(&t.mem, t.grouped/6)
	// Sized at once: grown by append, the lists copied all they held at
	// each doubling, into fresh memory that page-faulted.
	p.groups = outsideSlice[claimGroup](&t.mem, t.shared)
	p.members.pos = outsideSlice[uint64](&t.mem, t.grouped)
	p.members.group = outsideSlice[uint32](&t.mem, t.grouped)
	// The second pass reads each claim's hash's number (groupCounts.shared)
	// in claim order, and the first group of each such hash in a list of
	// them that the cache holds, not the count table: its look-up missed
	// the cache for every claim (docs/performance.md).
	firstGroups := outsideSlice[int32](&t.mem, t.shared)[:t.shared]
	mine := 0
	for _, chunk := range c.hashes.chunks {
		for i := 0; i < len(chunk); i += claimHashSize {
			h, pos := hashAt(chunk, i)
			if parts > 1 && hashPart(h, parts) != part {
				continue
			}
			shared := t.slots[mine]
			mine++
			if shared == 0 {
				continue
			}
			if err := p.join(claimAt(c.st.blocks, pos), pos, &firstGroups[shared-1]); err != nil {
				p.err = err
				return
			}
		}
	}
}

// join adds the claim rec, at pos, of a group of two claims or more, to
// its group. first is the group of the hash's first claim joined, by its
// place in p.groups plus one, 0 before it is made: a hash's groups are
// told apart by their keys, the first in first, the others in p.others.
func (p *claimPart) join(rec []byte, pos uint64, first *int32) error {
	r := reader{b: rec}
	group := r.byte()
	key := r.bytes()
	other := r.bytes()
	r.bytes() // input
	r.uvarint()
	if r.bad {
		return errGarbledClaim
	}
	var g *claimGroup
	if i := *first; i > 0 {
		g = &p.groups[i-1]
	}
	switch {
	case g == nil:
		g = p.newGroup(group, key)
		*first = int32(g.seq)
	case g.group != group || !bytes.Equal(p.t.arena.bytes(g.key), key):
		p.gk = append(append(p.gk[:0], group), key...)
		if i, ok := p.others[string(p.gk)]; ok {
			g = &p.groups[i]
		} else {
			g = p.newGroup(group, key)
			if p.others == nil {
				p.others = make(map[string]int)
			}
			p.others[string(p.gk)] = int(g.seq - 1)
		}
	}
	g.n++
	p.members.pos = append(p.members.pos, pos)
	p.members.group = append(p.members.group, g.seq-1)
	switch group {
	case groupLookalike:
		if g.first.n == 0 {
			g.first = p.t.arena.copy(other)
		} else if !(g.origins && g.spellings) {
			origins, spellings := spellingsDiffer(p.t.arena.bytes(g.first), other)
			g.origins, g.spellings = g.origins || origins, g.spellings || spellings
		}
		return nil
	case groupContent:
		return nil // its findings count no others
	}
	if p.seen.add(g.seq, xxh3.Hash128(other)) {
		g.others++
	}
	return nil
}

// newGroup makes the group of key. Its key is copied to the part's arena,
// outside the heap, as the group itself is: copies of keys and groups on
// the heap were most of what Finish put there, which a collection then
// marked, and views of the claims in the store instead, compared with each
// claim of the group, missed the cache where the copies, side by side,
// did not.
func (p *claimPart) newGroup(group byte, key []byte) *claimGroup {
	if len(p.groups) == cap(p.groups) {
		// More groups than hashes shared: hashes that two keys share.
		grown := outsideSlice[claimGroup](&p.t.mem, 2*cap(p.groups)+16)
		p.groups = append(grown, p.groups...)
	}
	p.groups = append(p.groups, claimGroup{group: group, key: p.t.arena.copy(key), seq: uint32(len(p.groups) + 1)})
	return &p.groups[len(p.groups)-1]
}

// writeGroups writes the findings of the groups of parts, in their sort
// order, with the places of their members.
func writeGroups(parts []claimPart, blocks [][]byte, names *placeNames, out *findingWriter) error {
	type placed struct {
		finding
		part, g int // its part, and its index in the part's groups
		places  []Place
	}
	// Only the findings written are listed, then sorted: those that
	// --quiet or --min-level drops are counted here, in any order, as
	// counts have none. Sorting the dump's 2,786 findings by rule and
	// key, for --quiet to write none, was most of writeGroups' time on
	// the run's last goroutine (docs/performance.md).
	var found []placed
	for pi := range parts {
		arena := &parts[pi].t.arena
		for i := range parts[pi].groups {
			g := &parts[pi].groups[i]
			key := arena.bytes(g.key)
			f, ok := groupFinding(g.group, unsafe.String(unsafe.SliceData(key), len(key)), g.n, g.others, g.origins && g.spellings)
			switch {
			case !ok:
			case out.writes(f.code):
				// The group's key lies in the part's arena (newGroup),
				// and a writer may keep a finding's key past Finish.
				f.key = strings.Clone(f.key)
				found = append(found, placed{finding: f, part: pi, g: i})
			default:
				if err := out.write(f, nil, nil); err != nil {
					return err
				}
			}
		}
	}
	// Each finding's rule and key are its own: groups of one group and
	// key are one group.
	slices.SortFunc(found, func(a, b placed) int { return a.compare(&b.finding) })
	// Each group's finding that is written, by the group's index, plus
	// one: reading the places of thousands of findings that --quiet or
	// --min-level drops cost more than their counting.
	written := make([][]int32, len(parts))
	for pi := range parts {
		written[pi] = make([]int32, len(parts[pi].groups))
	}
	for i, f := range found {
		written[f.part][f.g] = int32(i + 1)
		found[i].places = make([]Place, 0, parts[f.part].groups[f.g].n)
	}
	for pi := range parts {
		members := &parts[pi].members
		for i, g := range members.group {
			if w := written[pi][g]; w > 0 {
				place, err := claimPlace(blocks, members.pos[i], names)
				if err != nil {
					return err
				}
				found[w-1].places = append(found[w-1].places, place)
			}
		}
	}
	for _, f := range found {
		if err := out.write(f.finding, f.places, nil); err != nil {
			return err
		}
	}
	return nil
}

// groupCounts counts claims by the hash of their group and key, in a
// table open-addressed by the hash with linear probing, at most two
// thirds full. It numbers the hashes counted twice or more, 1 up in the
// order their second claim came, and keeps each claim's hash's number in
// the order counted, 0 for a hash counted once: so that a pass over the
// claims after the count reads their numbers in order, where a look-up
// of each claim's slot in the table, which outgrows the cache, missed it.
type groupCounts struct {
	table []countSlot
	slots []uint32 // of each claim, its hash's number
	mask  uint64
	used  int // slots taken
	// shared counts the hashes counted twice or more, and grouped their
	// claims.
	shared, grouped int
	// hashOnly, when set, maps each hash first (see Cross.hashOnly).
	hashOnly func(uint64) uint64
	// mem makes the table and lists of the part it counts, outside the
	// heap (outsideSlice), freed once the part's findings are written;
	// arena holds its groups' keys and first spellings there.
	mem   blockSource
	arena byteArena
}

// byteArena copies byte strings side by side into blocks that mem makes,
// which hold them until mem frees them.
type byteArena struct {
	mem    *blockSource
	blocks [][]byte
}

// arenaRef is where a byteArena holds a string: its block, its offset in
// it and its length.
type arenaRef struct{ blk, off, n uint32 }

// arenaBlock is the size of a byteArena's blocks, but for longer strings.
const arenaBlock = 64 << 10

// copy copies b to the arena and returns where it lies.
func (a *byteArena) copy(b []byte) arenaRef {
	last := len(a.blocks) - 1
	if last < 0 || cap(a.blocks[last])-len(a.blocks[last]) < len(b) {
		a.blocks = append(a.blocks, outsideSlice[byte](a.mem, max(arenaBlock, len(b))))
		last++
	}
	off := len(a.blocks[last])
	a.blocks[last] = append(a.blocks[last], b...)
	return arenaRef{blk: uint32(last), off: uint32(off), n: uint32(len(b))}
}

// bytes returns the string at r.
func (a *byteArena) bytes(r arenaRef) []byte {
	return a.blocks[r.blk][r.off : r.off+r.n : r.off+r.n]
}

// countSlot is a slot of groupCounts' table: its hash, its count and
// ref, in one piece so that a look-up reads one cache line, where a
// slice of each had a look-up read three.
type countSlot struct {
	key uint64
	// ref is the index of the hash's first claim in groupCounts.slots
	// while it has one claim, then the hash's number.
	ref uint32
	n   uint8 // the claims of the slot's hash, up to 255; 0 when empty
}

// reset empties the table for claims claims, of about hashes distinct
// hashes. It starts sized for them and grows past them. A table sized
// for every claim to be its own, where claims share their groups, was
// larger than the CPU's second-level cache, which Finish's look-ups of a
// slot's count and group then missed; one sized for fewer hashes than
// come grows, each size's fresh pages faulting in turn: the pending
// claims' identities, most of them distinct, took three sizes.
func (t *groupCounts) reset(claims, hashes int, hashOnly func(uint64) uint64) {
	size := 1 << bits.Len(uint(hashes+hashes/2+8))
	if cap(t.table) < size {
		t.table = t.newTable(size)
	}
	t.table = t.table[:size]
	clear(t.table)
	t.mask, t.used, t.shared, t.grouped = uint64(size-1), 0, 0, 0
	if cap(t.slots) < claims {
		t.slots = outsideSlice[uint32](&t.mem, claims)
	}
	t.slots = t.slots[:0]
	t.hashOnly = hashOnly
}

// newTable returns a table of size empty slots, each page of it
// written once. Fresh memory from the system that a look-up reads first
// is mapped to the kernel's one page of zeros, and the slot's first write
// then replaces that mapping: a second page fault, and a flush of the TLB
// of each other core that runs the process, by interrupt, which Finish's
// parts, run at once, then paid each other's.
func (t *groupCounts) newTable(size int) []countSlot {
	table := outsideSlice[countSlot](&t.mem, size)[:size]
	step := max(os.Getpagesize()/int(unsafe.Sizeof(countSlot{})), 1)
	for i := 0; i < size; i += step {
		table[i].n = 0
	}
	return table
}

// add counts a claim of group hash h.
func (t *groupCounts) add(h uint64) {
	if t.hashOnly != nil {
		h = t.hashOnly(h)
	}
	i := t.slot(h)
	ts := &t.table[i]
	switch ts.n {
	case 0:
		if 3*(t.used+1) > 2*len(t.table) {
			t.grow()
			ts = &t.table[t.slot(h)]
		}
		t.used++
		ts.key, ts.ref = h, uint32(len(t.slots))
		t.slots = append(t.slots, 0)
	case 1:
		// The hash's second claim numbers it, and its first claim.
		t.shared++
		t.grouped += 2
		t.slots[ts.ref] = uint32(t.shared)
		ts.ref = uint32(t.shared)
		t.slots = append(t.slots, ts.ref)
	default:
		t.grouped++
		t.slots = append(t.slots, ts.ref)
	}
	if ts.n < math.MaxUint8 {
		ts.n++
	}
}

// slot returns the slot of hash h: its own, or the empty one it would
// take.
func (t *groupCounts) slot(h uint64) uint64 {
	// The hashes are XXH3's, as good as random in their low bits.
	i := h & t.mask
	for t.table[i].n != 0 && t.table[i].key != h {
		i = (i + 1) & t.mask
	}
	return i
}

// grow doubles the table, moving each hash's slot; the claims keep their
// hashes' numbers.
func (t *groupCounts) grow() {
	old := t.table
	size := 2 * len(old)
	t.table, t.mask = t.newTable(size), uint64(size-1)
	for _, s := range old {
		if s.n != 0 {
			t.table[t.slot(s.key)] = s
		}
	}
}

// findSorted judges the claims as the store merges them, in the order of
// the findings, one group of claims of a group and key at a time. A group
// holds its places and its distinct others in memory up to groupBudget
// each, and spills them beyond: one key that every record claims is judged
// in bounded memory too.
func (c *Cross) findSorted(out *findingWriter) error {
	m, err := c.st.stream()
	if err != nil {
		return err
	}
	return c.findFrom(m, out)
}

// recordSource yields records in sort order: a store's (merger) or digest
// files' (fileMerger).
type recordSource interface {
	next() ([]byte, bool, error)
}

// findFrom judges the claims m yields, as findSorted describes.
func (c *Cross) findFrom(m recordSource, out *findingWriter) error {
	out.names = c.placeNames()
	g := &groupClaims{
		names:  out.names,
		places: placeList{dir: c.dir, limit: int(c.groupBudget)},
		others: newStore("others", c.dir, c.groupBudget, wholeDigest),
	}
	defer g.close()
	for {
		rec, ok, err := m.next()
		if err != nil {
			return err
		}
		var group byte
		var key, other, input []byte
		var line int
		if ok {
			r := reader{b: rec}
			group, key, other, input, line = r.byte(), r.bytes(), r.bytes(), r.bytes(), int(r.uvarint())
			if r.bad {
				return errGarbledClaim
			}
			if g.n > 0 && group == g.group && bytes.Equal(key, g.key) {
				if err := g.add(other, input, line); err != nil {
					return err
				}
				continue
			}
		}
		if g.n > 0 {
			if err := g.judge(out); err != nil {
				return err
			}
		}
		if !ok {
			return nil
		}
		g.reset(group, key)
		if err := g.add(other, input, line); err != nil {
			return err
		}
	}
}

// wholeDigest is the sort key of a group's others: the whole of each.
func wholeDigest(rec []byte) (byte, []byte) { return 0, rec }

// groupClaims are the claims of one group and key, as findSorted reads
// them.
type groupClaims struct {
	group  byte
	key    []byte
	n      int
	places placeList
	others *store
	looks  lookalikeSpellings // groupLookalike's, in place of others
	frame  []byte
	names  *placeNames
}

func (g *groupClaims) reset(group byte, key []byte) {
	g.group, g.key, g.n = group, append(g.key[:0], key...), 0
	g.places.reset()
	g.others.reset()
	g.looks.reset()
}

func (g *groupClaims) add(other, input []byte, line int) error {
	g.n++
	switch g.group {
	case groupContent:
	case groupLookalike:
		g.looks.add(other)
	default:
		g.frame = binary.LittleEndian.AppendUint32(g.frame[:0], uint32(len(other)))
		if err := g.others.add(append(g.frame, other...)); err != nil {
			return err
		}
	}
	return g.places.add(input, line)
}

// distinct counts the distinct others, as the store sorts them.
func (g *groupClaims) distinct() (int, error) {
	m, err := g.others.stream()
	if err != nil {
		return 0, err
	}
	n := 0
	var last []byte
	for {
		rec, ok, err := m.next()
		if err != nil || !ok {
			return n, err
		}
		if n == 0 || !bytes.Equal(rec, last) {
			n++
			last = append(last[:0], rec...)
		}
	}
}

// judge writes the group's finding, if it makes one.
func (g *groupClaims) judge(out *findingWriter) error {
	if g.n < 2 {
		return nil
	}
	others := 0
	if g.group != groupContent && g.group != groupLookalike {
		var err error
		if others, err = g.distinct(); err != nil {
			return err
		}
	}
	f, ok := groupFinding(g.group, string(g.key), g.n, others, g.looks.origins && g.looks.spellings)
	if !ok {
		return nil
	}
	if g.places.f != nil {
		return out.write(f, nil, &g.places)
	}
	places := make([]Place, 0, g.n)
	err := g.places.each(func(input []byte, line int) error {
		name, ok := g.names.name(input)
		if !ok {
			return errGarbledClaim
		}
		places = append(places, Place{Input: name, Line: line})
		return nil
	})
	if err != nil {
		return err
	}
	return out.write(f, places, nil)
}

func (g *groupClaims) close() {
	g.places.reset()
	g.others.close()
}

// placeList holds the places of a group's claims, in memory up to limit
// bytes and in a temporary file beyond.
type placeList struct {
	dir   *spillDir
	limit int
	buf   []byte // each place: its line, its input's length, its input
	f     *os.File
	w     *bufio.Writer
}

func (p *placeList) add(input []byte, line int) error {
	p.buf = binary.AppendUvarint(p.buf, uint64(line))
	p.buf = appendBytes(p.buf, input)
	if len(p.buf) <= p.limit {
		return nil
	}
	if p.f == nil {
		f, err := p.dir.create("places")
		if err != nil {
			return err
		}
		p.f, p.w = f, bufio.NewWriterSize(f, runBufSize)
	}
	_, err := p.w.Write(p.buf)
	p.buf = p.buf[:0]
	return spillErr(p.f.Name(), err)
}

// each calls fn with every place in the order added; input is valid
// during the call only.
func (p *placeList) each(fn func(input []byte, line int) error) error {
	read := func(b []byte) ([]byte, error) {
		r := reader{b: b}
		for r.off < len(r.b) {
			line := int(r.uvarint())
			input := r.bytes()
			if r.bad {
				return nil, errGarbledClaim
			}
			if err := fn(input, line); err != nil {
				return nil, err
			}
		}
		return r.rest(), nil
	}
	if p.f == nil {
		_, err := read(p.buf)
		return err
	}
	if _, err := p.w.Write(p.buf); err != nil {
		return spillErr(p.f.Name(), err)
	}
	p.buf = p.buf[:0]
	if err := p.w.Flush(); err != nil {
		return spillErr(p.f.Name(), err)
	}
	if _, err := p.f.Seek(0, io.SeekStart); err != nil {
		return spillErr(p.f.Name(), err)
	}
	br := bufio.NewReaderSize(p.f, runBufSize)
	var rec []byte
	for {
		line, err := binary.ReadUvarint(br)
		if err == io.EOF {
			return nil
		}
		var n uint64
		if err == nil {
			n, err = binary.ReadUvarint(br)
		}
		if err == nil {
			rec = slices.Grow(rec[:0], int(n))[:n]
			_, err = io.ReadFull(br, rec)
		}
		if err != nil {
			return spillErr(p.f.Name(), fmt.Errorf("%w: %w", errGarbledClaim, err))
		}
		if err := fn(rec, int(line)); err != nil {
			return err
		}
	}
}

func (p *placeList) reset() {
	p.buf = p.buf[:0]
	if p.f != nil {
		p.f.Close()
		os.Remove(p.f.Name())
		p.f, p.w = nil, nil
	}
}

// inputNames numbers the inputs of a run's claims, so that a claim holds
// its input's number, a byte or two, in place of its name: with the make
// perf dump's path of 42 bytes, the name was over a third of the bytes of
// the claims, copied to the store and read back once per claim.
type inputNames struct {
	mu    sync.Mutex
	index map[string]int
	names []string
}

// number returns the number of input name, numbering it if it has none.
func (n *inputNames) number(name string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	i, ok := n.index[name]
	if !ok {
		if n.index == nil {
			n.index = map[string]int{}
		}
		i = len(n.names)
		n.index[name] = i
		n.names = append(n.names, name)
	}
	return i
}

// list returns the names by number.
func (n *inputNames) list() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clip(n.names)
}

// placeNames turns the input of a claim into the name a place shows: a
// number, in the claims Extract's functions take, or the name itself, in
// those of AppendClaims (digest files), each name then held once rather
// than once per place.
type placeNames struct {
	numbered []string
	held     map[string]string
	last     string
}

func (c *Cross) placeNames() *placeNames {
	return &placeNames{numbered: c.names.list(), held: map[string]string{}}
}

// name returns the name of a claim's input; ok is false for a number
// that names no input.
func (p *placeNames) name(input []byte) (name string, ok bool) {
	if p.numbered != nil {
		i, n := binary.Uvarint(input)
		if n != len(input) || i >= uint64(len(p.numbered)) {
			return "", false
		}
		return p.numbered[i], true
	}
	if string(input) == p.last {
		// A run's claims come input after input.
		return p.last, true
	}
	if name, ok = p.held[string(input)]; !ok {
		name = string(input)
		p.held[name] = name
	}
	p.last = name
	return name, true
}

// findingWriter counts findings and writes those shown.
type findingWriter struct {
	c      *Cross
	counts *CrossCounts
	out    report.VerdictWriter
	enc    report.Encoder
	w      io.Writer // a buffer in front of out
	line   []byte
	names  *placeNames // of the places streamed
}

// writes reports whether a finding of code is written, not only counted.
func (fw *findingWriter) writes(code fastvalidate.Code) bool {
	sev := fw.c.level(code)
	return sev != fastvalidate.SeverityOff && fw.out.Format() != report.FormatNone &&
		!(sev == fastvalidate.SeverityWarning && fw.c.MinLevel == fastvalidate.SeverityError)
}

// write counts f and writes it with its places: places, or those spilled
// streamed from spilled, which its line need not then hold whole.
func (fw *findingWriter) write(f finding, places []Place, spilled *placeList) error {
	sev := fw.c.level(f.code)
	switch sev {
	case fastvalidate.SeverityOff:
		return nil
	case fastvalidate.SeverityError:
		fw.counts.Errors++
	default:
		fw.counts.Warnings++
	}
	fw.counts.Rules[f.code.String()]++
	if !fw.writes(f.code) {
		return nil
	}
	kind, key, msg := f.text()
	a := report.Across{Code: f.code, Severity: sev, Kind: kind, Key: key, Message: msg}
	if spilled == nil {
		fw.line = fw.out.Across(fw.line[:0], &fw.enc, &a, places)
		_, err := fw.w.Write(fw.line)
		return err
	}
	return fw.stream(&a, spilled)
}

func base64URL(b []byte) string {
	return base64Enc.EncodeToString(b)
}

// stream writes a with the places spilled, byte for byte as write would
// with all of them, a place at a time.
func (fw *findingWriter) stream(a *report.Across, spilled *placeList) error {
	var first Place
	errFirst := errors.New("first place read")
	if err := spilled.each(func(input []byte, line int) error {
		name, ok := fw.names.name(input)
		if !ok {
			return errGarbledClaim
		}
		first = Place{Input: name, Line: line}
		return errFirst
	}); err != errFirst {
		if err == nil {
			err = errGarbledClaim
		}
		return err
	}
	return report.StreamAcross(fw.out, fw.w, &fw.enc, a, first, func(yield func(Place) error) error {
		i := -1
		return spilled.each(func(input []byte, line int) error {
			if i++; i == 0 {
				return nil // first
			}
			name, ok := fw.names.name(input)
			if !ok {
				return errGarbledClaim
			}
			return yield(Place{Input: name, Line: line})
		})
	})
}
