package fastvalidate

// Byte-level matchers for the identifiers cards carry. Each is one pass over
// the bytes with a lookup table; none allocates.

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
	var acc byte
	for _, c := range b {
		acc |= crockford[c]
	}
	return acc != 0xFF && acc&0xE0 == 0
}

// ULIDTime decodes the 48-bit millisecond timestamp of an agent_id that
// IsAgentID accepts. ok is false when the first character is above '7': the
// 26 characters then encode more than 128 bits and no ULID has them.
func ULIDTime(b []byte) (ms uint64, ok bool) {
	if len(b) != 26 || b[0] > '7' {
		return 0, false
	}
	for _, c := range b[:10] {
		v := crockford[c]
		if v == 0xFF {
			return 0, false
		}
		ms = ms<<5 | uint64(v)
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

// capIDTable marks [a-z0-9._-]; capIDFirst marks [a-z0-9].
var capIDTable, capIDFirst = func() (rest, first [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		rest[c], first[c] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		rest[c], first[c] = true, true
	}
	rest['.'], rest['_'], rest['-'] = true, true, true
	return
}()

// IsCapabilityID reports whether b matches ^[a-z0-9][a-z0-9._-]*$.
func IsCapabilityID(b []byte) bool {
	if len(b) == 0 || !capIDFirst[b[0]] {
		return false
	}
	for _, c := range b[1:] {
		if !capIDTable[c] {
			return false
		}
	}
	return true
}
