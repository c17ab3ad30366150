package fastvalidate

import (
	"strconv"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate/internal/decimal"
	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

// walker is what a profile's checks see: the card's bytes, a view of its
// tape, and the Result being filled. Node indexes are tape indexes; the
// root is node 0.
type walker struct {
	cfg      *config
	sc       tape.Scanner
	vw       tape.View    // of sc's tape: how every check reads the card
	header   tape.Scanner // reads JWS protected headers (see checkJWSHeader)
	b        []byte       // the document the tape describes
	res      Result
	embedded []byte // the decoded inner document of an embedded-string card
	// unwrapped says the card came as a JSON string and w.b is its content;
	// the string's text lies at card[rawStart:rawEnd].
	unwrapped        bool
	rawStart, rawEnd int
	card             []byte   // the card as Validate got it, for digest.Hasher.Load
	valBuf           []byte   // scratch for decoding string values
	pathBuf          []uint32 // scratch for rendering paths
	// segs holds the texts of the object the content rules read, fold
	// those of them that are not the card's own bytes, and hostBuf the
	// registrable domains of the card's interfaces (see checkContent).
	segs    []textSeg
	work    contentWork // the parts of the content rules to run
	fold    []byte
	hostBuf []byte
	domains *domainCache
	idn     *idnCache
	// nowMillis is the clock's last reading, for telling future agent_id
	// timestamps; see checkAgentID.
	nowMillis uint64
	// note is the disagreement of the draft and the schema that the
	// findings reported now are about: a check sets it around the value
	// in dispute, and every finding added meanwhile carries it.
	note disagreement

	// tail is the last text of the object the patterns read last, when
	// hasTail, and tailSeen its gate's bits, all of them when tailFull
	// (see walker.readOnFromTail); carried is 1 while segs[0] is tail.
	tail     textSeg
	hasTail  bool
	tailFull bool
	tailSeen uint64
	carried  int
	// splitWord is set when the object's texts hold a word split by a
	// hyphen (and maybe more hyphens or dots) that, joined, may be a
	// pattern's word (see walker.noteSplitWord).
	splitWord bool
	// patterns is the pattern set, got by the walker's first checkContent
	// for the texts it reads, nil while the patterns' rules are off.
	patterns *patternSet
	// turnSeg is the segment after the last one a conversation turn was
	// reported in (see walker.matchTurnAt).
	turnSeg int
	// code holds the Markdown code spans of one segment of the object,
	// found on the first literal matched in it (see walker.inCodeSpan).
	code codeSpans
	// lits is the literals matched in the object the patterns read (see
	// matchPatterns).
	lits litHits
}

// validate judges card by profile p. Result.Profile is set here and only
// here, on every path, so that no caller has to fill it in.
func (w *walker) validate(card []byte, p *profileDef) {
	w.note = noDisagreement
	switch {
	case w.readCard(card):
		w.res.Profile = p.check(w)
		w.checkContent()
		w.res.Detected = w.res.Profile != p.name && w.res.Profile != ""
	case p.rejected != nil:
		w.res.Profile = p.rejected(w)
	default:
		w.res.Profile = p.name
	}
	if w.unwrapped && len(w.res.findings) > 0 {
		w.res.unembed(card[w.rawStart:w.rawEnd], w.rawStart)
	}
}

// readCard scans card and reports whether it is an object a profile's
// checks can read; if not, it reports why.
func (w *walker) readCard(card []byte) bool {
	w.b, w.card = card, card
	w.unwrapped = false
	if !w.scan(card) {
		w.scanFailed()
		return false
	}
	if w.vw.Kind(0) == tape.KindString && w.cfg.embedded {
		// Section 3: a card may arrive as a JSON string holding the object.
		start, end := w.vw.Bounds(0)
		w.rawStart, w.rawEnd = int(start), int(end)
		w.embedded = tape.AppendUnescaped(w.embedded[:0], w.raw(0))
		w.b = w.embedded
		w.unwrapped = true
		if !w.scan(w.b) && !w.holdsNoObject(card) {
			w.scanFailed()
			return false
		}
	}
	if w.vw.Kind(0) != tape.KindObject {
		if w.cfg.rootType == CodeSchemaType {
			if w.vw.Kind(0) == tape.KindString && w.holdsObjectText() {
				w.note = disEmbeddedString
			}
			w.addGot(CodeSchemaType, 0, "type: expected object")
			w.note = noDisagreement
			return false
		}
		w.addGot(CodeCardType, 0, "card is not a JSON object")
		return false
	}
	return true
}

// holdsObjectText reports whether the root string's content starts as a
// JSON object does: the draft's embedded-string form (section 3), which
// the schema, typing the card as an object, does not know.
func (w *walker) holdsObjectText() bool {
	w.embedded = tape.AppendUnescaped(w.embedded[:0], w.raw(0))
	for _, c := range w.embedded {
		if !tape.WSTable[c] {
			return c == '{'
		}
	}
	return false
}

// scan reads b onto the tape. A tape the scan gave up on is read too (see
// autoRejected): the string it stopped in is not listed, and not read.
func (w *walker) scan(b []byte) bool {
	ok := w.sc.Scan(b)
	w.vw = w.sc.View()
	return ok
}

// span is where a word lies in the text it was cut from (see checkContent).
type span struct{ start, end uint32 }

// scanCodes maps why a scan stopped to the rule that reports it.
var scanCodes = [...]Code{
	tape.ErrSyntax:       CodeJSONSyntax,
	tape.ErrUTF8:         CodeJSONUTF8,
	tape.ErrDuplicateKey: CodeJSONDuplicateKey,
	tape.ErrDepth:        CodeJSONDepth,
	tape.ErrNumberRange:  CodeJSONNumberRange,
	tape.ErrTooLarge:     CodeInputTooLarge,
}

// scanCode returns the rule that reports why sc's last scan stopped, or
// codeInvalid if it did not.
func scanCode(sc *tape.Scanner) Code { return scanCodes[sc.Err()] }

func (w *walker) scanFailed() {
	n, inName := w.sc.ErrNode()
	if inName && n != tape.NoParent {
		n = w.vw.Parent(n)
	}
	msg, at := "", w.sc.ErrOffset()
	var arg int64
	start := len(w.res.arena)
	if n != tape.NoParent && n < uint32(w.vw.Len()) {
		w.appendPath(n)
	}
	path := w.res.arenaString(start)
	start = len(w.res.arena)
	code := scanCode(&w.sc)
	switch code {
	case CodeJSONSyntax:
		msg, at = w.describeSyntax()
	case CodeJSONUTF8:
		// The finding's place says where: an offset here would count
		// from the card's first byte, which is neither the input's
		// offset nor, for an embedded card, the string's.
		msg = "invalid UTF-8 or lone surrogate"
	case CodeJSONDuplicateKey:
		msg = "duplicate member name"
	case CodeJSONDepth:
		msg = "nesting deeper than %d"
		arg = int64(w.cfg.maxDepth)
	case CodeJSONNumberRange:
		msg = "number does not fit a float64"
		w.appendExcerpt(n)
	}
	w.res.add(Finding{Code: code, Severity: SeverityError, Path: path, Offset: at, msg: msg, got: w.res.arenaString(start), arg: arg})
}

// The walker API: what every profile's checks use to read the card, through
// its tape.View. The accessors that run for most nodes (kind, next, end,
// empty, raw, name, str, emptyString, negative) and the type checks (want,
// wantType), whose rare case is out of line, are inlined into the loops
// that call them; TestWalker_Inlined holds them to it. name takes no call
// because the scan decodes the rare names with escapes beforehand; str
// reaches its decoder through a parameter (see plainOr). codePoints is a
// call.
//
// Iterate an object's members with
//
//	for k := obj + 1; k < w.end(obj); k = w.next(k + 1) { v := k + 1 ... }
//
// and an array's elements with
//
//	for e := arr + 1; e < w.end(arr); e = w.next(e) { ... }
//
// A loop that also stores through other pointers (a struct being filled,
// say) copies the view into a local first, vw := w.vw, and reads through
// vw: the compiler would reload w.vw after every such store, and keeps the
// local in registers.

// kind returns node n's JSON type.
func (w *walker) kind(n uint32) tape.Kind { return w.vw.Kind(n) }

// next returns the node after n's subtree: its next sibling, or its
// parent's end.
func (w *walker) next(n uint32) uint32 { return w.vw.Next(n) }

// end returns the node past container n's last descendant.
func (w *walker) end(n uint32) uint32 { return w.vw.End(n) }

// empty reports whether container n has no member or element.
func (w *walker) empty(n uint32) bool { return w.vw.Empty(n) }

// raw returns a string's or a number's text as written, escapes included.
func (w *walker) raw(n uint32) []byte { return w.vw.Raw(n) }

// str returns string node n decoded. The slice is the card's own bytes, or
// scratch that the next str call overwrites.
func (w *walker) str(n uint32) []byte { return plainOr(w, n, (*walker).unescape) }

// plainOr returns string node n as written when it has no escapes, and
// decode(w, n) when it has. The decoder is a parameter because the inliner
// charges a call through a parameter 17 against its budget of 80, and a
// direct call 57 (cmd/compile/internal/inline): with a direct call to its
// rare case str would cost 85 and every string a check reads would be a
// call. Only the rare case calls, through the function value.
func plainOr(w *walker, n uint32, decode func(*walker, uint32) []byte) []byte {
	if !w.vw.Escaped(n) {
		return w.vw.Raw(n)
	}
	return decode(w, n)
}

// unescape is str's rare case: string node n has escapes.
//
//go:noinline
func (w *walker) unescape(n uint32) []byte {
	w.valBuf = w.vw.AppendStr(w.valBuf[:0], n)
	return w.valBuf
}

// name returns member name k decoded: the card's own bytes, or the text
// the scan decoded for it, which stays until the next card.
func (w *walker) name(k uint32) []byte { return w.vw.Name(k) }

// codePoints counts a string's Unicode code points.
func (w *walker) codePoints(n uint32) int {
	if w.vw.Flags(n)&(tape.FlagEscaped|tape.FlagNonASCII) == 0 {
		return len(w.vw.Raw(n))
	}
	// The scanner has checked the UTF-8, so counting the bytes that start a
	// code point is enough (utf8.RuneCount allocates on long text).
	count := 0
	for _, c := range w.str(n) {
		if c&0xC0 != 0x80 {
			count++
		}
	}
	return count
}

// emptyString reports whether string node n is "". Escapes never decode
// to nothing, so the raw text is empty just when the decoded text is.
func (w *walker) emptyString(n uint32) bool {
	return w.vw.EmptyString(n)
}

// negative reports whether number node n has a leading minus.
func (w *walker) negative(n uint32) bool { return w.vw.Flags(n)&tape.FlagNeg != 0 }

// member finds a member by name, returning its value node, or 0 if absent
// (node 0 is the root and never a member value).
func (w *walker) member(obj uint32, name string) uint32 {
	for k := obj + 1; k < w.end(obj); k = w.next(k + 1) {
		if string(w.name(k)) == name {
			return k + 1
		}
	}
	return 0
}

// same reports whether string nodes x and y decode to the same text.
func (w *walker) same(x, y uint32) bool { return w.vw.Same(x, y) }

// stringsOnly reports whether node n is an array of strings only: then
// every node of its subtree is a string.
func (w *walker) stringsOnly(n uint32) bool {
	vw := w.vw
	if vw.Kind(n) != tape.KindArray {
		return false
	}
	for e := n + 1; e < vw.End(n); e++ {
		if vw.Kind(e) != tape.KindString {
			return false
		}
	}
	return true
}

// equalsAny reports whether string node s, decoded, equals one of the
// string nodes of set. Sets are short (skill ids or names), so comparing
// with each is cheaper than any index.
func (w *walker) equalsAny(set []uint32, s uint32) bool {
	vw := w.vw
	for _, n := range set {
		// Without escapes, different lengths are different strings.
		if (vw.Flags(s)|vw.Flags(n))&tape.FlagEscaped == 0 && len(vw.Raw(s)) != len(vw.Raw(n)) {
			continue
		}
		if w.same(n, s) {
			return true
		}
	}
	return false
}

// kindBoolean is what want takes for "true or false".
const kindBoolean = tape.KindTrue

// want reports whether node n has kind k (kindBoolean: true or false),
// reporting field.type if not.
func (w *walker) want(n uint32, k tape.Kind) bool {
	if wantKind[w.vw.Kind(n)] == k {
		return true
	}
	return w.wantSlow(n, k)
}

// wantKind maps a node's kind to the kind want takes for it: false is
// a boolean too, and tells without a call. It has an entry for every
// value of a kind's byte so that indexing it needs no bounds check.
var wantKind = [256]tape.Kind{tape.KindObject: tape.KindObject, tape.KindArray: tape.KindArray, tape.KindString: tape.KindString, tape.KindNumber: tape.KindNumber, tape.KindTrue: kindBoolean, tape.KindFalse: kindBoolean, tape.KindNull: tape.KindNull}

//go:noinline
func (w *walker) wantSlow(n uint32, k tape.Kind) bool {
	w.addTypeMismatch(n, k)
	return false
}

// typeMessages holds "expected X, got Y" for every pair, so that a type
// finding formats without allocating.
var typeMessages = func() (t [8][8]string) {
	for want := tape.KindObject; want <= tape.KindNull; want++ {
		for got := tape.KindObject; got <= tape.KindNull; got++ {
			t[want][got] = "expected " + kindName(want) + ", got " + kindName(got)
		}
	}
	return t
}()

func (w *walker) addTypeMismatch(n uint32, want tape.Kind) {
	w.add(CodeFieldType, n, typeMessages[want][w.kind(n)])
}

// schemaType is a JSON Schema type set, one bit per type.
type schemaType uint8

const (
	tString schemaType = 1 << iota
	tNumber
	tInteger
	tObject
	tArray
	tBoolean
	tNull
)

// kindTypes maps a node's kind to its JSON Schema type; a number may be
// an integer too, which wantType decides apart. Like wantKind, it has an
// entry for every value of a kind's byte.
var kindTypes = [256]schemaType{tape.KindString: tString, tape.KindNumber: tNumber, tape.KindObject: tObject, tape.KindArray: tArray, tape.KindTrue: tBoolean, tape.KindFalse: tBoolean, tape.KindNull: tNull}

var schemaTypeMessages = map[schemaType]string{
	tString:          "type: expected string",
	tNumber:          "type: expected number",
	tInteger:         "type: expected integer",
	tObject:          "type: expected object",
	tArray:           "type: expected array",
	tString | tNull:  "type: expected string or null",
	tNumber | tNull:  "type: expected number or null",
	tObject | tArray: "type: expected object or array",
}

// wantType is want for JSON Schema's type keyword: it reports whether node
// n is of one of the types, reporting schema.type if not.
func (w *walker) wantType(n uint32, types schemaType) bool {
	return kindTypes[w.vw.Kind(n)]&types != 0 || w.wantTypeSlow(n, types)
}

//go:noinline
func (w *walker) wantTypeSlow(n uint32, types schemaType) bool {
	if types&tInteger != 0 && w.kind(n) == tape.KindNumber && decimal.IsInteger(w.raw(n)) {
		return true
	}
	w.addGot(CodeSchemaType, n, schemaTypeMessages[types])
	return false
}

// Findings.

// severity is the severity rule c's findings carry: its default, or the
// Validator's override.
func (w *walker) severity(c Code) Severity { return w.res.level(c, c.Severity()) }

// add reports a finding at node n with a static message. addSev applies the overrides, so add and its like pass the default and
// stay small enough to inline into the checks that call them.
func (w *walker) add(c Code, n uint32, msg string) {
	w.addSev(c, c.Severity(), n, msg, 0)
}

func (w *walker) addSev(c Code, sev Severity, n uint32, msg string, arg int64) {
	// A rule turned off costs no path in the arena, which a card with
	// many such findings would otherwise fill past the cap's bound.
	if sev = w.res.level(c, sev); sev == SeverityOff {
		return
	}
	if w.res.full() {
		w.res.countUnlisted(c, sev)
		return
	}
	start := len(w.res.arena)
	w.appendPath(n)
	w.res.add(Finding{Code: c, Severity: sev, Path: w.res.arenaString(start), Offset: w.offset(n), msg: msg, arg: arg, note: w.note})
}

// addArg reports a finding whose message has a %d verb for arg.
func (w *walker) addArg(c Code, n uint32, msg string, arg int64) {
	w.addSev(c, c.Severity(), n, msg, arg)
}

// addGot reports a finding at node n quoting the offending value.
func (w *walker) addGot(c Code, n uint32, msg string) {
	w.addGotSev(c, c.Severity(), n, msg)
}

func (w *walker) addGotSev(c Code, sev Severity, n uint32, msg string) {
	if sev = w.res.level(c, sev); sev == SeverityOff {
		return
	}
	if w.res.full() {
		w.res.countUnlisted(c, sev)
		return
	}
	start := len(w.res.arena)
	w.appendPath(n)
	path := w.res.arenaString(start)
	excerpt := len(w.res.arena)
	w.appendExcerpt(n)
	w.res.addValue(Finding{Code: c, Severity: sev, Path: path, Offset: w.offset(n), msg: msg, got: w.res.arenaString(excerpt), note: w.note}, start)
}

// addMissingMsg reports a required member name absent from object obj,
// with a message that names the member with %s.
func (w *walker) addMissingMsg(c Code, obj uint32, name, msg string) {
	sev := w.severity(c)
	if sev == SeverityOff {
		return
	}
	if w.res.full() {
		w.res.countUnlisted(c, sev)
		return
	}
	start := len(w.res.arena)
	w.appendPath(obj)
	w.res.arena = append(w.res.arena, '/')
	w.res.arena = appendPointerToken(w.res.arena, []byte(name))
	w.res.add(Finding{Code: c, Severity: sev, Path: w.res.arenaString(start), Offset: w.offset(obj), msg: msg, got: name, note: w.note})
}

// addMissing reports a required member name absent from object obj.
func (w *walker) addMissing(c Code, obj uint32, name string) {
	w.addMissingMsg(c, obj, name, "missing required member \"%s\"")
}

func (w *walker) offset(n uint32) int { return w.vw.Offset(n) }

const maxExcerpt = 64

// appendExcerpt copies the value's JSON text, shortened, into the arena.
func (w *walker) appendExcerpt(n uint32) {
	var text []byte
	switch w.vw.Kind(n) {
	case tape.KindString:
		start, end := w.vw.Bounds(n)
		text = w.b[start-1 : end+1]
	case tape.KindObject:
		text = []byte("an object")
	case tape.KindArray:
		text = []byte("an array")
	default:
		text = w.vw.Raw(n)
	}
	if len(text) > maxExcerpt {
		cut := maxExcerpt
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		w.res.arena = append(w.res.arena, text[:cut]...)
		w.res.arena = append(w.res.arena, "…"...)
		return
	}
	w.res.arena = append(w.res.arena, text...)
}

// appendPath renders node n's JSON Pointer into the arena by walking up the
// parent links; it only runs when there is something to report.
func (w *walker) appendPath(n uint32) {
	vw := w.vw
	w.pathBuf = w.pathBuf[:0]
	for x := n; x != tape.NoParent && vw.Parent(x) != tape.NoParent; x = vw.Parent(x) {
		w.pathBuf = append(w.pathBuf, x)
	}
	for i := len(w.pathBuf) - 1; i >= 0; i-- {
		x := w.pathBuf[i]
		p := vw.Parent(x)
		w.res.arena = append(w.res.arena, '/')
		if vw.Kind(p) == tape.KindObject {
			w.res.arena = appendPointerToken(w.res.arena, vw.Name(x-1))
			continue
		}
		w.res.arena = strconv.AppendInt(w.res.arena, int64(vw.ElementIndex(p, x, len(w.pathBuf)-1-i)), 10)
	}
}

// appendPointerToken escapes a member name for a JSON Pointer (RFC 6901).
func appendPointerToken(dst, name []byte) []byte {
	for _, c := range name {
		switch c {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// kindName names a node's JSON type for messages.
func kindName(k tape.Kind) string {
	switch k {
	case tape.KindObject:
		return "object"
	case tape.KindArray:
		return "array"
	case tape.KindString:
		return "string"
	case tape.KindNumber:
		return "number"
	case tape.KindTrue, tape.KindFalse:
		return "boolean"
	case tape.KindNull:
		return "null"
	}
	return "nothing"
}
