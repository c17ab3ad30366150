package dump

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// A few readers of JSON values that a strict scan accepted: member values
// as fastvalidate.ContentHasher passes them, canonical but for objects and
// arrays, which are as written, white space and escapes included. They
// trust their input to be JSON, and on anything else stop early rather
// than fail: a digest is then poorer, never wrong about the card's hash.

// skipWS returns the index of the first byte from i on that is not JSON
// white space.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skip returns the index just past the value that starts at b[i].
func skip(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
		j++
	}
	return j
}

// skipString returns the index just past the string that starts at b[i].
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		if b[j-1] != '\\' {
			return j + 1
		}
		// A quote preceded by an odd number of backslashes is escaped.
		n := 0
		for n < j-i-1 && b[j-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// eachMember calls f with the raw name (quoted) and value of each member
// of the object obj.
func eachMember(obj []byte, f func(name, value []byte)) {
	untilMember(obj, func(name, value []byte) bool {
		f(name, value)
		return true
	})
}

// untilMember calls f with each member of obj until f returns false.
func untilMember(obj []byte, f func(name, value []byte) bool) {
	if len(obj) < 2 || obj[0] != '{' {
		return
	}
	for i := skipWS(obj, 1); i < len(obj) && obj[i] == '"'; {
		end := skipString(obj, i)
		colon := skipWS(obj, end)
		if colon >= len(obj) || obj[colon] != ':' {
			return
		}
		vStart := skipWS(obj, colon+1)
		vEnd := skip(obj, vStart)
		if !f(obj[i:end], obj[vStart:vEnd]) {
			return
		}
		comma := skipWS(obj, vEnd)
		if comma >= len(obj) || obj[comma] != ',' {
			return
		}
		i = skipWS(obj, comma+1)
	}
}

// eachElement calls f with each element of the array arr.
func eachElement(arr []byte, f func(e []byte)) {
	if len(arr) < 2 || arr[0] != '[' {
		return
	}
	for i := skipWS(arr, 1); i < len(arr) && arr[i] != ']'; {
		end := skip(arr, i)
		f(arr[i:end])
		comma := skipWS(arr, end)
		if comma >= len(arr) || arr[comma] != ',' {
			return
		}
		i = skipWS(arr, comma+1)
	}
}

// lookup follows path (member names, or array indexes in decimal) from v
// and returns the value there, or nil.
func lookup(v []byte, path ...string) []byte {
	for _, p := range path {
		var found []byte
		switch {
		case len(v) > 0 && v[0] == '{':
			untilMember(v, func(name, value []byte) bool {
				if isName(name, p) {
					found = value
					return false
				}
				return true
			})
		case len(v) > 0 && v[0] == '[':
			n, err := strconv.Atoi(p)
			if err != nil {
				return nil
			}
			i := 0
			eachElement(v, func(e []byte) {
				if i == n {
					found = e
				}
				i++
			})
		}
		if found == nil {
			return nil
		}
		v = found
	}
	return v
}

// isName reports whether the quoted member name decodes to p.
func isName(quoted []byte, p string) bool {
	if len(quoted) == len(p)+2 && string(quoted[1:len(quoted)-1]) == p {
		return true
	}
	// Escapes (rare) make a name longer than what it decodes to.
	return len(quoted) > len(p)+2 && bytes.IndexByte(quoted, '\\') >= 0 && unquote(quoted) == p
}

// unquote decodes a JSON string.
func unquote(s []byte) string {
	if len(s) < 2 {
		return ""
	}
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s[1 : len(s)-1])
	}
	var out string
	if json.Unmarshal(s, &out) != nil {
		return ""
	}
	return out
}
