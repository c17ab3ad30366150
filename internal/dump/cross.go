package dump

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

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
// hash-partitioned to temporary files as diff's digests are.
type Cross struct {
	dir string
	st  *store

	// Levels sets the level of dump rules, as --rule and a policy file
	// do; a rule it leaves out keeps its default, and SeverityOff drops
	// the rule's findings uncounted.
	Levels map[fastvalidate.Code]fastvalidate.Severity
	// MinLevel, when SeverityError, keeps warnings out of the output;
	// they are counted all the same, as the cards' are.
	MinLevel fastvalidate.Severity

	// The group hashes of a partition's claims, in order and sorted,
	// kept from one partition to the next.
	hashes, sorted []uint64
}

// NewCross returns a Cross that holds at most about memory bytes of claims
// before it spills them.
func NewCross(memory int64) (*Cross, error) {
	dir, err := os.MkdirTemp("", "cardscan-cross-")
	if err != nil {
		return nil, err
	}
	// Grouping the claims takes about three times as much again: the peak
	// RSS of --cross-card beyond plain validation's was 4.4 times its
	// claims on the make perf dump (docs/cli.md).
	return &Cross{dir: dir, st: newStore("claims", dir, max(memory/4, 1))}, nil
}

// Extract returns a function for pipeline.Config.Extract: the claims of
// each record.
func (c *Cross) Extract() func(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte {
	x := NewExtractor(KeyID)
	x.claimsOnly = true
	return x.AppendClaims
}

// Add adds claims, as Extract's functions appended them.
func (c *Cross) Add(b []byte) error { return c.st.add(b) }

// Close removes the temporary files.
func (c *Cross) Close() {
	c.st.close()
	os.RemoveAll(c.dir)
}

// AppendClaims appends the claims of the record vd judged: its identity,
// each endpoint URL it names (once), and its content; v is as for Append.
func (x *Extractor) AppendClaims(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte {
	x.fill(vd, v, false)
	d := &x.d
	x.id = append(append(append(x.id[:0], d.Kind...), ' '), x.key...)
	if d.Kind != KindRecord && d.Kind != KindSource {
		dst = appendClaim(dst, groupID, x.id, d.Sum[:], d.Input, d.Line)
	}
	start := 0
	for i, end := range x.epEnds {
		if e := x.eps[start:end]; !x.namedBefore(e, i) {
			dst = appendClaim(dst, groupEndpoint, e, x.id, d.Input, d.Line)
		}
		start = end
	}
	return appendClaim(dst, groupContent, d.Sum[:], nil, d.Input, d.Line)
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
// its start; ok is false when the claim is garbled.
func groupHash(rec []byte) (h uint64, ok bool) {
	r := reader{b: rec}
	r.byte()
	r.bytes()
	keyEnd := len(rec) - len(r.b)
	r.bytes()
	r.bytes()
	r.uvarint()
	return xxh3.Hash(rec[:keyEnd]), !r.bad
}

var errGarbledClaim = errors.New("a claim's temporary record is garbled")

// appendClaim encodes a claim as a digest is framed: the length, the group
// in place of the key kind, the key, then the rest.
func appendClaim(dst []byte, group byte, key, other []byte, input string, line int) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, group)
	dst = appendBytes(dst, key)
	dst = appendBytes(dst, other)
	dst = appendString(dst, input)
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

// Finish writes the findings to w in format ("text", "jsonl", "github",
// "sarif" or "" for none), sorted by rule and key, and counts them.
func (c *Cross) Finish(w io.Writer, format string, style report.Style) (*CrossCounts, error) {
	counts := &CrossCounts{Rules: map[string]int64{}}
	bw := bufio.NewWriterSize(w, 64<<10)
	var enc report.Encoder
	each := func(i int, emit func(key string, line []byte) error) error {
		return c.findPart(i, counts, format, style, &enc, emit)
	}
	var err error
	if c.st.spilled() {
		err = writeSorted(c.dir, Partitions, each, bw)
	} else {
		err = each(0, func(_ string, line []byte) error {
			_, err := bw.Write(line)
			return err
		})
	}
	if err == nil {
		err = bw.Flush()
	}
	return counts, err
}

type claimGroup struct {
	group  byte
	key    string
	places []Place
	others int // distinct
}

// findPart judges the claims of partition i.
func (c *Cross) findPart(i int, counts *CrossCounts, format string, style report.Style, enc *report.Encoder, emit func(key string, line []byte) error) error {
	blocks, err := c.st.load(i)
	if err != nil {
		return err
	}
	// Most claims are the only one of their group (a card's content, its
	// identity, its endpoints), and no finding names fewer than two
	// records: a first pass counts the claims of each group by a hash of
	// its group and key, so that only groups that may hold two are built.
	// Building every group, with its strings and places, took most of
	// --cross-card's time after the workers on the make perf dump.
	// The hashes are sorted rather than counted in a map: a map of every
	// claim was most of what the first pass cost.
	hashes := c.hashes[:0]
	for rec := range eachDigest(blocks) {
		h, ok := groupHash(rec)
		if !ok {
			return errGarbledClaim
		}
		hashes = append(hashes, h)
	}
	sorted := append(c.sorted[:0], hashes...)
	slices.Sort(sorted)
	c.hashes, c.sorted = hashes, sorted
	shared := map[uint64]struct{}{}
	n := 0 // claims in groups that may hold two
	for i, h := range sorted {
		if i > 0 && h == sorted[i-1] || i+1 < len(sorted) && h == sorted[i+1] {
			shared[h] = struct{}{}
			n++
		}
	}
	// The maps are made for every claim at once: growing them took a
	// third of the time of findPart on the make perf dump.
	groups := make(map[string]*claimGroup, n)
	// The (group, key, other) triples seen, to count each group's distinct
	// others: a list searched per claim made an endpoint that many cards
	// share cost the square of their number.
	seen := make(map[string]struct{}, n)
	// Input names, held once rather than once per claim.
	inputs := map[string]string{}
	var triple []byte
	claim := -1
	for rec := range eachDigest(blocks) {
		claim++
		if _, ok := shared[hashes[claim]]; !ok {
			continue
		}
		r := reader{b: rec}
		group := r.byte()
		key := r.bytes()
		other := r.bytes()
		input := r.bytes()
		line := int(r.uvarint())
		if r.bad {
			return errGarbledClaim
		}
		gk := string(group) + string(key)
		g := groups[gk]
		if g == nil {
			g = &claimGroup{group: group, key: string(key)}
			groups[gk] = g
		}
		name, ok := inputs[string(input)]
		if !ok {
			name = string(input)
			inputs[name] = name
		}
		g.places = append(g.places, Place{Input: name, Line: line})
		triple = appendBytes(appendString(triple[:0], gk), other)
		if _, ok := seen[string(triple)]; !ok {
			seen[string(triple)] = struct{}{}
			g.others++
		}
	}
	type finding struct {
		sortKey string
		code    fastvalidate.Code
		kind    string // of key, as diff's key_kind
		key     string
		msg     string
		places  []Place
	}
	var out []finding
	for _, g := range groups {
		if len(g.places) < 2 {
			continue
		}
		var f finding
		switch {
		case g.group == groupID && g.others > 1:
			// The key is the identity's kind and value, as
			// AppendClaims joined them.
			kind, key, _ := strings.Cut(g.key, " ")
			f = finding{code: fastvalidate.CodeDumpDuplicateID, kind: kind, key: key,
				msg: fmt.Sprintf("%s is claimed by %d records with %d different contents", g.key, len(g.places), g.others)}
		case g.group == groupEndpoint && g.others > 1:
			f = finding{code: fastvalidate.CodeDumpSharedEndpoint, kind: KindEndpoint, key: g.key,
				msg: fmt.Sprintf("endpoint %s is claimed by %d records of %d different identities", g.key, len(g.places), g.others)}
		case g.group == groupContent:
			key := cardSumPrefix + base64URL([]byte(g.key))
			f = finding{code: fastvalidate.CodeDumpDuplicateCard, kind: KindRecord, key: key,
				msg: fmt.Sprintf("the same card (%s) is in %d records", key, len(g.places))}
		default:
			continue
		}
		f.places = g.places
		f.sortKey = f.code.String() + "\x00" + g.key
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b finding) int {
		if a.sortKey < b.sortKey {
			return -1
		}
		if a.sortKey > b.sortKey {
			return 1
		}
		return 0
	})
	var line []byte
	for _, f := range out {
		sev := c.level(f.code)
		switch sev {
		case fastvalidate.SeverityOff:
			continue
		case fastvalidate.SeverityError:
			counts.Errors++
		default:
			counts.Warnings++
		}
		counts.Rules[f.code.String()]++
		if format == "" || sev == fastvalidate.SeverityWarning && c.MinLevel == fastvalidate.SeverityError {
			continue
		}
		line = appendFinding(line[:0], format, style, enc, f.code, sev, f.kind, f.key, f.msg, f.places)
		if err := emit(f.sortKey, line); err != nil {
			return err
		}
	}
	return nil
}

// appendFinding renders a dump finding: in text and github through the
// renderers of card findings, placed at the first record named, with every
// record in the message; in jsonl as a record of its own kind, with the
// records as an array; in sarif as one result, at the first record, with
// the others as related locations.
func appendFinding(dst []byte, format string, style report.Style, enc *report.Encoder, code fastvalidate.Code, sev fastvalidate.Severity, kind, key, msg string, places []Place) []byte {
	switch format {
	case "sarif":
		return enc.AppendSARIFAcross(dst, code, sev, msg, kind, key, places)
	case "jsonl":
		dst = append(dst, `{"input":`...)
		dst = report.AppendJSONString(dst, places[0].Input)
		dst = append(dst, `,"line":`...)
		dst = strconv.AppendInt(dst, int64(places[0].Line), 10)
		dst = append(dst, `,"rule":`...)
		dst = report.AppendJSONString(dst, code.String())
		dst = append(dst, `,"severity":`...)
		dst = report.AppendJSONString(dst, sev.String())
		dst = append(dst, `,"key":`...)
		dst = report.AppendJSONString(dst, key)
		dst = append(dst, `,"key_kind":`...)
		dst = report.AppendJSONString(dst, kind)
		dst = append(dst, `,"message":`...)
		dst = report.AppendJSONString(dst, msg)
		dst = append(dst, `,"records":[`...)
		for i, p := range places {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"input":`...)
			dst = report.AppendJSONString(dst, p.Input)
			dst = append(dst, `,"line":`...)
			dst = strconv.AppendInt(dst, int64(p.Line), 10)
			dst = append(dst, '}')
		}
		return append(dst, "]}\n"...)
	}
	full := []byte(msg + ": ")
	for i, p := range places {
		if i > 0 {
			full = append(full, ", "...)
		}
		full = append(full, p.Input...)
		full = append(full, ':')
		full = strconv.AppendInt(full, int64(p.Line), 10)
	}
	fs := []fastvalidate.Finding{fastvalidate.NewFinding(code, sev, "", string(full))}
	vd := report.Verdict{Input: places[0].Input, Line: places[0].Line, Column: 1, Valid: true, Findings: fs}
	if format == "github" {
		return enc.AppendGitHub(dst, &vd)
	}
	return enc.AppendText(dst, &vd, style)
}

func base64URL(b []byte) string {
	return base64Enc.EncodeToString(b)
}
