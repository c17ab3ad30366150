package fastvalidate

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// referenceScanString is the byte-at-a-time reading of a JSON string's
// content that scanString's word-at-a-time fast paths must agree with.
func referenceScanString(b []byte, i int) (int, uint8, Code) {
	var flags uint8
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i, flags, 0
		case c < 0x20:
			return i, flags, CodeJSONSyntax
		case c == '\\':
			flags |= flagEscaped
			if i+1 >= len(b) || !bytes.ContainsRune([]byte(`"\/bfnrtu`), rune(b[i+1])) {
				return i, flags, CodeJSONSyntax
			}
			if b[i+1] != 'u' {
				i += 2
				continue
			}
			r, ok := hex4(b, i+2)
			switch {
			case !ok:
				return i, flags, CodeJSONSyntax
			case r >= 0xDC00 && r <= 0xDFFF:
				return i, flags, CodeJSONUTF8
			case r >= 0xD800 && r <= 0xDBFF:
				lo, ok := rune(0), false
				if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
					lo, ok = hex4(b, i+8)
				}
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return i, flags, CodeJSONUTF8
				}
				i += 12
			default:
				i += 6
			}
		case c >= 0x80:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, flags, CodeJSONUTF8
			}
			flags |= flagNonASCII
			i += size
		default:
			i++
		}
	}
	return i, flags, CodeJSONSyntax
}

// Every special byte at every position of strings up to 72 bytes long, so
// that each word boundary of the fast paths is crossed with and without a
// byte that needs care before the closing quote.
func TestScanString_AgreesWithByteLoop(t *testing.T) {
	specials := [][]byte{{'"'}, {'\\', 'n'}, {'\\', 'x'}, {'\\'}, {0x01}, {0x1f}, {0x7f}, {0x80}, {0xff}, []byte("é"), []byte("\\u00e9"), []byte("\\ud800"), {' '}}
	for n := 0; n <= 72; n++ {
		for p := 0; p <= n; p++ {
			for _, sp := range specials {
				for _, tail := range []string{`"`, `"` + "xxxxxxxxxxxxxxxx", ""} {
					s := append(append(append(bytes.Repeat([]byte("a"), p), sp...), bytes.Repeat([]byte("b"), n-p)...), tail...)
					gotEnd, gotFlags, gotCode := scanString(s, 0)
					wantEnd, wantFlags, wantCode := referenceScanString(s, 0)
					if gotCode != wantCode || gotCode == 0 && (gotEnd != wantEnd || gotFlags != wantFlags) {
						t.Fatalf("scanString(%q) = %d, %b, %v; the byte loop says %d, %b, %v", s, gotEnd, gotFlags, gotCode, wantEnd, wantFlags, wantCode)
					}
				}
			}
		}
	}
}
