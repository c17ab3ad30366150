// Package dump compares whole dumps of cards: cardscan diff (what changed
// between two dumps, matched by each card's identity) and --cross-card
// (identity claims that no single card can show, such as two cards with
// one agent_id).
//
// Both keep a digest of every card, made by the validation pipeline's
// workers as they judge it (pipeline.Config.Extract): its identity, a
// 128-bit hash of its content that is equal for cards with equal RFC 8785
// canonical forms (digest.Hasher), where it came from, its verdict,
// and a hash of each top-level member, with the few members a change report
// names (endpoints, version, skills, capabilities, security schemes,
// signature key ids) itemised. Digests are held in memory up to a budget
// and hash-partitioned by key to temporary files beyond it (store), so a
// dump of any size is compared partition by partition.
package dump

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/cardscan/cardscan/fastvalidate/digest"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/valyala/fastjson"
	"github.com/zeebo/xxh3"
)

// KeyMode is --key: how a card's key is chosen.
type KeyMode uint8

const (
	// KeyAuto takes the URL of fetch output, else the card's identity.
	KeyAuto KeyMode = iota
	// KeySource takes the URL of fetch output; other records fall back
	// to their content.
	KeySource
	// KeyID takes the card's identity, from fetch output's card too.
	KeyID
)

// ParseKeyMode reads --key.
func ParseKeyMode(s string) (KeyMode, bool) {
	switch s {
	case "auto":
		return KeyAuto, true
	case "source":
		return KeySource, true
	case "id":
		return KeyID, true
	}
	return 0, false
}

// Key kinds, as diff's key_kind names them.
const (
	KindAgentID  = "agent_id"
	KindURL      = "url"
	KindEndpoint = "endpoint"
	KindSource   = "source"
	KindRecord   = "record"
)

var kinds = [...]string{KindAgentID, KindURL, KindEndpoint, KindSource, KindRecord}

func kindIndex(k string) byte {
	for i, s := range kinds {
		if s == k {
			return byte(i)
		}
	}
	return byte(len(kinds) - 1)
}

// maxValue is the longest canonical member value a digest keeps, to show
// as a change's old and new values, and only for a string, number or
// boolean; other and longer values are kept as a hash only. Kept values
// are most of a digest's size, and a digest of every card is held.
const maxValue = 64

// item is one entry of an itemised member: where it is and what names it
// (a skill's id, a URL, a scheme's name, a key id). For a security scheme
// sum is a hash of it (digest.Hasher.Members), so that an
// edited scheme shows.
type item struct {
	pointer string
	label   string
	sum     uint64
}

// member is a top-level member of a card as a digest keeps it.
type member struct {
	name  string
	sum   uint64 // changes just when its value does (digest.Hasher.Members)
	value string // its canonical value when at most maxValue bytes
	items []item
}

// Digest is what is kept of one record.
type Digest struct {
	Kind    string // a key kind
	Key     string // of a decoded digest; an Extractor has it in its key
	Profile string
	Input   string
	Line    int
	Valid   bool
	Sum     [16]byte // the card's content hash (digest.Hasher), or of the record's bytes when it has none
	Raw     [16]byte // the XXH3-128 of the record's bytes, to tell a record the old dump holds as is
	Errors  string   // the "errors" array, as validation's jsonl writes it, of an invalid card
	// Signers are the RFC 7638 thumbprints of the keys that verified the
	// card's signatures, sorted and space-separated, when the run verified
	// signatures (report.Verdict.Signers): "" for most cards, and at most
	// cardsig.MaxSignatures thumbprints for any.
	Signers string
	members []member // decoded only
}

// Extractor makes digests; one per worker.
type Extractor struct {
	mode   KeyMode
	hasher *digest.Hasher
	canon  canon.Canonicalizer
	cbuf   []byte
	mbuf   []byte
	p2     fastjson.Parser
	enc    report.Encoder
	ebuf   []byte
	d      Digest
	// The members of the card being digested, encoded, and the items of
	// the member being itemised.
	menc     []byte
	nmembers int
	items    []byte
	nitems   int
	// The card's endpoint and interface URLs, for --cross-card, for
	// which claimsOnly skips the rest of the members: back to back in
	// eps, each ending at its epEnds.
	eps        []byte
	epEnds     []int
	claimsOnly bool
	// looks holds the card's names and providers, for content.impersonation,
	// and origins the origins of the hosts of the cards before.
	looks   lookalikes
	origins origins
	// The card's key: while its members are digested, the identity found
	// so far, of rank keyRank in identity (len(identity) for none). The
	// digest's Key is left empty: it is set only when one is decoded.
	key     []byte
	keyRank int
	id      []byte // the claims' identity, the key's kind and the key
	place   []byte // the claims' input: its name, or its number (Cross.Extract)
	// mayDefer lets digestCard leave an identified card's content hash
	// uncomputed for claims, and sumDeferred says it did (Digest.Sum is
	// then zero).
	mayDefer, sumDeferred bool
	// The object members whose entries are itemised after the others
	// (see member), and the one being itemised.
	later  [3]laterMember
	nlater int
	entry  string
	// The digest.Hasher's callbacks, made once: a method value made per
	// card would be allocated.
	visitMember, visitEntry func(name []byte, value digest.Value, sum digest.Hash128)
	visitClaim              func(name []byte, value digest.Value)
	// prior finds the old dump's digest of a key, for the new dump's
	// cards (SetPrior); same is that digest when the record is the same
	// bytes, whose hashes and members the digest then takes as they are.
	prior func(kind byte, key []byte) ([]byte, bool)
	same  []byte
	// signers is the card's Digest.Signers, built here so that a card
	// without signers allocates nothing.
	signers []byte
}

// laterMember is an object member whose entries Members lists in order.
type laterMember struct {
	name string
	sum  uint64
}

// NewExtractor returns an Extractor choosing keys by mode.
func NewExtractor(mode KeyMode) *Extractor {
	x := &Extractor{mode: mode, hasher: digest.New(xxh128)}
	x.visitMember, x.visitEntry, x.visitClaim = x.member, x.itemiseEntry, x.claim
	x.looks.skeletonOf = x.looks.skeleton
	return x
}

// SetPrior has x look up the old dump's digest of each card's key with
// prior (Differ.OldRead) before hashing the card: a card that is the same
// bytes as its old record has the same content hash and members, which
// are copied rather than computed. Cards that change between two crawls
// are few, and the content hash and members are most of a digest's cost.
func (x *Extractor) SetPrior(prior func(kind byte, key []byte) ([]byte, bool)) { x.prior = prior }

// Append appends the encoded digest of the record vd judged; v is the
// Validator that judged it, or nil (see pipeline.Config.Extract).
func (x *Extractor) Append(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte {
	x.fill(vd, v, true)
	return x.appendDigest(dst, &x.d)
}

// fill digests the record vd judged into x.d, with the errors of an
// invalid card when withErrors is set.
func (x *Extractor) fill(vd report.Verdict, v *fastvalidate.Validator, withErrors bool) {
	d := &x.d
	*d = Digest{Profile: vd.Profile, Input: vd.Input, Line: vd.Line, Valid: vd.Valid}
	x.signers = x.signers[:0]
	for i, tp := range vd.Signers {
		if i > 0 {
			x.signers = append(x.signers, ' ')
		}
		x.signers = append(x.signers, tp...)
	}
	card := vd.Card
	var source string
	if fv := x.fetchRecord(card); fv != nil {
		// cardscan fetch --format cards: the verdict and the card are
		// members of the record.
		source = str(fv, "url")
		d.Valid = fv.GetBool("valid")
		d.Profile = str(fv, "profile")
		if !d.Valid && withErrors {
			x.ebuf = fv.Get("errors").MarshalTo(x.ebuf[:0])
			d.Errors = string(x.ebuf)
		}
		x.mbuf = fv.Get("card").MarshalTo(x.mbuf[:0])
		card = x.mbuf
	}
	if source == "" && !vd.Valid && withErrors {
		d.Errors = x.errors(&vd)
	}
	x.same = nil
	if withErrors {
		// A diff's digest: the new dump's are looked up by it.
		d.Raw = sum128(card)
		if x.prior != nil && source == "" && x.mode != KeySource && x.samePrior(card, v) {
			return
		}
	}
	hashed := x.digestCard(card, v)
	switch {
	case source != "" && x.mode != KeyID:
		d.Kind, x.key = KindSource, append(x.key[:0], source...)
	case d.Kind == "" || x.mode == KeySource:
		d.Kind, x.key = KindRecord, x.contentKey(x.key[:0], card, hashed)
	}
}

// samePrior reports whether the card has an identity under which the old
// dump holds a record of the same bytes; if so it sets the key and keeps
// that record's digest in x.same.
func (x *Extractor) samePrior(card []byte, v *fastvalidate.Validator) bool {
	if !x.hasher.Bind(v, card) {
		return false
	}
	root := x.hasher.Root()
	for _, id := range identity {
		// The identity of least rank, as identify finds it member by
		// member.
		k := at(root.Member(id.member), id.path...).Str()
		if len(k) == 0 {
			continue
		}
		old, ok := x.prior(kindIndex(id.kind), k)
		if !ok || priorRaw(old) != x.d.Raw {
			return false
		}
		x.d.Kind, x.key, x.same = id.kind, append(x.key[:0], k...), old
		return true
	}
	return false
}

// contentKey returns the key of a card that has no other: the XXH3-128 of
// its canonical form (TestContentKey), which anyone can check with xxhsum
// -H2, or of its bytes when it has none. Only such cards, few in a dump,
// are canonicalised.
func (x *Extractor) contentKey(dst, card []byte, hashed bool) []byte {
	sum := x.d.Sum
	if hashed {
		var err error
		if x.cbuf, err = x.canon.Append(x.cbuf[:0], card, canon.Options{}); err == nil {
			sum = sum128(x.cbuf)
		}
	}
	return base64Enc.AppendEncode(append(dst, contentPrefix...), sum[:])
}

// fetchRecord returns rec parsed when it is a record of cardscan fetch
// --format cards, which holds the card judged, and nil otherwise.
func (x *Extractor) fetchRecord(rec []byte) *fastjson.Value {
	if !isFetchRecord(rec) {
		return nil
	}
	fv, err := x.p2.ParseBytes(rec)
	if err != nil || fv.Get("card") == nil || fv.Get("valid") == nil {
		return nil
	}
	return fv
}

// contentSum returns the content hash of the card rec holds, as fill
// finds it (Digest.Sum), scanning rec itself: for a record read again
// once the claims are grouped (Cross's pending claims).
func (x *Extractor) contentSum(rec []byte) [16]byte {
	card := rec
	if fv := x.fetchRecord(rec); fv != nil {
		x.mbuf = fv.Get("card").MarshalTo(x.mbuf[:0])
		card = x.mbuf
	}
	if !x.hasher.Load(nil, card) {
		return sum128(card)
	}
	return x.hasher.Sum().Bytes()
}

// isFetchRecord tells the records of cardscan fetch --format cards, which
// it writes starting so, from cards (which rarely start with a url and
// never have both members), without parsing them.
func isFetchRecord(b []byte) bool {
	return bytes.HasPrefix(b, fetchHead) && bytes.Contains(b, fetchCard) && bytes.Contains(b, fetchValid)
}

var (
	fetchHead  = []byte(`{"url":`)
	fetchCard  = []byte(`,"card":`)
	fetchValid = []byte(`,"valid":`)
)

// errors returns the "errors" array of vd's jsonl record.
func (x *Extractor) errors(vd *report.Verdict) string {
	x.ebuf = x.enc.AppendFindingArrays(x.ebuf[:0], vd)
	// "errors":[...],"warnings":[...]: a quote inside a message is
	// escaped, so the first `],"warnings":[` ends the errors.
	b := bytes.TrimPrefix(x.ebuf, errorsHead)
	if i := bytes.Index(b, warningsHead); i >= 0 {
		return string(b[:i+1])
	}
	return "[]"
}

var (
	errorsHead   = []byte(`"errors":`)
	warningsHead = []byte(`],"warnings":[`)
)

// digestCard fills the card's hash and identity, and encodes its members
// into x.menc. It reports whether the card has a content hash: whether it
// is a JSON object. The hash and the members' come from the tape of the
// Validator that judged the card, when v is that, rather than from a
// second reading of it (digest.Hasher).
func (x *Extractor) digestCard(card []byte, v *fastvalidate.Validator) bool {
	d := &x.d
	x.menc, x.nmembers = x.menc[:0], 0
	x.eps, x.epEnds = x.eps[:0], x.epEnds[:0]
	x.key, x.keyRank, x.nlater = x.key[:0], len(identity), 0
	x.sumDeferred = false
	if !x.hasher.Bind(v, card) {
		// Not JSON, not an object, too deep: the record is its bytes.
		d.Sum = sum128(card)
		return false
	}
	if x.claimsOnly {
		// The claims need no member in order, nor their hashes.
		x.looks.reset()
		x.hasher.Each(x.visitClaim)
		if x.keyRank < len(identity) {
			d.Kind = identity[x.keyRank].kind
		}
		// An identified card's content hash is needed only when another
		// record claims its identity: it may wait for a second read of
		// the card, when its input allows one (Cross's pending claims).
		if x.mayDefer && d.Kind != "" {
			x.sumDeferred = true
			return true
		}
		x.hasher.Hash()
		d.Sum = x.hasher.Sum().Bytes()
		return true
	}
	x.hasher.Hash()
	d.Sum = x.hasher.Sum().Bytes()
	x.hasher.Members("", x.visitMember)
	for _, m := range x.later[:x.nlater] {
		x.nmembers++
		x.menc = appendString(x.menc, m.name)
		x.menc = binary.LittleEndian.AppendUint64(x.menc, m.sum)
		x.menc = append(x.menc, 0)
		x.items, x.nitems, x.entry = x.items[:0], 0, m.name
		x.hasher.Members(m.name, x.visitEntry)
		x.menc = binary.AppendUvarint(x.menc, uint64(x.nitems))
		x.menc = append(x.menc, x.items...)
	}
	if x.keyRank < len(identity) {
		d.Kind = identity[x.keyRank].kind
	}
	return true
}

// member digests one member of the card: its name, hash, canonical value
// when short, and items.
func (x *Extractor) member(name []byte, value digest.Value, sum digest.Hash128) {
	x.items, x.nitems = x.items[:0], 0
	switch {
	case value.IsObject() && entriesItemised(name) && x.nlater < len(x.later):
		// Itemised from its entries in canonical order, once Members is
		// done with the card's.
		x.later[x.nlater] = laterMember{name: entriesName(name), sum: sum.Lo}
		x.nlater++
	default:
		x.nmembers++
		x.menc = appendBytes(x.menc, name)
		x.menc = binary.LittleEndian.AppendUint64(x.menc, sum.Lo)
		if text := scalarText(value); text != nil && len(text) <= maxValue {
			x.menc = appendBytes(x.menc, text)
		} else {
			x.menc = append(x.menc, 0)
		}
		x.itemise(name, value)
		x.menc = binary.AppendUvarint(x.menc, uint64(x.nitems))
		x.menc = append(x.menc, x.items...)
	}
	x.identify(name, value)
}

// claim takes from one member of the card what --cross-card needs: the
// identity and the endpoints. Neither depends on the members' order: the
// identity is the one of least rank, and the endpoints are claims apart.
func (x *Extractor) claim(name []byte, value digest.Value) {
	// One switch passes over the many members that claim nothing: three,
	// one per kind of claim, cost a card more than the rest of claim.
	switch string(name) {
	case "name", "title", "displayName", "organization", "author", "provider":
		x.looks.note(name, value)
	case "url", "endpoint", "invocation", "supportedInterfaces", "additionalInterfaces":
		x.claimEndpoints(name, value)
		x.identify(name, value)
	case "agent_id":
		x.identify(name, value)
	}
}

// claimEndpoints notes the endpoint URLs member name of the card names, as
// itemise does, without the items, which claims do not need.
func (x *Extractor) claimEndpoints(name []byte, value digest.Value) {
	switch string(name) {
	case "url":
		if l := value.Str(); l != nil {
			x.endpoint(l)
		}
	case "endpoint": // AgentCard: {"url": ...}
		if l := value.Member("url").Str(); l != nil {
			x.endpoint(l)
		}
	case "invocation": // MA2D
		if l := value.Member("endpoint").Str(); l != nil {
			x.endpoint(l)
		}
	case "supportedInterfaces", "additionalInterfaces":
		for e := value.First(); e.Exists(); e = e.Next() {
			if l := e.Member("url").Str(); l != nil {
				x.endpoint(l)
			}
		}
	}
}

// identify notes member name's identity, if it holds one of lower rank
// than the card's found so far.
func (x *Extractor) identify(name []byte, value digest.Value) {
	for rank, id := range identity[:x.keyRank] {
		if string(name) != id.member {
			continue
		}
		if v := at(value, id.path...).Str(); len(v) > 0 {
			x.key, x.keyRank = append(x.key[:0], v...), rank
		}
	}
}

// scalarText returns the canonical text of a string, number or literal,
// and nil for an object or array.
func scalarText(v digest.Value) []byte {
	if v.IsObject() || v.IsArray() {
		return nil
	}
	return v.Text()
}

// at follows path (member names, or array indexes in decimal) from v and
// returns the value there, or an absent one.
func at(v digest.Value, path ...string) digest.Value {
	for _, p := range path {
		if v.IsArray() {
			n, err := strconv.Atoi(p)
			if err != nil {
				return digest.Value{}
			}
			v = v.First()
			for ; n > 0 && v.Exists(); n-- {
				v = v.Next()
			}
			continue
		}
		v = v.Member(p)
	}
	return v
}

// entriesItemised tells the members whose items, when the member is an
// object, are its entries: listed in the canonical form's order, which
// Members keeps, and for a security scheme with its value's hash.
func entriesItemised(name []byte) bool {
	return entriesName(name) != ""
}

func entriesName(name []byte) string {
	switch string(name) {
	case "skills":
		return "skills"
	case "capabilities":
		return "capabilities"
	case "securitySchemes":
		return "securitySchemes"
	}
	return ""
}

// itemiseEntry itemises an entry of the object member x.entry.
func (x *Extractor) itemiseEntry(name []byte, value digest.Value, sum digest.Hash128) {
	switch x.entry {
	case "skills", "capabilities":
		// A2A and MA2D capabilities: the members set and not false.
		if text := scalarText(value); string(text) != "false" && string(text) != "null" {
			x.itemName(x.entry, name, 0)
		}
	case "securitySchemes":
		x.itemName(x.entry, name, sum.Lo)
	}
}

// itemName is item with the pointer /member/name and the label name.
func (x *Extractor) itemName(member string, name []byte, sum uint64) {
	n := len(member) + 2 + len(name) + bytes.Count(name, tilde) + bytes.Count(name, slash)
	x.nitems++
	x.items = binary.AppendUvarint(x.items, uint64(n))
	x.items = append(append(append(x.items, '/'), member...), '/')
	x.items = appendPointerToken(x.items, name)
	x.items = appendBytes(x.items, name)
	x.items = binary.LittleEndian.AppendUint64(x.items, sum)
}

var tilde, slash = []byte{'~'}, []byte{'/'}

// appendPointerToken appends name escaped as a JSON Pointer token (RFC
// 6901).
func appendPointerToken(dst, name []byte) []byte {
	for _, c := range name {
		switch c {
		case '~':
			dst = append(dst, "~0"...)
		case '/':
			dst = append(dst, "~1"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func str(v *fastjson.Value, path ...string) string {
	if x := v.Get(path...); x != nil && x.Type() == fastjson.TypeString {
		return string(x.GetStringBytes())
	}
	return ""
}

// identity lists where a card's identity lies, first found first: a
// member, and the path within it to a string.
var identity = []struct {
	kind   string
	member string
	path   []string
}{
	{KindAgentID, "agent_id", nil},
	{KindURL, "url", nil},
	{KindURL, "supportedInterfaces", []string{"0", "url"}},
	{KindEndpoint, "invocation", []string{"endpoint"}},
}

// sum128 hashes a canonical form or a record's bytes. A 128-bit hash
// needs no cryptographic strength to tell whether a card changed: the
// dumps are compared, not defended, and the odds that two of 10^8 distinct
// cards collide are about n²/2^129 = 10^16/6.8·10^38, under 10^-22.
// XXH3-128 rather than SHA-256 because the hash was the largest single
// cost of a digest (BenchmarkValidateDigest under callgrind, see
// docs/performance.md), and it is XXH3-128 as xxhsum -H2 computes it
// (TestContentKey), so that a content key can be checked outside cardscan.
func sum128(b []byte) [16]byte { return xxh3.Hash128(b).Bytes() }

// xxh128 is the digest.Hasher's hash: a card's content hash is made of
// XXH3-128s of its values (fastvalidate/digest.go), with the same odds.
func xxh128(b []byte, seed uint64) digest.Hash128 {
	h := xxh3.Hash128Seed(b, seed)
	return digest.Hash128{Hi: h.Hi, Lo: h.Lo}
}

func (x *Extractor) item(pointer string, label []byte, sum uint64) {
	x.nitems++
	x.items = appendString(x.items, pointer)
	x.items = appendBytes(x.items, label)
	x.items = binary.LittleEndian.AppendUint64(x.items, sum)
}

// itemAt is item with the pointer p/i/suffix, written in place rather
// than built as a string: a card has an item per skill.
func (x *Extractor) itemAt(p string, i int, suffix string, label []byte, sum uint64) {
	var num [20]byte
	digits := num[:1]
	if i < 10 {
		num[0] = '0' + byte(i)
	} else {
		digits = strconv.AppendInt(num[:0], int64(i), 10)
	}
	n := len(p) + 1 + len(digits) + len(suffix)
	// Room for all of it at once: the appends below then only copy.
	x.items = slices.Grow(x.items, 2*binary.MaxVarintLen64+n+len(label)+8)
	x.nitems++
	x.items = binary.AppendUvarint(x.items, uint64(n))
	x.items = append(append(x.items, p...), '/')
	x.items = append(append(x.items, digits...), suffix...)
	x.items = appendBytes(x.items, label)
	x.items = binary.LittleEndian.AppendUint64(x.items, sum)
}

// itemise lists the entries of the members a change report names, but
// for those of an object member that entriesItemised names.
func (x *Extractor) itemise(name []byte, value digest.Value) {
	var p string
	switch string(name) {
	case "version":
		p = "/version"
	case "url":
		p = "/url"
	case "endpoint":
		p = "/endpoint"
	case "invocation":
		p = "/invocation"
	case "supportedInterfaces":
		p = "/supportedInterfaces"
	case "additionalInterfaces":
		p = "/additionalInterfaces"
	case "skills":
		p = "/skills"
	case "capabilities":
		p = "/capabilities"
	case "signatures":
		p = "/signatures"
	default:
		return
	}
	switch string(name) {
	case "version":
		if l := value.Str(); l != nil {
			x.item(p, l, 0)
		}
	case "url":
		if l := value.Str(); l != nil {
			x.item(p, l, 0)
			x.endpoint(l)
		}
	case "endpoint": // AgentCard: {"url": ...}
		if l := value.Member("url").Str(); l != nil {
			x.item("/endpoint/url", l, 0)
			x.endpoint(l)
		}
	case "invocation": // MA2D
		if l := value.Member("endpoint").Str(); l != nil {
			x.item("/invocation/endpoint", l, 0)
			x.endpoint(l)
		}
	case "supportedInterfaces", "additionalInterfaces":
		i := 0
		for e := value.First(); e.Exists(); e = e.Next() {
			if l := e.Member("url").Str(); l != nil {
				x.itemAt(p, i, "/url", l, 0)
				x.endpoint(l)
			}
			i++
		}
	case "skills", "capabilities":
		i := 0
		for e := value.First(); e.Exists(); e = e.Next() {
			l := e.Member("id").Str()
			if l == nil {
				l = e.Member("name").Str()
			}
			if l == nil {
				l = e.Str()
			}
			if l != nil {
				x.itemAt(p, i, "", l, 0)
			}
			i++
		}
	case "signatures":
		i := 0
		for e := value.First(); e.Exists(); e = e.Next() {
			if kid := signatureKid(e); kid != "" {
				x.itemAt(p, i, "", []byte(kid), 0)
			}
			i++
		}
	}
}

// endpoint notes an endpoint URL the card names, for --cross-card, which
// alone needs them.
func (x *Extractor) endpoint(url []byte) {
	if x.claimsOnly {
		x.eps = append(x.eps, url...)
		x.epEnds = append(x.epEnds, len(x.eps))
	}
}

// signatureKid reads the kid of a JWS signature object: from its protected
// header (base64url JSON), else its unprotected header.
func signatureKid(sig digest.Value) string {
	if prot := sig.Member("protected").Str(); len(prot) > 0 {
		if raw, err := base64.RawURLEncoding.DecodeString(string(prot)); err == nil {
			var p fastjson.Parser
			if h, err := p.ParseBytes(raw); err == nil {
				if kid := h.GetStringBytes("kid"); len(kid) > 0 {
					return string(kid)
				}
			}
		}
	}
	return string(sig.Member("header").Member("kid").Str())
}

// escapePointer escapes a member name as a JSON Pointer token (RFC 6901).
func escapePointer(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '~' || s[i] == '/' {
			b := make([]byte, 0, len(s)+2)
			for j := 0; j < len(s); j++ {
				switch s[j] {
				case '~':
					b = append(b, "~0"...)
				case '/':
					b = append(b, "~1"...)
				default:
					b = append(b, s[j])
				}
			}
			return string(b)
		}
	}
	return s
}

// The encoding of a digest: its length, then the kind's index, the key
// (first, so that a store routes a digest without decoding the rest), and
// the other fields; strings are length-prefixed.
func (x *Extractor) appendDigest(dst []byte, d *Digest) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0) // length, set below
	dst = append(dst, kindIndex(d.Kind))
	dst = appendBytes(dst, x.key)
	dst = appendString(dst, d.Profile)
	dst = appendString(dst, d.Input)
	dst = binary.AppendUvarint(dst, uint64(d.Line))
	if d.Valid {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	if x.same != nil {
		sum, members := priorTail(x.same)
		dst = append(dst, sum...)
		dst = append(dst, d.Raw[:]...)
		dst = appendString(dst, d.Errors)
		dst = appendBytes(dst, x.signers)
		dst = append(dst, members...)
	} else {
		dst = append(dst, d.Sum[:]...)
		dst = append(dst, d.Raw[:]...)
		dst = appendString(dst, d.Errors)
		dst = appendBytes(dst, x.signers)
		dst = binary.AppendUvarint(dst, uint64(x.nmembers))
		dst = append(dst, x.menc...)
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// priorRaw reads the hash of the record's bytes from an encoded digest
// (without its length); a garbled one gives zeros, which no record's
// hash is but by a 2^-128 chance.
func priorRaw(rec []byte) (raw [16]byte) {
	r, _ := digestReader(rec)
	r.n(16) // the content hash
	copy(raw[:], r.n(16))
	return raw
}

// priorTail returns the content hash of an encoded digest (without its
// length) and its members, encoded, as they follow the errors and the
// signers.
func priorTail(rec []byte) (sum, members []byte) {
	r, _ := digestReader(rec)
	sum = r.n(16)
	r.n(16)   // the record's bytes' hash
	r.bytes() // errors
	r.bytes() // signers
	return sum, r.rest()
}

// digestReader reads an encoded digest (without its length) up to its
// content hash, and tells its verdict.
func digestReader(rec []byte) (r reader, valid bool) {
	r, _, valid = digestKeyReader(rec)
	return r, valid
}

// digestKeyReader is digestReader that also returns the digest's key, as
// digestKey does, for a caller that needs both from one reading.
func digestKeyReader(rec []byte) (r reader, key []byte, valid bool) {
	r = reader{b: rec}
	r.byte()
	key = r.bytes()
	r.bytes() // profile
	r.bytes() // input
	r.uvarint()
	valid = r.byte() == 1
	return r, key, valid
}

func appendBytes(dst []byte, s []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// nextDigest splits the first encoded digest off b. ok is false when b
// does not start with a whole one.
func nextDigest(b []byte) (rec, rest []byte, ok bool) {
	if len(b) < 4 {
		return nil, b, false
	}
	n := int(binary.LittleEndian.Uint32(b))
	if len(b) < 4+n {
		return nil, b, false
	}
	return b[4 : 4+n], b[4+n:], true
}

// digestKey reads the key of an encoded digest (without its length).
func digestKey(rec []byte) (kind string, key []byte) {
	r := reader{b: rec}
	k := r.byte()
	key = r.bytes()
	if int(k) < len(kinds) {
		kind = kinds[k]
	}
	return kind, key
}

// digestHead reads what tells whether a key changed from an encoded digest
// (without its length), allocating nothing.
func digestHead(rec []byte) (sum [16]byte, valid, ok bool) {
	_, sum, valid, ok = digestKeyHead(rec)
	return sum, valid, ok
}

// digestKeyHead reads an encoded digest's key, as digestKey does, with
// its head, as digestHead does, in one reading.
func digestKeyHead(rec []byte) (key []byte, sum [16]byte, valid, ok bool) {
	r, key, valid := digestKeyReader(rec)
	copy(sum[:], r.n(16))
	return key, sum, valid, !r.bad
}

// decodeDigest decodes an encoded digest (without its length).
func decodeDigest(rec []byte) (*Digest, bool) {
	r := reader{b: rec}
	d := &Digest{}
	k := r.byte()
	if int(k) < len(kinds) {
		d.Kind = kinds[k]
	}
	d.Key = string(r.bytes())
	d.Profile = string(r.bytes())
	d.Input = string(r.bytes())
	d.Line = int(r.uvarint())
	d.Valid = r.byte() == 1
	copy(d.Sum[:], r.n(16))
	copy(d.Raw[:], r.n(16))
	d.Errors = string(r.bytes())
	d.Signers = string(r.bytes())
	nm := r.uvarint()
	for i := uint64(0); i < nm && !r.bad; i++ {
		m := member{name: string(r.bytes())}
		m.sum = binary.LittleEndian.Uint64(r.n(8))
		m.value = string(r.bytes())
		ni := r.uvarint()
		for j := uint64(0); j < ni && !r.bad; j++ {
			it := item{pointer: string(r.bytes()), label: string(r.bytes())}
			it.sum = binary.LittleEndian.Uint64(r.n(8))
			m.items = append(m.items, it)
		}
		d.members = append(d.members, m)
	}
	return d, !r.bad
}

// reader decodes what appendDigest wrote; a short or garbled record sets
// bad rather than panicking.
//
// It reads on by moving off, not by slicing b: a slice stored through the
// reader's pointer is a pointer written, which, while the garbage collector
// marks, goes through its write barrier, and --cross-card's Finish, whose
// tables often start a collection, read every claim so: the barrier and
// the marking of the blocks it named took 71M instructions of a run on the
// make perf dump, about as many as Add took (docs/performance.md).
type reader struct {
	b   []byte
	off int // what is read of b
	bad bool
}

// rest returns what is left to read.
func (r *reader) rest() []byte { return r.b[r.off:] }

var zero [16]byte

func (r *reader) n(n int) []byte {
	if r.bad || len(r.b)-r.off < n {
		r.bad = true
		return zero[:min(n, 16)]
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) byte() byte { return r.n(1)[0] }

func (r *reader) uvarint() uint64 {
	b := r.b[r.off:]
	if len(b) > 0 && b[0] < 0x80 {
		// One byte, as most lengths of a claim are: Finish reads several
		// per claim.
		r.off++
		return uint64(b[0])
	}
	if len(b) > 1 && b[1] < 0x80 {
		// Two bytes, or three, as most lines are: binary.Uvarint's loop,
		// not inlined, was the largest part of reading a claim.
		r.off += 2
		return uint64(b[0]&0x7f) | uint64(b[1])<<7
	}
	if len(b) > 2 && b[2] < 0x80 {
		r.off += 3
		return uint64(b[0]&0x7f) | uint64(b[1]&0x7f)<<7 | uint64(b[2])<<14
	}
	v, n := binary.Uvarint(b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.off += n
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)-r.off) {
		r.bad = true
		return nil
	}
	return r.n(int(n))
}

// base64Enc writes content keys: contentPrefix and the canonical form's
// XXH3-128 (big-endian), base64url.
var base64Enc = base64.RawURLEncoding

const contentPrefix = "xxh128:"
