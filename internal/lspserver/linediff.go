package lspserver

import "bytes"

// maxDiffCells bounds the table lineEdits fills to find the lines two
// texts share (4 bytes a cell): past it, the changed middle of the text is
// replaced in one edit, which is as correct and merely shows more.
const maxDiffCells = 1 << 20

// lineEdits returns the edits that turn old, which li indexes, into new:
// one per run of changed lines, each replacing whole lines, so that no
// edit starts or ends inside a character and a client shows the author
// only the lines that changed. Every range is in old, as LSP requires of
// the edits of one document.
func lineEdits(li *lineIndex, old, new []byte) []TextEdit {
	a, b := splitLines(old), splitLines(new)
	aOff, bOff := lineOffsets(a), lineOffsets(b)
	prefix := 0
	for prefix < len(a) && prefix < len(b) && bytes.Equal(a[prefix], b[prefix]) {
		prefix++
	}
	suffix := 0
	for suffix < len(a)-prefix && suffix < len(b)-prefix && bytes.Equal(a[len(a)-1-suffix], b[len(b)-1-suffix]) {
		suffix++
	}
	edit := func(i0, i1, j0, j1 int) TextEdit {
		return TextEdit{
			Range:   Range{Start: li.position(aOff[i0]), End: li.position(aOff[i1])},
			NewText: string(new[bOff[j0]:bOff[j1]]),
		}
	}
	ma, mb := a[prefix:len(a)-suffix], b[prefix:len(b)-suffix]
	if len(ma) == 0 && len(mb) == 0 {
		return []TextEdit{}
	}
	if (len(ma)+1)*(len(mb)+1) > maxDiffCells {
		return []TextEdit{edit(prefix, len(a)-suffix, prefix, len(b)-suffix)}
	}
	var edits []TextEdit
	for _, h := range diffHunks(ma, mb) {
		edits = append(edits, edit(prefix+h.i0, prefix+h.i1, prefix+h.j0, prefix+h.j1))
	}
	return edits
}

// hunk says lines a[i0:i1] become b[j0:j1].
type hunk struct{ i0, i1, j0, j1 int }

// diffHunks finds a longest common subsequence of the lines of a and b
// and returns the runs of lines outside it.
func diffHunks(a, b [][]byte) []hunk {
	// Lines are compared as numbers: each distinct line gets one.
	ids := map[string]int32{}
	id := func(lines [][]byte) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			n, ok := ids[string(l)]
			if !ok {
				n = int32(len(ids))
				ids[string(l)] = n
			}
			out[i] = n
		}
		return out
	}
	x, y := id(a), id(b)
	// lcs[i*w+j] is the length of a longest common subsequence of
	// x[i:] and y[j:].
	w := len(y) + 1
	lcs := make([]int32, (len(x)+1)*w)
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	var hunks []hunk
	open := false
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		if i < len(x) && j < len(y) && x[i] == y[j] && lcs[i*w+j] == lcs[(i+1)*w+j+1]+1 {
			open = false
			i, j = i+1, j+1
			continue
		}
		if !open {
			hunks = append(hunks, hunk{i, i, j, j})
			open = true
		}
		h := &hunks[len(hunks)-1]
		if j < len(y) && (i == len(x) || lcs[i*w+j+1] >= lcs[(i+1)*w+j]) {
			j++
			h.j1 = j
		} else {
			i++
			h.i1 = i
		}
	}
	return hunks
}

// splitLines splits text after each '\n'; the last line may lack one.
func splitLines(text []byte) [][]byte {
	lines := bytes.SplitAfter(text, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineOffsets returns the byte offset of each line's start, and the
// text's length last.
func lineOffsets(lines [][]byte) []int {
	offs := make([]int, len(lines)+1)
	for i, l := range lines {
		offs[i+1] = offs[i] + len(l)
	}
	return offs
}
