package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// referenceScanString is the byte-at-a-time reading of a JSON string's
// content that scanStringBits, led by the quote and care bits, must agree
// with.
func referenceScanString(b []byte, i int) (int, uint8, Err) {
	var flags uint8
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i, flags, 0
		case c < 0x20:
			return i, flags, ErrSyntax
		case c == '\\':
			flags |= FlagEscaped
			if i+1 >= len(b) || !bytes.ContainsRune([]byte(`"\/bfnrtu`), rune(b[i+1])) {
				return i, flags, ErrSyntax
			}
			if b[i+1] != 'u' {
				i += 2
				continue
			}
			r, ok := Hex4(b, i+2)
			switch {
			case !ok:
				return i, flags, ErrSyntax
			case r >= 0xDC00 && r <= 0xDFFF:
				return i, flags, ErrUTF8
			case r >= 0xD800 && r <= 0xDBFF:
				lo, ok := rune(0), false
				if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
					lo, ok = Hex4(b, i+8)
				}
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return i, flags, ErrUTF8
				}
				i += 12
			default:
				i += 6
			}
		case c >= 0x80:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, flags, ErrUTF8
			}
			flags |= FlagNonASCII
			i += size
		default:
			i++
		}
	}
	return i, flags, ErrSyntax
}

// Every special byte at every position of strings up to 160 bytes long, so
// that each block boundary of the bits is crossed with and without a byte
// that needs care before the closing quote, by every way of computing the
// bits: the same end, flags and code, and on failure the same offset.
func TestScanStringBits_AgreesWithByteLoop(t *testing.T) {
	specials := [][]byte{{'"'}, {'\\', 'n'}, {'\\', '"'}, {'\\', '\\'}, {'\\', 'x'}, {'\\'}, {0x01}, {0x1f}, {0x7f}, {0x80}, {0xff}, {0xe2, 0x82}, []byte("é"), []byte("€"), []byte("\\u00e9"), []byte("\\ud800"), []byte("\\ud83d\\ude00"), []byte("\\udc00"), {' '}}
	forEachPass(t, func(t *testing.T, _ classifyPass, sc *Scanner) {
		for n := 0; n <= 160; n++ {
			for p := 0; p <= n; p++ {
				for _, sp := range specials {
					for _, tail := range []string{`"`, `"` + "xxxxxxxxxxxxxxxx", ""} {
						s := append(append(append(bytes.Repeat([]byte("a"), p), sp...), bytes.Repeat([]byte("b"), n-p)...), tail...)
						sc.classify(s)
						gotEnd, gotFlags, gotCode := sc.scanStringBits(s, 0)
						wantEnd, wantFlags, wantCode := referenceScanString(s, 0)
						if gotCode != wantCode || gotEnd != wantEnd || gotCode == 0 && gotFlags != wantFlags {
							t.Fatalf("scanStringBits(%q) = %d, %b, %v; the byte loop says %d, %b, %v", s, gotEnd, gotFlags, gotCode, wantEnd, wantFlags, wantCode)
						}
					}
				}
			}
		}
	})
}

// The Scanner decides plain member names and values in its own loop from
// the quote and care bits, and calls scanStringBits for the rest: the same
// strings, as a name and as a value, at offsets that put them across the
// bits' block boundaries, with the bits of every pass, must end where the
// byte loop ends them, or fail as it fails.
func TestScan_StringsAgreeWithByteLoop(t *testing.T) {
	specials := [][]byte{{'"'}, {'\\', 'n'}, {'\\', 'x'}, {0x01}, {0x80}, []byte("é"), []byte("\\u00e9"), []byte("\\ud800")}
	forEachPass(t, func(t *testing.T, _ classifyPass, sc *Scanner) {
		for _, pad := range []int{0, 61} {
			for n := 0; n <= 80; n++ {
				for p := 0; p <= n; p++ {
					for _, sp := range specials {
						str := append(append(bytes.Repeat([]byte("a"), p), sp...), bytes.Repeat([]byte("b"), n-p)...)
						for _, form := range []struct{ before, after string }{{`{"`, `":1}`}, {`["`, `"]`}, {`{"k":"`, `"}`}, {`{"`, `":"x","y":2}`}} {
							doc := append(append(append(bytes.Repeat([]byte(" "), pad), form.before...), str...), form.after...)
							start := pad + len(form.before)
							checkStringScan(t, sc, doc, start, len(str))
						}
					}
				}
			}
		}
	})
}

func checkStringScan(t *testing.T, sc *Scanner, doc []byte, start, length int) {
	t.Helper()
	wantEnd, wantFlags, wantCode := referenceScanString(doc, start)
	ok := sc.scan(doc)
	// The string ends early on a quote it holds: then the rest of the form
	// may or may not parse, but it must not parse where the string itself
	// is bad.
	if wantCode != 0 {
		if ok {
			t.Fatalf("scan(%s) passed; the byte loop fails the string at %d", doc, wantEnd)
		}
		return
	}
	if wantEnd != start+length {
		return
	}
	if !ok {
		t.Fatalf("scan(%s) failed with %v at %d; the byte loop accepts the string", doc, sc.err, sc.errOff)
	}
	for _, nd := range sc.tape {
		if nd.kind == KindString && int(nd.start) == start {
			if int(nd.end) != wantEnd || nd.flags != wantFlags {
				t.Fatalf("scan(%s): string ends at %d with flags %b; the byte loop says %d, %b", doc, nd.end, nd.flags, wantEnd, wantFlags)
			}
			return
		}
	}
	t.Fatalf("scan(%s): no string node at %d", doc, start)
}

// BenchmarkScanString times the string reader the Scanner calls for text
// with escapes or non-ASCII letters, beside the byte loop, on an embedded
// card (a card as one JSON string, all escaped quotes) and on French text.
func BenchmarkScanString(b *testing.B) {
	card := generatedCards(b, 1, "a2a/0.3")[0]
	for _, tc := range []struct{ name, text string }{
		{"embedded-card", jsonString(string(card))},
		{"non-ASCII", jsonString(strings.Repeat("Prévisions météo détaillées — ", 20))},
	} {
		doc := []byte(tc.text)
		var sc Scanner
		sc.classify(doc)
		b.Run(tc.name+"/bits", func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, _, code := sc.scanStringBits(doc, 1); code != 0 {
					b.Fatal(code)
				}
			}
		})
		b.Run(tc.name+"/byte-loop", func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, _, code := referenceScanString(doc, 1); code != 0 {
					b.Fatal(code)
				}
			}
		})
	}
}

// AppendUnescaped must decode what encoding/json decodes: random text
// written with every kind of escape, at every length around the word
// steps, appended after what dst already holds.
func TestAppendUnescaped_AgreesWithEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	runes := []rune{'a', 'Z', '0', ' ', '"', '\\', '/', '\b', '\f', '\n', '\r', '\t', 0x01, 0x7f, 'é', '€', 0xffff, 0x1f600, 0x10ffff}
	short := map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}
	for n := range 2000 {
		var raw strings.Builder
		for range n % 40 {
			r := runes[rng.IntN(len(runes))]
			switch esc, ok := short[r]; {
			case ok && (r < 0x20 || r == '"' || r == '\\' || rng.IntN(2) == 0):
				raw.WriteString(esc)
			case r < 0x20 || rng.IntN(3) == 0:
				for _, u := range utf16.Encode([]rune{r}) {
					fmt.Fprintf(&raw, `\u%04X`, u)
				}
			default:
				raw.WriteRune(r)
			}
		}
		var want string
		if err := json.Unmarshal([]byte(`"`+raw.String()+`"`), &want); err != nil {
			t.Fatalf("%q: %v", raw.String(), err)
		}
		got := AppendUnescaped([]byte("prefix"), []byte(raw.String()))
		if string(got) != "prefix"+want {
			t.Fatalf("AppendUnescaped(%q) = %q; encoding/json says %q", raw.String(), got[len("prefix"):], want)
		}
	}
}

// FuzzScanStringBits holds the string reader to the byte loop on any text,
// read from its first byte as a string's content, with the bits of every
// pass this machine can run.
func FuzzScanStringBits(f *testing.F) {
	for _, s := range []string{`abc"`, `a\"b"`, `\u00e9\ud83d\ude00"`, "é€\"", `\ud800"`, "a\x01\"", `\`, "\xff\"", strings.Repeat(`x\"`, 40) + `"`} {
		f.Add([]byte(s))
	}
	passes := runnablePasses(f)
	var sc Scanner
	f.Fuzz(func(t *testing.T, s []byte) {
		for _, p := range passes {
			p.use(t, &sc)
			sc.classify(s)
			gotEnd, gotFlags, gotCode := sc.scanStringBits(s, 0)
			wantEnd, wantFlags, wantCode := referenceScanString(s, 0)
			if gotCode != wantCode || gotEnd != wantEnd || gotCode == 0 && gotFlags != wantFlags {
				t.Fatalf("%s pass: scanStringBits(%q) = %d, %b, %v; the byte loop says %d, %b, %v", p.name, s, gotEnd, gotFlags, gotCode, wantEnd, wantFlags, wantCode)
			}
		}
	})
}

// BenchmarkAppendUnescaped times the decoding of an embedded card (a card
// sent as one JSON string, an escaped quote every few bytes, as the
// validator decodes it before scanning it again) and of French text with
// few escapes.
func BenchmarkAppendUnescaped(b *testing.B) {
	card := generatedCards(b, 1, "a2a/0.3")[0]
	for _, tc := range []struct{ name, text string }{
		{"embedded-card", jsonString(string(card))},
		{"non-ASCII", jsonString(strings.Repeat("Prévisions \"météo\" détaillées — ", 20))},
	} {
		raw := []byte(tc.text[1 : len(tc.text)-1])
		var dst []byte
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				dst = AppendUnescaped(dst[:0], raw)
			}
		})
	}
}

// FuzzAppendUnescaped holds AppendUnescaped to encoding/json on every
// string the Scanner accepts, whatever dst held before.
func FuzzAppendUnescaped(f *testing.F) {
	for _, s := range []string{`abc`, `a\"b`, `\u00e9\ud83d\ude00`, `é€`, `\\\\\\\\\\\\\\\\\\`, strings.Repeat(`x\"`, 40), `\n\r\t\b\f\/1234567\u0041`} {
		f.Add([]byte(s), 3)
	}
	var sc Scanner
	f.Fuzz(func(t *testing.T, s []byte, held int) {
		doc := append(append([]byte{'"'}, s...), '"')
		if !sc.Scan(doc) {
			return
		}
		var want string
		if err := json.Unmarshal(doc, &want); err != nil {
			t.Fatalf("the Scanner accepts %q, encoding/json does not: %v", doc, err)
		}
		prefix := bytes.Repeat([]byte{'p'}, held&15)
		got := AppendUnescaped(prefix, s)
		if string(got) != string(prefix)+want {
			t.Fatalf("AppendUnescaped(%q) = %q; encoding/json says %q", s, got[len(prefix):], want)
		}
	})
}
