package fastvalidate

// Walking primitives of the a2a and ma2d checks. They do what the
// walker's do, with the common case inlined into the loops that call
// them: a member name without escapes is the card's own bytes, a value of
// the kind wanted goes on without a call.

// skip returns the node after the value at node i and its subtree. Which
// kind a value is varies from member to member, so a branch on it would
// often be mispredicted; the choice is a conditional move instead.
func skip(tape []node, i uint32) uint32 {
	t := &tape[i]
	next, end := i+1, t.end
	if t.kind-kindObject < 2 {
		next = end
	}
	return next
}

// memberName returns member name k decoded, as key does.
func (w *walker) memberName(k uint32) []byte {
	if t := &w.sc.tape[k]; t.flags&flagEscaped == 0 {
		return w.b[t.start:t.end]
	}
	return w.key(k)
}

// end returns the node past container n's last descendant.
func (c *a2aCheck) end(n uint32) uint32 { return c.tape[n].end }

// next returns the node after the value at n and its subtree.
func (c *a2aCheck) next(n uint32) uint32 { return skip(c.tape, n) }

// empty reports whether container n has no member or element.
func (c *a2aCheck) empty(n uint32) bool { return c.tape[n].end == n+1 }

// key returns member name k decoded, as walker.key does.
func (c *a2aCheck) key(k uint32) []byte {
	if t := &c.tape[k]; t.flags&flagEscaped == 0 {
		return c.b[t.start:t.end]
	}
	return c.w.key(k)
}

// str returns string node n decoded, as walker.text does.
func (c *a2aCheck) str(n uint32) []byte {
	if t := &c.tape[n]; t.flags&flagEscaped == 0 {
		return c.b[t.start:t.end]
	}
	return c.w.text(n)
}

// want is walker.wantKind.
func (c *a2aCheck) want(n uint32, k kind) bool {
	if got := c.tape[n].kind; got == k || k == kindTrue && got == kindFalse {
		return true
	}
	c.w.addTypeMismatch(n, k)
	return false
}
