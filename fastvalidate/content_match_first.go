package fastvalidate

// The per-text pass's first calls, a card's in one. The first call of the
// pass on a text (gateTextVec, gateTextAVX2) loads its tables, and the
// Go around it keeps its loop's values across a call that clobbers every
// register: some 100 instructions a text beside the text's own blocks,
// twelve texts a card (docs/performance.md, "Content rules"). The walk
// puts off matching each object's patterns (walker.pending) until it
// meets a member that may report a finding (a link, a text not printable
// ASCII as written) or the card's end, so that the findings keep the
// order of a walk that matches each object as it leaves it; then one call
// (gateFirstCallsVec, gateFirstCallsAVX2) makes the first call's work for
// every text put off, and matchPatterns reads the results
// (walker.objFirst) where it would have made the call.

// firstCall is the results of the pass's first call on a text (see
// gateSegments), when done.
type firstCall struct {
	seen       uint64
	from, next int
	anchors    uint64
	done       bool
}

// gateFirstCallsPortable is what gateFirstCallsVec (vec) and
// gateFirstCallsAVX2 compute, to hold them to: for each segment of segs
// of the card b that gateSegments reads in place, the results of
// gateTextPortable (vec) or gateTextTeddyPortable from its start.
func gateFirstCallsPortable(p *patternSet, b []byte, segs []textSeg, out []firstCall, vec bool) {
	for i, seg := range segs {
		out[i] = firstCall{}
		if seg.folded || seg.wide || int(seg.end)+blockRead > len(b) {
			continue
		}
		text, n := b[seg.start:], int(seg.end-seg.start)
		r := &out[i]
		if vec {
			r.seen, r.from, r.next, r.anchors = gateTextPortable(p, text, 0, n)
		} else {
			r.seen, r.from, r.next, r.anchors = gateTextTeddyPortable(p, text, 0, n, false)
		}
		r.done = true
	}
}

// gateFirstCalls makes the first calls of the texts put off that have
// none yet, walker.pending[w.firstDone:], into walker.first.
func (w *walker) gateFirstCalls(p *patternSet) {
	segs := w.pending[w.firstDone:]
	if len(segs) == 0 {
		return
	}
	if cap(w.first) < len(w.pending) {
		w.first = append(w.first[:cap(w.first)], make([]firstCall, len(w.pending)-cap(w.first))...)
	}
	w.first = w.first[:len(w.pending)]
	out := w.first[w.firstDone:]
	if haveGateVec {
		gateFirstCallsVec(&w.b[0], 0, &segs[0], len(segs), p, len(w.b), &out[0])
	} else {
		gateFirstCallsAVX2(&w.b[0], 0, &segs[0], len(segs), p, len(w.b), &out[0])
	}
	w.firstDone = len(w.pending)
}

// matchPending matches the patterns against each object put off whose
// texts all lie in walker.pending (those before the last end in
// pendingEnds), in order, as the walk would have on leaving each, and
// keeps the texts of the object the walk is in.
func (w *walker) matchPending(p *patternSet) {
	if len(w.pendingEnds) == 0 {
		return
	}
	batch := haveGateVec || haveGateAVX2
	if batch {
		w.gateFirstCalls(p)
	}
	start := 0
	for _, end := range w.pendingEnds {
		w.segs = append(w.segs[:0], w.pending[start:end]...)
		w.objFirst = nil
		if batch {
			w.objFirst = w.first[start:end]
		}
		w.carried = 0
		w.matchPatterns(p)
		w.tail, w.hasTail = w.segs[len(w.segs)-1], true
		start = end
	}
	w.objFirst = nil
	w.pendingEnds = w.pendingEnds[:0]
	n := copy(w.pending, w.pending[start:])
	w.pending = w.pending[:n]
	if batch {
		copy(w.first, w.first[start:])
		w.firstDone -= start
	}
	w.objStart -= start
}
