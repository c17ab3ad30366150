package lspserver

import (
	"bytes"
	"unicode/utf8"
)

// lineIndex maps byte offsets of a document to LSP positions and back.
// Lines end at '\n' (a "\r\n" ends with it too), as the CLI counts them;
// columns are UTF-16 code units, as LSP counts them by default, where the
// CLI counts code points: a character outside the Basic Multilingual Plane
// (an emoji) is one column to the CLI and two to the editor. A byte that is
// not UTF-8 counts as the one U+FFFD an editor decodes it to.
type lineIndex struct {
	text  []byte
	lines []int // byte offset of each line's first byte
}

func newLineIndex(text []byte) *lineIndex {
	li := &lineIndex{text: text, lines: make([]int, 1, 1+bytes.Count(text, []byte{'\n'}))}
	for i, c := range text {
		if c == '\n' {
			li.lines = append(li.lines, i+1)
		}
	}
	return li
}

// position returns the LSP position of byte offset off, clamped to the
// text.
func (li *lineIndex) position(off int) Position {
	off = min(max(off, 0), len(li.text))
	// The last line starting at or before off.
	lo, hi := 0, len(li.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if li.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return Position{Line: lo, Character: utf16Len(li.text[li.lines[lo]:off])}
}

// offset returns the byte offset of an LSP position: a line past the end
// is the end of the text, a column past the end of its line the line's end,
// and a column inside a surrogate pair the character's first byte.
func (li *lineIndex) offset(p Position) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(li.lines) {
		return len(li.text)
	}
	start := li.lines[p.Line]
	end := len(li.text)
	if p.Line+1 < len(li.lines) {
		end = li.lines[p.Line+1] - 1 // the '\n'
	}
	units, i := 0, start
	for i < end {
		r, size := utf8.DecodeRune(li.text[i:end])
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > p.Character {
			break
		}
		units += w
		i += size
	}
	return i
}

// utf16Len is the length of b in UTF-16 code units.
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		c := b[0]
		if c < utf8.RuneSelf {
			n++
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		b = b[size:]
	}
	return n
}
