package dump

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cardscan/cardscan/internal/report"
	"github.com/valyala/fastjson"
	"github.com/zeebo/xxh3"
)

// Change kinds, as diff's "change" names them.
const (
	Added   = "added"
	Removed = "removed"
	Broke   = "broke"
	Fixed   = "fixed"
	Changed = "changed"
	// SignerChanged is a key whose card is signed by other keys than
	// before (the RFC 7638 thumbprints of the keys that verify it differ),
	// valid or invalid on both sides: the one change that says someone
	// else now speaks for the agent. Only a diff that verifies signatures
	// (--keys, --trust) sees it.
	SignerChanged = "signer-changed"
)

// DiffSummary is what cardscan diff --summary writes, under "diff".
type DiffSummary struct {
	OldRecords int64 `json:"old_records"`
	NewRecords int64 `json:"new_records"`
	Added      int64 `json:"added"`
	Removed    int64 `json:"removed"`
	Broke      int64 `json:"broke"`
	Fixed      int64 `json:"fixed"`
	Changed    int64 `json:"changed"`
	// SignerChanged counts the signer-changed keys; present, if 0, when
	// the diff verified signatures, and absent when it did not.
	SignerChanged *int64 `json:"signer_changed,omitempty"`
	Unchanged     int64  `json:"unchanged"`
	// KeyKinds counts the keys of both dumps (each key once) by kind.
	KeyKinds map[string]int64 `json:"key_kinds"`
	// DuplicateKeys counts the records whose key a later record of the
	// same dump took again: only the last record of a key is compared.
	DuplicateKeys int64   `json:"duplicate_keys"`
	Seconds       float64 `json:"seconds"`
	MBPerSecond   float64 `json:"mb_per_second"` // decompressed MB (10^6 bytes) of both dumps per second
	// Partitions is the number of sorted runs the digests were written
	// to, both dumps' together: 1 when they fitted in --memory.
	Partitions int `json:"partitions"`
	// SpillBytes is the disk the digests took, 0 when they fitted.
	SpillBytes int64 `json:"spill_bytes"`
}

// Differ compares two dumps, fed to it as digests: the old dump's through
// AddOld, then the new one's through AddNew.
type Differ struct {
	dir      *spillDir
	old, new *store
	// Format is report.FormatJSONL or report.FormatText.
	Format report.Format
	Style  report.Style
	// Signatures says the digests carry signers (the dumps' signatures
	// were verified), so that the summary counts signer changes.
	Signatures bool

	// A partition's digests of each dump, kept from one to the next.
	oldList, newList []keyed
	// Noted by add as the digests come, until a store spills: each dump's
	// digests by the hash of their key, in the order they came, and the
	// old dump's valid records by the low half of the hash of their bytes
	// (which recall then compares whole: two valid records that agree in
	// the half only cost the second a judgement).
	oldKeys, newKeys []keyed
	valid            map[uint64]uint64
	// oldIndexed: oldList is the whole old dump's, which OldRead indexed,
	// with oldDups keys superseded.
	oldIndexed bool
	oldDups    int64
	// indexing is OldRead's goroutines, which read d.old and write oldList.
	indexing sync.WaitGroup
	// Jobs is how many goroutines index and compare the digests held in
	// memory: one per CPU the process may use, when 0.
	Jobs int
}

// NewDiffer returns a Differ that holds at most about memory bytes of
// digests before it spills them to temporary files, in a directory made
// only then. It removes the spill directories that runs which were killed
// left behind.
func NewDiffer(memory int64) (*Differ, error) {
	removeStaleOnce()
	dir := &spillDir{}
	// The budget is shared by both dumps' digests, and comparing them
	// takes about twice as much again for the indexes and Go's collector:
	// the peak RSS of a diff in memory was 3.4 times its digests (the
	// make perf dump and its zstd copy, docs/cli.md).
	per := max(memory/6, 1)
	return &Differ{dir: dir, old: newStore("old", dir, per, byKey), new: newStore("new", dir, per, byKey), Format: report.FormatJSONL}, nil
}

// AddOld adds digests of the old dump; AddNew of the new one.
func (d *Differ) AddOld(b []byte) error {
	if d.valid == nil {
		d.valid = map[uint64]uint64{}
	}
	return d.add(d.old, &d.oldKeys, d.valid, b)
}

// AddNew adds digests of the new dump.
func (d *Differ) AddNew(b []byte) error { return d.add(d.new, &d.newKeys, nil, b) }

// add adds b, digests back to back, to s, and, until s spills, notes
// where each is by the hash of its key in keys and, when valid is not
// nil, where each valid one is by the low half of the hash of its bytes
// in valid. It is done here, while the digests are in the cache and the
// run's cores are busy judging, rather than after the dump is read: the
// index of the old dump, which the new dump's records wait for, read 14
// MB of digests from memory once for each, and the new dump's decoder
// then stopped, having filled the pipeline's few chunks in flight.
func (d *Differ) add(s *store, keys *[]keyed, valid map[uint64]uint64, b []byte) error {
	if s.spilled() {
		return s.add(b)
	}
	first := len(*keys)
	for off := 0; ; {
		rec, _, ok := nextDigest(b[off:])
		if !ok {
			break
		}
		_, key := digestKey(rec)
		*keys = append(*keys, keyed{hash: xxh3.Hash(key), at: uint64(off + 4)})
		off += 4 + len(rec)
	}
	added := (*keys)[first:]
	pos := s.hold(b, len(added))
	for i := range added {
		added[i].at += pos
		if valid == nil {
			continue
		}
		rec := added[i].rec(s.blocks)
		if r, isValid := digestReader(rec); !r.bad && isValid {
			// The content hash, then the hash of the record's bytes
			// (priorRaw), read on from where the verdict was.
			r.n(16)
			raw := r.n(16)
			valid[binary.LittleEndian.Uint64(raw[8:])] = added[i].at
		}
	}
	if !s.overBudget() {
		return nil
	}
	// The stores' sorted runs are compared instead.
	*keys = nil
	clear(valid)
	return s.spill()
}

// OldRead is called once every digest of the old dump has been added.
// When they are all in memory it indexes them, on goroutines of their own
// so that reading the new dump starts meanwhile, and returns two lookups,
// each safe for concurrent use:
//
//   - prior finds the last digest of a key (Extractor.SetPrior), once the
//     index is made, and
//   - recall is for pipeline.Config.Recall: a record of the new dump that
//     is the same bytes as a valid record of the old one has that
//     record's digest, but for where it is, and need not be judged again,
//     let alone hashed. An invalid record is judged again, for its errors
//     name its lines.
//
// Both are nil when the old dump's digests are not all in memory.
func (d *Differ) OldRead() (prior func(kind byte, key []byte) ([]byte, bool), recall func() func(dst, rec []byte, input string, line int) ([]byte, bool)) {
	if d.old.spilled() {
		return nil, nil
	}
	// The index, which prior waits for, is made while the new dump is
	// read; the valid records, which recall looks in, were noted as added.
	indexed := make(chan struct{})
	d.indexing.Go(func() {
		defer close(indexed)
		d.oldList = index(d.old.blocks, d.oldKeys, d.Jobs, d.oldList, &d.oldDups)
		d.oldKeys = nil
		d.oldIndexed = true
	})
	prior = func(kind byte, key []byte) ([]byte, bool) {
		<-indexed
		list, blocks := d.oldList, d.old.blocks
		i, found := slices.BinarySearchFunc(list, xxh3.Hash(key), func(e keyed, h uint64) int {
			if c := cmp.Compare(e.hash, h); c != 0 {
				return c
			}
			return bytes.Compare(e.key(blocks), key)
		})
		if !found {
			return nil, false
		}
		rec := list[i].rec(blocks)
		if rec[0] != kind {
			return nil, false
		}
		return rec, true
	}
	recall = func() func(dst, rec []byte, input string, line int) ([]byte, bool) {
		return func(dst, rec []byte, input string, line int) ([]byte, bool) {
			raw := sum128(rec)
			at, ok := d.valid[binary.LittleEndian.Uint64(raw[8:])]
			if !ok {
				return dst, false
			}
			old := keyed{at: at}.rec(d.old.blocks)
			if priorRaw(old) != raw {
				return dst, false
			}
			return appendMoved(dst, old, input, line), true
		}
	}
	return prior, recall
}

// appendMoved appends digest rec (without its length), framed, with its
// input and line replaced.
func appendMoved(dst, rec []byte, input string, line int) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0) // length, set below
	r := reader{b: rec}
	r.byte()
	r.bytes() // key
	r.bytes() // profile
	dst = append(dst, rec[:r.off]...)
	r.bytes() // input
	r.uvarint()
	dst = appendString(dst, input)
	dst = binary.AppendUvarint(dst, uint64(line))
	dst = append(dst, r.rest()...)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// Close removes the temporary files.
func (d *Differ) Close() {
	d.indexing.Wait()
	d.old.close()
	d.new.close()
	d.dir.remove()
}

// Finish writes one record per changed key to w, sorted by key, and
// returns the counts.
func (d *Differ) Finish(w io.Writer) (DiffSummary, error) {
	d.indexing.Wait()
	sum := DiffSummary{OldRecords: d.old.records, NewRecords: d.new.records, KeyKinds: map[string]int64{}, Partitions: 1}
	if d.Signatures {
		sum.SignerChanged = new(int64)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var err error
	if d.old.spilled() || d.new.spilled() {
		sum.SpillBytes = d.old.bytes + d.new.bytes
		err = d.compareSorted(&sum, bw)
	} else {
		err = d.compareInMemory(&sum, bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	return sum, err
}

// compareSorted compares the dumps as their stores stream them, in key
// order: only the last digest of each key of each dump is held.
func (d *Differ) compareSorted(sum *DiffSummary, w io.Writer) error {
	var olds, news *merger
	err := d.old.spill()
	if err == nil {
		err = d.new.spill()
	}
	if err == nil {
		olds, err = d.old.stream()
	}
	if err == nil {
		news, err = d.new.stream()
	}
	if err != nil {
		return err
	}
	sum.Partitions = len(d.old.runs) + len(d.new.runs)
	return d.compareFrom(olds, news, sum, w)
}

// compareFrom compares the dumps whose digests olds and news yield in key
// order, as compareSorted describes.
func (d *Differ) compareFrom(olds, news recordSource, sum *DiffSummary, w io.Writer) error {
	ol, nl := &lastOfKey{m: olds}, &lastOfKey{m: news}
	o, err := ol.next(&sum.DuplicateKeys)
	if err != nil {
		return err
	}
	n, err := nl.next(&sum.DuplicateKeys)
	if err != nil {
		return err
	}
	var line []byte
	for o != nil || n != nil {
		c := 0
		switch {
		case o == nil:
			c = 1
		case n == nil:
			c = -1
		default:
			_, ok := digestKey(o)
			_, nk := digestKey(n)
			c = bytes.Compare(ok, nk)
		}
		po, pn := o, n
		if c > 0 {
			po = nil
		} else if c < 0 {
			pn = nil
		}
		if line, err = d.writeChange(line, po, pn, sum, w); err != nil {
			return err
		}
		if c <= 0 {
			if o, err = ol.next(&sum.DuplicateKeys); err != nil {
				return err
			}
		}
		if c >= 0 {
			if n, err = nl.next(&sum.DuplicateKeys); err != nil {
				return err
			}
		}
	}
	return nil
}

// lastOfKey reads a store's stream a key at a time.
type lastOfKey struct {
	m         recordSource
	last, cur []byte
	started   bool
	done      bool
}

// next returns the last digest of the next key, nil after the last key,
// counting in dups the digests it superseded. What it returns is valid
// until the next call but one.
func (l *lastOfKey) next(dups *int64) ([]byte, error) {
	if !l.started {
		l.started = true
		rec, ok, err := l.m.next()
		if err != nil || !ok {
			l.done = true
			return nil, err
		}
		l.cur = append(l.cur[:0], rec...)
	}
	if l.done {
		return nil, nil
	}
	// The two buffers take turns, so that the digest returned last stays
	// whole while the next is read.
	l.last, l.cur = l.cur, l.last
	_, key := digestKey(l.last)
	for {
		rec, ok, err := l.m.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			l.done = true
			return l.last, nil
		}
		if _, k := digestKey(rec); !bytes.Equal(k, key) {
			l.cur = append(l.cur[:0], rec...)
			return l.last, nil
		}
		*dups++
		l.last = append(l.last[:0], rec...)
		_, key = digestKey(l.last)
	}
}

// keyed is a digest in an index: the hash of its key, and where it is,
// block<<32 | its offset in the block (after its length), which is also
// the order the digests came in. It holds no pointer: the lists are
// written once, into fresh memory, and the collector's write barrier,
// reading the slot a pointer is written to, mapped each fresh page to the
// kernel's page of zeros, so that the write then faulted again and
// flushed the other core's TLB (perf record -e cpu-clock -g: do_wp_page
// and flush_tlb_mm_range under index, 2% of a diff's samples).
type keyed struct {
	hash uint64
	at   uint64
}

// rec returns the digest at k of blocks, without its length.
func (k keyed) rec(blocks [][]byte) []byte {
	b := blocks[k.at>>32]
	off := uint32(k.at)
	n := binary.LittleEndian.Uint32(b[off-4:])
	return b[off : off+n : off+n]
}

// key returns the key of the digest at k of blocks.
func (k keyed) key(blocks [][]byte) []byte {
	_, key := digestKey(k.rec(blocks))
	return key
}

// index lists the last digest of each key of blocks, sorted by the hash
// of the key, from hashed, the digests by key hash in the order they
// came (add), counting the records it superseded; it may reorder hashed.
// A list sorted once costs a fraction of a map from key to digest, whose
// every key was a string of its own and hashed at each use: on the make
// perf dumps the map made up most of the comparison.
//
// The old dump's index is what the new dump's records wait for, and the
// new dump's is made after its last: both ran on one goroutine while the
// other cores had nothing to do. The list is made in parts, one per job
// (jobs, or GOMAXPROCS when 0; no more than one per minIndexPart
// digests), each on a goroutine of its own: each part sorts the digests
// of one range of hashes (hashPart), so that the parts, laid end to end,
// are the list one sort makes.
func index(blocks [][]byte, hashed []keyed, jobs int, list []keyed, dups *int64) []keyed {
	parts := indexParts(jobs, int64(len(hashed)))
	if parts == 1 {
		sortKeyed(hashed, blocks)
		n := dedupKeyed(hashed, blocks)
		*dups += int64(len(hashed) - n)
		return hashed[:n]
	}
	// Each run of hashed, a part's share, counts its digests by part ...
	run := func(w int) []keyed { return hashed[len(hashed)*w/parts : len(hashed)*(w+1)/parts] }
	counts := make([][]int, parts)
	var wg sync.WaitGroup
	for w := range parts {
		counts[w] = make([]int, parts)
		wg.Go(func() {
			for _, k := range run(w) {
				counts[w][hashPart(k.hash, parts)]++
			}
		})
	}
	wg.Wait()
	// ... which places them in list: part by part, and in a part run by
	// run, in the order they came.
	at := make([][]int, parts)
	total := 0
	for p := range parts {
		for w := range parts {
			if at[w] == nil {
				at[w] = make([]int, parts)
			}
			at[w][p] = total
			total += counts[w][p]
		}
	}
	bounds := make([]int, parts+1)
	for p := range parts {
		bounds[p] = at[0][p]
	}
	bounds[parts] = total
	list = slices.Grow(list[:0], total)[:total]
	for w := range parts {
		wg.Go(func() {
			next := at[w]
			for _, k := range run(w) {
				p := hashPart(k.hash, parts)
				list[next[p]] = k
				next[p]++
			}
		})
	}
	wg.Wait()
	kept := make([]int, parts)
	for p := range parts {
		wg.Go(func() {
			part := list[bounds[p]:bounds[p+1]]
			sortKeyed(part, blocks)
			kept[p] = dedupKeyed(part, blocks)
		})
	}
	wg.Wait()
	out := 0
	for p := range parts {
		out += copy(list[out:], list[bounds[p]:bounds[p]+kept[p]])
	}
	*dups += int64(total - out)
	return list[:out]
}

// minIndexPart is the fewest digests a part of index is given: a
// goroutine each is not worth fewer. A variable so that tests may split
// a few digests in many parts.
var minIndexPart int64 = 4096

// indexParts returns how many parts index makes its list of records
// digests in (jobParts).
func indexParts(jobs int, records int64) int {
	return jobParts(jobs, records, minIndexPart)
}

// sortKeyed sorts by hash, then key, then arrival (compareKeyed). The
// hashes are as good as random, so it deals the entries into buckets by
// their hashes' leading bits, in order, about eight a bucket, and sorts
// each bucket by insertion, comparing hashes inline: a comparison sort
// called compareKeyed about log2(n) times an entry, and the calls were
// most of the index's instructions. A bucket of many entries, as many
// copies of one key make, is sorted by slices.SortFunc instead.
func sortKeyed(list []keyed, blocks [][]byte) {
	if len(list) < minBucketSort {
		sortKeyedFunc(list, blocks)
		return
	}
	lo, hi := list[0].hash, list[0].hash
	for _, k := range list {
		lo, hi = min(lo, k.hash), max(hi, k.hash)
	}
	if lo == hi {
		sortKeyedFunc(list, blocks)
		return
	}
	// The bucket of a hash is the leading bits of its distance from lo,
	// scaled by shift so that hi's distance has its top bit set: the
	// buckets follow the hashes' order and hi falls in the last.
	nbits := min(bits.Len(uint(len(list)/8)), 16)
	shift := bits.LeadingZeros64(hi - lo)
	bucket := func(h uint64) int { return int((h - lo) << shift >> (64 - nbits)) }
	starts := make([]int, 1<<nbits+1)
	for _, k := range list {
		starts[bucket(k.hash)+1]++
	}
	for b := 1; b < len(starts); b++ {
		starts[b] += starts[b-1]
	}
	dealt := make([]keyed, len(list))
	for _, k := range list {
		b := bucket(k.hash)
		dealt[starts[b]] = k
		starts[b]++
	}
	// Each bucket's start has moved to its end, the next one's start.
	for b, start := 0, 0; b < len(starts)-1; b, start = b+1, starts[b] {
		part := dealt[start:starts[b]]
		if len(part) > maxInsertionSort {
			sortKeyedFunc(part, blocks)
			continue
		}
		for i := 1; i < len(part); i++ {
			k, j := part[i], i
			for ; j > 0; j-- {
				p := part[j-1]
				if p.hash < k.hash || p.hash == k.hash && compareKeyed(p, k, blocks) < 0 {
					break
				}
				part[j] = p
			}
			part[j] = k
		}
	}
	copy(list, dealt)
}

// minBucketSort is the fewest entries sortKeyed deals into buckets, and
// maxInsertionSort the most it sorts by insertion; variables so that
// tests may reach every path with a few entries.
var minBucketSort, maxInsertionSort = 64, 32

// sortKeyedFunc sorts as sortKeyed does, by comparisons.
func sortKeyedFunc(list []keyed, blocks [][]byte) {
	slices.SortFunc(list, func(a, b keyed) int { return compareKeyed(a, b, blocks) })
}

// compareKeyed orders by hash, then key, then arrival.
func compareKeyed(a, b keyed, blocks [][]byte) int {
	if c := cmp.Compare(a.hash, b.hash); c != 0 {
		return c
	}
	// Keys of one hash are the same but for a collision: by key, then
	// by arrival, so that the last of a key ends its run.
	if c := bytes.Compare(a.key(blocks), b.key(blocks)); c != 0 {
		return c
	}
	return cmp.Compare(a.at, b.at)
}

// dedupKeyed keeps, at the start of sorted list, the last entry of each
// key, and returns how many it kept.
func dedupKeyed(list []keyed, blocks [][]byte) int {
	out := 0
	for i, k := range list {
		if i+1 < len(list) && list[i+1].hash == k.hash && bytes.Equal(list[i+1].key(blocks), k.key(blocks)) {
			continue
		}
		list[out] = k
		out++
	}
	return out
}

// compareInMemory compares the dumps' digests, all in memory, writing
// the records of changed keys in key order.
func (d *Differ) compareInMemory(sum *DiffSummary, w io.Writer) error {
	if d.oldIndexed {
		// OldRead indexed the old dump already.
		sum.DuplicateKeys += d.oldDups
	} else {
		d.oldList = index(d.old.blocks, d.oldKeys, d.Jobs, d.oldList, &sum.DuplicateKeys)
		d.oldKeys = nil
	}
	d.newList = index(d.new.blocks, d.newKeys, d.Jobs, d.newList, &sum.DuplicateKeys)
	d.newKeys = nil
	// The lists are merged in parts, each a range of hashes (hashPart) on
	// a goroutine of its own, as index made them: what is in both and
	// unchanged is counted at once, the rest is sorted by key to be
	// written.
	parts := indexParts(d.Jobs, int64(max(len(d.oldList), len(d.newList))))
	merged := make([]mergePart, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() {
			merged[p].merge(hashRange(d.oldList, p, parts), hashRange(d.newList, p, parts), d.old.blocks, d.new.blocks)
		})
	}
	wg.Wait()
	var changed []pair
	for p := range merged {
		m := &merged[p]
		sum.Unchanged += m.unchanged
		for k, n := range m.kinds {
			if n > 0 {
				sum.KeyKinds[keyKind(byte(k))] += n
			}
		}
		changed = append(changed, m.changed...)
	}
	slices.SortFunc(changed, func(a, b pair) int { return bytes.Compare(a.key, b.key) })
	var line []byte
	var err error
	for _, p := range changed {
		if line, err = d.writeChange(line, p.o, p.n, sum, w); err != nil {
			return err
		}
	}
	return nil
}

// hashRange returns the entries of list, sorted by hash, that part p of
// parts holds (hashPart).
func hashRange(list []keyed, p, parts int) []keyed {
	start, _ := slices.BinarySearchFunc(list, p, func(k keyed, p int) int { return cmp.Compare(hashPart(k.hash, parts), p) })
	end, _ := slices.BinarySearchFunc(list, p+1, func(k keyed, p int) int { return cmp.Compare(hashPart(k.hash, parts), p) })
	return list[start:end]
}

// keyKind names the kind of a digest's key by its first byte, as
// digestKey does.
func keyKind(k byte) string {
	if int(k) < len(kinds) {
		return kinds[k]
	}
	return ""
}

// pair is a key of either dump and its last digest in each, nil in the
// dump that does not have it.
type pair struct{ key, o, n []byte }

// mergePart is what compareInMemory's merge of a range of hashes finds:
// the keys unchanged, counted by kind, and the others.
type mergePart struct {
	unchanged int64
	kinds     [256]int64 // by a digest's first byte, its kind
	changed   []pair
}

// merge merges ol and nl, lists of the old and new dumps' last digest of
// each key sorted by hash and key, in oldBlocks and newBlocks.
func (m *mergePart) merge(ol, nl []keyed, oldBlocks, newBlocks [][]byte) {
	for len(ol) > 0 || len(nl) > 0 {
		c := 0
		// The keys and heads of two digests of one key hash, read once
		// for both the keys' comparison and the heads'.
		var okey, nkey []byte
		var osum, nsum [16]byte
		var ov, nv bool
		switch {
		case len(ol) == 0:
			c = 1
		case len(nl) == 0:
			c = -1
		default:
			if c = cmp.Compare(ol[0].hash, nl[0].hash); c == 0 {
				okey, osum, ov, _ = digestKeyHead(ol[0].rec(oldBlocks))
				nkey, nsum, nv, _ = digestKeyHead(nl[0].rec(newBlocks))
				c = bytes.Compare(okey, nkey)
			}
		}
		switch {
		case c < 0:
			o := ol[0].rec(oldBlocks)
			m.changed = append(m.changed, pair{ol[0].key(oldBlocks), o, nil})
			ol = ol[1:]
		case c > 0:
			n := nl[0].rec(newBlocks)
			m.changed = append(m.changed, pair{nl[0].key(newBlocks), nil, n})
			nl = nl[1:]
		default:
			o, n := ol[0].rec(oldBlocks), nl[0].rec(newBlocks)
			if osum == nsum && ov == nv {
				m.unchanged++
				m.kinds[n[0]]++
			} else {
				m.changed = append(m.changed, pair{nkey, o, n})
			}
			ol, nl = ol[1:], nl[1:]
		}
	}
}

// writeChange writes the record of a key whose old digest is o and new
// one n, either nil when the key is in one dump only, unless they are the
// same, and counts it. line is scratch space, returned for reuse.
func (d *Differ) writeChange(line, o, n []byte, sum *DiffSummary, w io.Writer) ([]byte, error) {
	var c change
	switch {
	case o == nil:
		c.kind, c.new = Added, mustDecode(n)
		sum.Added++
	case n == nil:
		c.kind, c.old = Removed, mustDecode(o)
		sum.Removed++
	default:
		os, ov, _ := digestHead(o)
		ns, nv, _ := digestHead(n)
		if os == ns && ov == nv {
			sum.Unchanged++
			kind, _ := digestKey(n)
			sum.KeyKinds[kind]++
			return line, nil
		}
		c.old, c.new = mustDecode(o), mustDecode(n)
		signerChanged := c.old.Signers != c.new.Signers
		switch {
		case c.old.Valid && !c.new.Valid:
			c.kind = Broke
			sum.Broke++
		case !c.old.Valid && c.new.Valid:
			c.kind = Fixed
			sum.Fixed++
		case signerChanged && sum.SignerChanged != nil:
			c.kind = SignerChanged
			*sum.SignerChanged++
		default:
			c.kind = Changed
			sum.Changed++
		}
		if signerChanged {
			// First: it is what a reader of a signer-changed record looks
			// for, and it says more than the signature-kid changes below,
			// a kid being the signer's word.
			c.changes = append(c.changes, memberChange{pointer: "/signatures", what: "signer", old: signersJSON(c.old.Signers), new: signersJSON(c.new.Signers)})
		}
		c.changes = append(c.changes, memberChanges(c.old, c.new)...)
	}
	sum.KeyKinds[c.digest().Kind]++
	if d.Format == report.FormatText {
		line = c.appendText(line[:0], d.Style)
	} else {
		line = c.appendJSON(line[:0])
	}
	_, err := w.Write(line)
	return line, err
}

// signersJSON writes a digest's signers as a JSON array of thumbprints.
func signersJSON(signers string) string {
	b := []byte{'['}
	for i, tp := range strings.Fields(signers) {
		if i > 0 {
			b = append(b, ',')
		}
		b = report.AppendJSONString(b, tp)
	}
	return string(append(b, ']'))
}

func mustDecode(rec []byte) *Digest {
	d, _ := decodeDigest(rec)
	return d
}

// change is one record of diff's output.
type change struct {
	kind     string
	old, new *Digest
	changes  []memberChange
}

// digest is the new side's digest, or the old one's for a removed key.
func (c *change) digest() *Digest {
	if c.new != nil {
		return c.new
	}
	return c.old
}

// memberChange is one entry of "changes": old and new are JSON texts.
type memberChange struct {
	pointer, what string
	old, new      string
}

const null = "null"

func jsonString(s string) string { return string(report.AppendJSONString(nil, s)) }

// memberChanges lists what differs between two digests of a key, member by
// member in name order: every member whose canonical value differs gives
// at least one entry.
func memberChanges(o, n *Digest) []memberChange {
	var out []memberChange
	names := map[string]bool{}
	for _, m := range o.members {
		names[m.name] = true
	}
	for _, m := range n.members {
		names[m.name] = true
	}
	sorted := make([]string, 0, len(names))
	for name := range names {
		sorted = append(sorted, name)
	}
	slices.Sort(sorted)
	for _, name := range sorted {
		om, nm := findMember(o, name), findMember(n, name)
		if om != nil && nm != nil && om.sum == nm.sum {
			continue
		}
		before := len(out)
		out = appendFacetChanges(out, name, om, nm)
		if len(out) == before {
			out = append(out, memberChange{pointer: "/" + escapePointer(name), what: "other", old: memberValue(om), new: memberValue(nm)})
		}
	}
	return out
}

func findMember(d *Digest, name string) *member {
	for i := range d.members {
		if d.members[i].name == name {
			return &d.members[i]
		}
	}
	return nil
}

// memberValue is a member's canonical value as JSON, null when absent or
// too long to have been kept.
func memberValue(m *member) string {
	if m == nil || m.value == "" {
		return null
	}
	return m.value
}

func itemsOf(m *member) []item {
	if m == nil {
		return nil
	}
	return m.items
}

// appendFacetChanges appends the changes of the members a change report
// itemises; it appends nothing when what changed is none of its items.
func appendFacetChanges(out []memberChange, name string, om, nm *member) []memberChange {
	oi, ni := itemsOf(om), itemsOf(nm)
	switch name {
	case "url", "version", "endpoint", "invocation":
		what := "endpoint"
		if name == "version" {
			what = "version"
		}
		ol, nl, p := null, null, ""
		if len(oi) > 0 {
			ol, p = jsonString(oi[0].label), oi[0].pointer
		}
		if len(ni) > 0 {
			nl, p = jsonString(ni[0].label), ni[0].pointer
		}
		if ol != nl {
			out = append(out, memberChange{pointer: p, what: what, old: ol, new: nl})
		}
	case "supportedInterfaces", "additionalInterfaces":
		out = appendSetChanges(out, oi, ni, "interface", "interface")
	case "skills":
		out = appendSetChanges(out, oi, ni, "skill-removed", "skill-added")
	case "capabilities":
		out = appendSetChanges(out, oi, ni, "capability-removed", "capability-added")
	case "signatures":
		out = appendSetChanges(out, oi, ni, "signature-kid", "signature-kid")
	case "securitySchemes":
		out = appendSetChanges(out, oi, ni, "security-scheme", "security-scheme")
		for _, o := range oi {
			for _, n := range ni {
				if o.label == n.label && o.sum != n.sum {
					out = append(out, memberChange{pointer: n.pointer, what: "security-scheme", old: jsonString(o.label), new: jsonString(n.label)})
				}
			}
		}
	}
	return out
}

// appendSetChanges reports the labels only one side has: removed ones at
// their old pointer, added ones at their new one.
func appendSetChanges(out []memberChange, oi, ni []item, removed, added string) []memberChange {
	has := func(items []item, label string) bool {
		return slices.ContainsFunc(items, func(it item) bool { return it.label == label })
	}
	for _, o := range oi {
		if !has(ni, o.label) {
			out = append(out, memberChange{pointer: o.pointer, what: removed, old: jsonString(o.label), new: null})
		}
	}
	for _, n := range ni {
		if !has(oi, n.label) {
			out = append(out, memberChange{pointer: n.pointer, what: added, old: null, new: jsonString(n.label)})
		}
	}
	return out
}

func (c *change) appendJSON(dst []byte) []byte {
	d := c.digest()
	dst = append(dst, `{"change":`...)
	dst = report.AppendJSONString(dst, c.kind)
	dst = append(dst, `,"key":`...)
	dst = report.AppendJSONString(dst, d.Key)
	dst = append(dst, `,"key_kind":`...)
	dst = report.AppendJSONString(dst, d.Kind)
	dst = append(dst, `,"profile":`...)
	dst = report.AppendJSONString(dst, d.Profile)
	for _, side := range []struct {
		name string
		d    *Digest
	}{{"old", c.old}, {"new", c.new}} {
		if side.d == nil {
			continue
		}
		dst = append(dst, `,"`...)
		dst = append(dst, side.name...)
		dst = append(dst, `":{"input":`...)
		dst = report.AppendJSONString(dst, side.d.Input)
		dst = append(dst, `,"line":`...)
		dst = strconv.AppendInt(dst, int64(side.d.Line), 10)
		dst = append(dst, `,"valid":`...)
		dst = strconv.AppendBool(dst, side.d.Valid)
		dst = append(dst, '}')
	}
	if len(c.changes) > 0 {
		dst = append(dst, `,"changes":[`...)
		for i, m := range c.changes {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"pointer":`...)
			dst = report.AppendJSONString(dst, m.pointer)
			dst = append(dst, `,"what":`...)
			dst = report.AppendJSONString(dst, m.what)
			dst = append(dst, `,"old":`...)
			dst = append(dst, m.old...)
			dst = append(dst, `,"new":`...)
			dst = append(dst, m.new...)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if c.kind == Broke && c.new.Errors != "" {
		dst = append(dst, `,"errors":`...)
		dst = append(dst, c.new.Errors...)
	}
	return append(dst, "}\n"...)
}

// appendText writes a change as one line:
//
//	broke agent_id 01J… old.ndjson:12 -> new.ndjson:40 (agentcard): /version version "1.0" -> "1.1"; errors: card.required
func (c *change) appendText(dst []byte, style report.Style) []byte {
	d := c.digest()
	dst = append(dst, c.kind...)
	dst = append(dst, ' ')
	dst = append(dst, d.Kind...)
	dst = append(dst, ' ')
	dst = append(dst, report.TextSafe(d.Key)...)
	dst = append(dst, ' ')
	if c.old != nil {
		dst = append(dst, report.TextSafe(c.old.Input)...)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(c.old.Line), 10)
	}
	if c.old != nil && c.new != nil {
		dst = append(dst, " -> "...)
	}
	if c.new != nil {
		dst = append(dst, report.TextSafe(c.new.Input)...)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(c.new.Line), 10)
	}
	if d.Profile != "" {
		dst = append(dst, " ("...)
		dst = append(dst, report.TextSafe(d.Profile)...)
		dst = append(dst, ')')
	}
	sep := ": "
	for _, m := range c.changes {
		dst = append(dst, sep...)
		sep = "; "
		dst = append(dst, report.TextSafe(m.pointer)...)
		dst = append(dst, ' ')
		dst = append(dst, m.what...)
		dst = append(dst, ' ')
		dst = append(dst, report.TextSafe(shorten(m.old))...)
		dst = append(dst, " -> "...)
		dst = append(dst, report.TextSafe(shorten(m.new))...)
	}
	if c.kind == Broke {
		if rules := errorRules(c.new.Errors); rules != "" {
			dst = append(dst, sep...)
			dst = append(dst, "errors: "...)
			dst = append(dst, report.TextSafe(rules)...)
		}
	}
	return append(dst, '\n')
}

// shorten keeps a text line readable when a value is long.
func shorten(s string) string {
	if len(s) > 80 {
		return strings.ToValidUTF8(s[:77], "") + "..."
	}
	return s
}

// errorRules lists the rules of an "errors" array, comma-separated.
func errorRules(errs string) string {
	var p fastjson.Parser
	v, err := p.Parse(errs)
	if err != nil {
		return ""
	}
	var rules []string
	for _, e := range v.GetArray() {
		if r := string(e.GetStringBytes("rule")); r != "" && !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	return strings.Join(rules, ", ")
}
