package fastvalidate

// Byte-level matchers for the identifiers cards carry. Each is one pass over
// the bytes with a lookup table; none allocates.

import "encoding/binary"

// crockford maps a byte of the draft's agent_id alphabet, [0-9A-HJKMNP-TV-Z],
// to its 5-bit value; every other byte, lowercase included, maps to 0xFF.
var crockford = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// IsAgentID reports whether b is exactly 26 characters of the Crockford
// Base32 alphabet in uppercase, the draft's agent_id rule. It does not
// require the value to fit 128 bits; see ULIDTime.
func IsAgentID(b []byte) bool {
	if len(b) != 26 {
		return false
	}
	// Two bytes a step: one loop branch per pair rather than per byte.
	var acc byte
	for i := 0; i < 26; i += 2 {
		acc |= crockford[b[i]] | crockford[b[i+1]]
	}
	return acc&0xE0 == 0
}

// ULIDTime decodes the 48-bit millisecond timestamp of an agent_id that
// IsAgentID accepts. ok is false when the first character is above '7': the
// 26 characters then encode more than 128 bits and no ULID has them.
func ULIDTime(b []byte) (ms uint64, ok bool) {
	if len(b) != 26 || b[0] > '7' {
		return 0, false
	}
	// A byte outside the alphabet, 0xFF in the table, is told once at the
	// end rather than by a branch per character.
	var acc byte
	for _, c := range b[:10] {
		v := crockford[c]
		acc |= v
		ms = ms<<5 | uint64(v&31)
	}
	if acc&0xE0 != 0 {
		return 0, false
	}
	return ms, true
}

// IsSemVer reports whether b is a Semantic Versioning 2.0.0 version:
// MAJOR.MINOR.PATCH without leading zeros, an optional pre-release of
// dot-separated identifiers (numeric ones without leading zeros), and
// optional build metadata.
func IsSemVer(b []byte) bool {
	i := 0
	for part := 0; part < 3; part++ {
		j := numericID(b, i)
		if j < 0 {
			return false
		}
		i = j
		if part < 2 {
			if i >= len(b) || b[i] != '.' {
				return false
			}
			i++
		}
	}
	if i < len(b) && b[i] == '-' {
		i++
		for {
			start := i
			digitsOnly := true
			for i < len(b) && semverID[b[i]] != 0 {
				if semverID[b[i]] == idLetter {
					digitsOnly = false
				}
				i++
			}
			if i == start || digitsOnly && b[start] == '0' && i-start > 1 {
				return false
			}
			if i >= len(b) || b[i] != '.' {
				break
			}
			i++
		}
	}
	if i < len(b) && b[i] == '+' {
		i++
		for {
			start := i
			for i < len(b) && semverID[b[i]] != 0 {
				i++
			}
			if i == start {
				return false
			}
			if i >= len(b) || b[i] != '.' {
				break
			}
			i++
		}
	}
	return i == len(b)
}

const (
	idDigit  = 1
	idLetter = 2 // letters and '-': an identifier with one is alphanumeric
)

var semverID = func() (t [256]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = idDigit
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = idLetter
		t[c-'a'+'A'] = idLetter
	}
	t['-'] = idLetter
	return t
}()

// numericID matches 0|[1-9][0-9]* at i and returns the offset after it, or -1.
func numericID(b []byte, i int) int {
	if i >= len(b) || b[i]-'0' > 9 {
		return -1
	}
	if b[i] == '0' {
		return i + 1
	}
	for i < len(b) && b[i]-'0' <= 9 {
		i++
	}
	return i
}

// capIDOutside is 1 for each byte outside [a-z0-9._-]; capIDFirst marks
// [a-z0-9].
var capIDOutside, capIDFirst = func() (outside [256]byte, first [256]bool) {
	for c := range outside {
		outside[c] = 1
	}
	for c := 'a'; c <= 'z'; c++ {
		outside[c], first[c] = 0, true
	}
	for c := '0'; c <= '9'; c++ {
		outside[c], first[c] = 0, true
	}
	outside['.'], outside['_'], outside['-'] = 0, 0, 0
	return
}()

// IsCapabilityID reports whether b matches ^[a-z0-9][a-z0-9._-]*$. It
// gathers the table's answers for a word of bytes at a time and tests
// them once: a valid id, what nearly every card holds, is read to its end
// anyway, and a branch per byte cost more than the lookups. The last word
// is the id's last eight (or four) bytes, overlapping the one before it:
// a byte read twice is judged alike twice, and no tail needs a loop.
func IsCapabilityID(b []byte) bool {
	if len(b) == 0 || !capIDFirst[b[0]] {
		return false
	}
	var outside byte
	switch {
	case len(b) >= 8:
		for i := 0; i < len(b)-8; i += 8 {
			outside |= capIDWordOutside(binary.LittleEndian.Uint64(b[i:]))
		}
		outside |= capIDWordOutside(binary.LittleEndian.Uint64(b[len(b)-8:]))
	case len(b) >= 4:
		// Four bytes at each end, widened: their upper halves are the
		// zero bytes, outside the class, so they are masked off here.
		outside = capIDWordOutside(uint64(binary.LittleEndian.Uint32(b))|capIDPad) |
			capIDWordOutside(uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))|capIDPad)
	default:
		for _, c := range b {
			outside |= capIDOutside[c]
		}
	}
	return outside == 0
}

// capIDPad fills the upper four bytes of a widened word with 'a', a byte
// of the class.
const capIDPad = 0x61616161 << 32

// capIDWordOutside ORs capIDOutside of each of w's eight bytes.
func capIDWordOutside(w uint64) byte {
	return capIDOutside[uint8(w)] | capIDOutside[uint8(w>>8)] | capIDOutside[uint8(w>>16)] | capIDOutside[uint8(w>>24)] |
		capIDOutside[uint8(w>>32)] | capIDOutside[uint8(w>>40)] | capIDOutside[uint8(w>>48)] | capIDOutside[uint8(w>>56)]
}

// iso639List is the ISO 639-1 two-letter codes, in order, a space
// between each.
const iso639List = "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy " +
	"da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz " +
	"ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv " +
	"mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu " +
	"rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty " +
	"ug uk ur uz ve vi vo wa wo xh yi yo za zh zu"

// iso639 holds the ISO 639-1 two-letter codes as a bit per second letter,
// indexed by the first.
var iso639 = func() (t [26]uint32) {
	for i := 0; i+1 < len(iso639List); i += 3 {
		t[iso639List[i]-'a'] |= 1 << (iso639List[i+1] - 'a')
	}
	return t
}()

// isISO639_1 reports whether b is a two-letter ISO 639-1 language code, in
// the lowercase the standard writes.
func isISO639_1(b []byte) bool {
	if len(b) != 2 || b[0]-'a' > 25 || b[1]-'a' > 25 {
		return false
	}
	return iso639[b[0]-'a']&(1<<(b[1]-'a')) != 0
}

// isISO8601 reports whether b is an ISO 8601 calendar date (YYYY-MM-DD) or
// date-time in the extended format: YYYY-MM-DDThh:mm[:ss[.fraction]]
// followed by nothing (local time), Z, or an offset ±hh[:mm]. The basic
// format (no separators) and week or ordinal dates are not accepted.
func isISO8601(b []byte) bool {
	return utcSeconds(b) || anyISO8601(b)
}

// utcSeconds reports the form most cards write, YYYY-MM-DDThh:mm:ssZ,
// valid and before 24:00, deciding it at fixed positions.
func utcSeconds(b []byte) bool {
	if len(b) != 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[19] != 'Z' {
		return false
	}
	var top byte // the largest b[i] - '0': above 9 for any byte not a digit
	d := func(i int) int {
		c := b[i] - '0'
		top = max(top, c)
		return int(c)
	}
	year := d(0)*1000 + d(1)*100 + d(2)*10 + d(3)
	month, day := d(5)*10+d(6), d(8)*10+d(9)
	hour, minute, second := d(11)*10+d(12), d(14)*10+d(15), d(17)*10+d(18)
	return top <= 9 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) &&
		hour <= 23 && minute <= 59 && second <= 60
}

// anyISO8601 is isISO8601 for any text: a date, then an optional time of
// day, then, after a time, an optional zone.
func anyISO8601(b []byte) bool {
	rest, ok := isoDate(b)
	if !ok {
		return false
	}
	if len(rest) == 0 {
		return true
	}
	rest, ok = isoTime(rest)
	return ok && isoZone(rest)
}

// isoDate reads the YYYY-MM-DD that starts b, a day the month has, and
// returns what follows it.
func isoDate(b []byte) (rest []byte, ok bool) {
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return nil, false
	}
	year, ok1 := digits(b[0:4])
	month, ok2 := digits(b[5:7])
	day, ok3 := digits(b[8:10])
	if !ok1 || !ok2 || !ok3 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return nil, false
	}
	return b[10:], true
}

// isoTime reads the Thh:mm[:ss[.fraction]] that starts b and returns what
// follows it. 24:00 and 24:00:00 end a day, and a second of 60 is a leap
// second.
func isoTime(b []byte) (rest []byte, ok bool) {
	if len(b) < 6 || b[0] != 'T' || b[3] != ':' {
		return nil, false
	}
	hour, ok1 := digits(b[1:3])
	minute, ok2 := digits(b[4:6])
	if !ok1 || !ok2 || hour > 24 || minute > 59 {
		return nil, false
	}
	b = b[6:]
	second := 0
	if len(b) >= 3 && b[0] == ':' {
		s, ok := digits(b[1:3])
		if !ok || s > 60 {
			return nil, false
		}
		second = s
		if b, ok = isoFraction(b[3:]); !ok {
			return nil, false
		}
	}
	if hour == 24 && (minute != 0 || second != 0) {
		return nil, false
	}
	return b, true
}

// isoFraction reads an optional decimal fraction of a second, '.' or ','
// and at least one digit, and returns what follows it.
func isoFraction(b []byte) (rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '.' && b[0] != ',' {
		return b, true
	}
	i := 1
	for i < len(b) && b[i]-'0' <= 9 {
		i++
	}
	return b[i:], i > 1
}

// isoZone reports whether b, all that follows a time, is nothing (local
// time), Z, or an offset ±hh[[:]mm].
func isoZone(b []byte) bool {
	switch {
	case len(b) == 0:
		return true
	case len(b) == 1:
		return b[0] == 'Z'
	case b[0] != '+' && b[0] != '-':
		return false
	}
	oh, ok := digits(b[1:min(3, len(b))])
	if !ok || len(b) < 3 || oh > 23 {
		return false
	}
	b = b[3:]
	if len(b) == 0 {
		return true
	}
	if b[0] == ':' {
		b = b[1:]
	}
	om, ok := digits(b)
	return ok && len(b) == 2 && om <= 59
}

// digits parses b, which must be all ASCII digits.
func digits(b []byte) (int, bool) {
	v := 0
	for _, c := range b {
		if c-'0' > 9 {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, len(b) > 0
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
