package fastvalidate

// Media types (RFC 6838), as A2A's input and output modes name them.

// mediaName marks the characters of an RFC 6838 restricted-name.
var mediaName = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "!#$&-^_.+" {
		t[c] = true
	}
	return t
}()

// isMediaType reports whether b is type/subtype (RFC 6838 names, or the
// wildcard "*"), optionally followed by parameters after a semicolon.
func isMediaType(b []byte) bool {
	return commonMediaType(b) || anyMediaType(b)
}

// commonMediaType reports the few media types most cards name, in one
// switch. TestCommonMediaTypes holds the same list.
func commonMediaType(b []byte) bool {
	switch string(b) {
	case "text/plain", "text/html", "text/csv", "text/markdown", "text/event-stream",
		"application/json", "application/pdf", "application/xml", "application/octet-stream",
		"image/png", "image/jpeg", "image/gif", "image/webp", "audio/wav", "audio/mpeg", "video/mp4":
		return true
	}
	return false
}

// anyMediaType is isMediaType for any text.
func anyMediaType(b []byte) bool {
	i := mediaNameEnd(b, 0)
	if i < 0 || i >= len(b) || b[i] != '/' {
		return false
	}
	j := mediaNameEnd(b, i+1)
	if j < 0 {
		return false
	}
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
		j++
	}
	return j == len(b) || b[j] == ';'
}

// mediaNameEnd returns the end of the restricted-name (or "*") at i, or -1.
func mediaNameEnd(b []byte, i int) int {
	if i < len(b) && b[i] == '*' {
		return i + 1
	}
	start := i
	if i >= len(b) || !isAlnum(b[i]) {
		return -1
	}
	for i < len(b) && mediaName[b[i]] {
		i++
	}
	if i-start > 127 {
		return -1
	}
	return i
}

func isAlnum(c byte) bool {
	return c-'0' <= 9 || (c|0x20)-'a' <= 'z'-'a'
}
