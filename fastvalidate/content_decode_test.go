package fastvalidate

import (
	"sort"
	"testing"
	"unicode/utf8"
)

// TestDecodeRuneAsUTF8 holds decodeRune to utf8.DecodeRune on every
// sequence of one to three bytes whose first byte starts a multi-byte
// form, each with and without a byte after it, and on every cut of it.
func TestDecodeRuneAsUTF8(t *testing.T) {
	check := func(b []byte, i int) {
		t.Helper()
		r, size := decodeRune(b, i)
		wr, wsize := utf8.DecodeRune(b[i:])
		if r != wr || size != wsize {
			t.Fatalf("decodeRune(% x, %d) = %U, %d; utf8.DecodeRune says %U, %d", b, i, r, size, wr, wsize)
		}
	}
	for c := 0; c < 256; c++ {
		check([]byte{byte(c)}, 0)
		check([]byte{'a', byte(c)}, 1)
	}
	for c0 := 0x80; c0 < 0x100; c0++ {
		for c1 := 0; c1 < 0x100; c1++ {
			check([]byte{byte(c0), byte(c1)}, 0)
			check([]byte{byte(c0), byte(c1), 'x'}, 0)
			if c0 < 0xE0 || c0 > 0xF4 {
				continue
			}
			for c2 := 0; c2 < 0x100; c2 += 1 + c2%7 {
				check([]byte{'x', byte(c0), byte(c1), byte(c2)}, 1)
				check([]byte{byte(c0), byte(c1), byte(c2), 0x80, 0x80}, 0)
			}
		}
	}
}

func FuzzDecodeRune(f *testing.F) {
	for _, s := range []string{"a", "é", "Ω", "デ", "分析", "\xed\xa0\x80", "\xe0\x80\xaf", "\xf0\x9f\x98\x80", "\xc0\xaf", "\xe3\x81"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i < len(b); i++ {
			r, size := decodeRune(b, i)
			wr, wsize := utf8.DecodeRune(b[i:])
			if r != wr || size != wsize {
				t.Fatalf("decodeRune(% x, %d) = %U, %d; utf8.DecodeRune says %U, %d", b, i, r, size, wr, wsize)
			}
		}
	})
}

// TestFoldRuneAsSearch holds foldRune, which looks the characters below
// U+0800 up in foldShort, to the binary search of foldTable it does for
// the rest, for every character.
func TestFoldRuneAsSearch(t *testing.T) {
	found := 0
	for r := rune(0); r <= utf8.MaxRune; r++ {
		want := ""
		i := sort.Search(len(foldTable), func(i int) bool { return foldTable[i].r >= r })
		if i < len(foldTable) && foldTable[i].r == r {
			want = foldTable[i].s
		}
		if got := foldRune(r); got != want {
			t.Fatalf("foldRune(%U) = %q, want %q", r, got, want)
		}
		if want != "" && r < 0x800 {
			found++
		}
	}
	if found == 0 {
		t.Fatal("foldTable has no character below U+0800: foldShort is never read")
	}
}
