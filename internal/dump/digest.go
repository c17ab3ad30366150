// Package dump compares whole dumps of cards: cardscan diff (what changed
// between two dumps, matched by each card's identity) and --cross-card
// (identity claims that no single card can show, such as two cards with
// one agent_id).
//
// Both keep a digest of every card, made by the validation pipeline's
// workers as they judge it (pipeline.Config.Extract): its identity, the
// SHA-256 of its RFC 8785 canonical form, where it came from, its verdict,
// and a hash of each top-level member, with the few members a change report
// names (endpoints, version, skills, capabilities, security schemes,
// signature key ids) itemised. Digests are held in memory up to a budget
// and hash-partitioned by key to temporary files beyond it (store), so a
// dump of any size is compared partition by partition.
package dump

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strconv"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cespare/xxhash/v2"
	"github.com/valyala/fastjson"
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
// as a change's old and new values; longer ones are kept as a hash only.
const maxValue = 256

// item is one entry of an itemised member: where it is and what names it
// (a skill's id, a URL, a scheme's name, a key id). For a security scheme
// sum is the hash of its value, so that an edited scheme shows.
type item struct {
	pointer string
	label   string
	sum     uint64
}

// member is a top-level member of a card as a digest keeps it.
type member struct {
	name  string
	sum   uint64 // xxhash of its canonical value
	value string // its canonical value when at most maxValue bytes
	items []item
}

// Digest is what is kept of one record.
type Digest struct {
	Kind    string // a key kind
	Key     string
	Profile string
	Input   string
	Line    int
	Valid   bool
	Sum     [16]byte // of the canonical card, or of the record's bytes when it has none
	Errors  string   // the "errors" array, as validation's jsonl writes it, of an invalid card
	members []member
}

// Extractor makes digests; one per worker.
type Extractor struct {
	mode  KeyMode
	canon fastvalidate.Canonicalizer
	cbuf  []byte
	mbuf  []byte
	p     fastjson.Parser
	p2    fastjson.Parser
	enc   report.Encoder
	ebuf  []byte
	d     Digest
}

// NewExtractor returns an Extractor choosing keys by mode.
func NewExtractor(mode KeyMode) *Extractor { return &Extractor{mode: mode} }

// Append appends the encoded digest of the record vd judged.
func (x *Extractor) Append(dst []byte, vd report.Verdict) []byte {
	d := &x.d
	*d = Digest{Profile: vd.Profile, Input: vd.Input, Line: vd.Line, Valid: vd.Valid, members: d.members[:0]}
	card := vd.Card
	var source string
	if isFetchRecord(card) {
		if v, err := x.p2.ParseBytes(card); err == nil && v.Get("card") != nil && v.Get("valid") != nil {
			// cardscan fetch --format cards: the verdict and the card are
			// members of the record.
			source = str(v, "url")
			d.Valid = v.GetBool("valid")
			d.Profile = str(v, "profile")
			if !d.Valid {
				x.ebuf = v.Get("errors").MarshalTo(x.ebuf[:0])
				d.Errors = string(x.ebuf)
			}
			x.mbuf = v.Get("card").MarshalTo(x.mbuf[:0])
			card = x.mbuf
		}
	}
	if source == "" && !vd.Valid {
		d.Errors = x.errors(&vd)
	}
	x.digestCard(card)
	switch {
	case source != "" && x.mode != KeyID:
		d.Kind, d.Key = KindSource, source
	case d.Kind == "" || x.mode == KeySource:
		d.Kind, d.Key = KindRecord, "sha256:"+base64.RawURLEncoding.EncodeToString(d.Sum[:])
	}
	return appendDigest(dst, d)
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

// digestCard fills the card's hash, identity and members.
func (x *Extractor) digestCard(card []byte) {
	d := &x.d
	var err error
	x.cbuf, err = x.canon.Append(x.cbuf[:0], card, fastvalidate.CanonicalOptions{})
	if err != nil || card == nil {
		// No canonical form (not JSON, not an object, too large to
		// hold): the record is its bytes.
		sum := sha256.Sum256(card)
		copy(d.Sum[:], sum[:])
		return
	}
	sum := sha256.Sum256(x.cbuf)
	copy(d.Sum[:], sum[:])
	v, err := x.p.ParseBytes(x.cbuf)
	if err != nil {
		return
	}
	obj, _ := v.Object()
	var vbuf []byte
	obj.Visit(func(k []byte, mv *fastjson.Value) {
		vbuf = mv.MarshalTo(vbuf[:0])
		m := member{name: string(k), sum: xxhash.Sum64(vbuf)}
		if len(vbuf) <= maxValue {
			m.value = string(vbuf)
		}
		m.items = itemise(m.name, mv)
		d.members = append(d.members, m)
	})
	switch {
	case str(v, "agent_id") != "":
		d.Kind, d.Key = KindAgentID, str(v, "agent_id")
	case str(v, "url") != "":
		d.Kind, d.Key = KindURL, str(v, "url")
	case str(v, "supportedInterfaces", "0", "url") != "":
		d.Kind, d.Key = KindURL, str(v, "supportedInterfaces", "0", "url")
	case str(v, "invocation", "endpoint") != "":
		d.Kind, d.Key = KindEndpoint, str(v, "invocation", "endpoint")
	}
}

func str(v *fastjson.Value, path ...string) string {
	if x := v.Get(path...); x != nil && x.Type() == fastjson.TypeString {
		return string(x.GetStringBytes())
	}
	return ""
}

// itemise lists the entries of the members a change report names.
func itemise(name string, v *fastjson.Value) []item {
	var items []item
	p := "/" + escapePointer(name)
	switch name {
	case "url", "version":
		if v.Type() == fastjson.TypeString {
			items = append(items, item{pointer: p, label: string(v.GetStringBytes())})
		}
	case "endpoint": // AgentCard: {"url": ...}
		if s := str(v, "url"); s != "" {
			items = append(items, item{pointer: p + "/url", label: s})
		}
	case "invocation": // MA2D
		if s := str(v, "endpoint"); s != "" {
			items = append(items, item{pointer: p + "/endpoint", label: s})
		}
	case "supportedInterfaces", "additionalInterfaces":
		for i, e := range v.GetArray() {
			if s := str(e, "url"); s != "" {
				items = append(items, item{pointer: p + "/" + strconv.Itoa(i) + "/url", label: s})
			}
		}
	case "skills", "capabilities":
		if v.Type() == fastjson.TypeObject {
			// A2A and MA2D capabilities: the members set and not false.
			obj, _ := v.Object()
			obj.Visit(func(k []byte, e *fastjson.Value) {
				if t := e.Type(); t != fastjson.TypeFalse && t != fastjson.TypeNull {
					items = append(items, item{pointer: p + "/" + escapePointer(string(k)), label: string(k)})
				}
			})
			break
		}
		for i, e := range v.GetArray() {
			label := str(e, "id")
			if label == "" {
				label = str(e, "name")
			}
			if label == "" && e.Type() == fastjson.TypeString {
				label = string(e.GetStringBytes())
			}
			if label != "" {
				items = append(items, item{pointer: p + "/" + strconv.Itoa(i), label: label})
			}
		}
	case "securitySchemes":
		obj, err := v.Object()
		if err != nil {
			break
		}
		var b []byte
		obj.Visit(func(k []byte, e *fastjson.Value) {
			b = e.MarshalTo(b[:0])
			items = append(items, item{pointer: p + "/" + escapePointer(string(k)), label: string(k), sum: xxhash.Sum64(b)})
		})
	case "signatures":
		for i, e := range v.GetArray() {
			if kid := signatureKid(e); kid != "" {
				items = append(items, item{pointer: p + "/" + strconv.Itoa(i), label: kid})
			}
		}
	}
	return items
}

// signatureKid reads the kid of a JWS signature object: from its protected
// header (base64url JSON), else its unprotected header.
func signatureKid(sig *fastjson.Value) string {
	if prot := sig.GetStringBytes("protected"); prot != nil {
		if raw, err := base64.RawURLEncoding.DecodeString(string(prot)); err == nil {
			var p fastjson.Parser
			if h, err := p.ParseBytes(raw); err == nil {
				if kid := str(h, "kid"); kid != "" {
					return kid
				}
			}
		}
	}
	return str(sig, "header", "kid")
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
func appendDigest(dst []byte, d *Digest) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0) // length, set below
	dst = append(dst, kindIndex(d.Kind))
	dst = appendString(dst, d.Key)
	dst = appendString(dst, d.Profile)
	dst = appendString(dst, d.Input)
	dst = binary.AppendUvarint(dst, uint64(d.Line))
	if d.Valid {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	dst = append(dst, d.Sum[:]...)
	dst = appendString(dst, d.Errors)
	dst = binary.AppendUvarint(dst, uint64(len(d.members)))
	for _, m := range d.members {
		dst = appendString(dst, m.name)
		dst = binary.LittleEndian.AppendUint64(dst, m.sum)
		dst = appendString(dst, m.value)
		dst = binary.AppendUvarint(dst, uint64(len(m.items)))
		for _, it := range m.items {
			dst = appendString(dst, it.pointer)
			dst = appendString(dst, it.label)
			dst = binary.LittleEndian.AppendUint64(dst, it.sum)
		}
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
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
	d.Errors = string(r.bytes())
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
type reader struct {
	b   []byte
	bad bool
}

var zero [16]byte

func (r *reader) n(n int) []byte {
	if r.bad || len(r.b) < n {
		r.bad = true
		return zero[:min(n, 16)]
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *reader) byte() byte { return r.n(1)[0] }

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	return r.n(int(n))
}
