package lspserver

import (
	"bytes"
	"unicode/utf8"
)

// positionEncoding is what a position's column counts: UTF-16 code units,
// LSP's default, which every client supports, or the UTF-8 bytes or
// Unicode code points a client may prefer (LSP 3.17,
// general.positionEncodings).
type positionEncoding uint8

const (
	utf16Units positionEncoding = iota
	utf8Bytes
	utf32CodePoints
)

func (e positionEncoding) String() string {
	switch e {
	case utf8Bytes:
		return "utf-8"
	case utf32CodePoints:
		return "utf-32"
	}
	return "utf-16"
}

// pickEncoding picks the first of the encodings a client offers, most
// preferred first, that the server counts in; else UTF-16.
func pickEncoding(offered []string) positionEncoding {
	for _, name := range offered {
		for _, enc := range []positionEncoding{utf16Units, utf8Bytes, utf32CodePoints} {
			if name == enc.String() {
				return enc
			}
		}
	}
	return utf16Units
}

// width is how many columns of e a character of size bytes that is r
// takes.
func (e positionEncoding) width(r rune, size int) int {
	switch {
	case e == utf8Bytes:
		return size
	case e == utf16Units && r >= 0x10000:
		return 2
	}
	return 1
}

// lineIndex maps byte offsets of a document to LSP positions and back.
// Lines end at "\n", "\r\n" or a lone "\r", the line ends the LSP
// specification (3.17, "Text Documents") has client and server agree on:
// the CLI counts '\n' alone, which puts a card saved with "\r" line ends
// on one line. Columns are in the session's position encoding: UTF-16
// code units by default, where the CLI counts code points, so that a
// character outside the Basic Multilingual Plane (an emoji) is one column
// to the CLI and two to the editor. A byte that is not UTF-8 counts as
// the one U+FFFD an editor decodes it to.
type lineIndex struct {
	text  []byte
	enc   positionEncoding
	lines []int // byte offset of each line's first byte
}

func newLineIndex(text []byte, enc positionEncoding) *lineIndex {
	breaks := bytes.Count(text, []byte{'\n'}) + bytes.Count(text, []byte{'\r'}) - bytes.Count(text, []byte("\r\n"))
	li := &lineIndex{text: text, enc: enc, lines: make([]int, 1, 1+breaks)}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
		case '\n':
		default:
			continue
		}
		li.lines = append(li.lines, i+1)
	}
	return li
}

// lineEnd is the byte offset of the end of line n, before its terminator.
func (li *lineIndex) lineEnd(n int) int {
	if n+1 >= len(li.lines) {
		return len(li.text)
	}
	end := li.lines[n+1] - 1 // a '\n' or a lone '\r'
	if li.text[end] == '\n' && end > li.lines[n] && li.text[end-1] == '\r' {
		end--
	}
	return end
}

// position returns the LSP position of byte offset off, clamped to the
// text; an offset inside a line's terminator is the line's end.
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
	return Position{Line: lo, Character: li.columns(li.text[li.lines[lo]:min(off, li.lineEnd(lo))])}
}

// offset returns the byte offset of an LSP position: a line past the end
// is the end of the text, a column past the end of its line the line's end
// (before its terminator), and a column inside a character (a surrogate
// pair, a UTF-8 sequence) the character's first byte.
func (li *lineIndex) offset(p Position) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(li.lines) {
		return len(li.text)
	}
	start, end := li.lines[p.Line], li.lineEnd(p.Line)
	units, i := 0, start
	for i < end {
		r, size := utf8.DecodeRune(li.text[i:end])
		w := li.enc.width(r, size)
		if units+w > p.Character {
			break
		}
		units += w
		i += size
	}
	return i
}

// columns is the length of b in the index's encoding.
func (li *lineIndex) columns(b []byte) int {
	switch li.enc {
	case utf8Bytes:
		return len(b)
	case utf32CodePoints:
		return utf8.RuneCount(b)
	}
	return utf16Len(b)
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
