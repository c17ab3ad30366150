package fastvalidate

// Walking primitives of the a2a and ma2d checks. They do what the
// walker's do, small enough to be inlined into the loops that call them:
// a member name without escapes is the card's own bytes, a value of the
// kind wanted goes on without a call, and reports are made out of line.

// skip returns the node after the value at node i and its subtree.
func skip(tape []node, i uint32) uint32 {
	t := &tape[i]
	next, end := i+1, t.end
	if t.kind-kindObject < 2 {
		next = end
	}
	return next
}

// end returns the node past container n's last descendant.
func (c *a2aCheck) end(n uint32) uint32 { return c.tape[n].end }

// next returns the node after the value at n and its subtree.
func (c *a2aCheck) next(n uint32) uint32 { return skip(c.tape, n) }

// empty reports whether container n has no member or element.
func (c *a2aCheck) empty(n uint32) bool { return c.tape[n].end == n+1 }

// rawKey returns member name k as the card writes it, and whether that is
// the name: one with escapes must be decoded by decodedKey first. (A
// helper that decoded as well would be too large to inline.)
func (c *a2aCheck) rawKey(k uint32) ([]byte, bool) {
	t := &c.tape[k]
	return c.b[t.start:t.end], t.flags&flagEscaped == 0
}

func (c *a2aCheck) decodedKey(k uint32) []byte { return c.w.key(k) }

// key returns member name k decoded, as walker.key does.
func (c *a2aCheck) key(k uint32) []byte {
	if key, plain := c.rawKey(k); plain {
		return key
	}
	return c.decodedKey(k)
}

// str returns string node n decoded, as walker.text does.
func (c *a2aCheck) str(n uint32) []byte {
	if t := &c.tape[n]; t.flags&flagEscaped == 0 {
		return c.b[t.start:t.end]
	}
	return c.w.text(n)
}

// want is walker.wantKind for any kind but a boolean.
func (c *a2aCheck) want(n uint32, k kind) bool {
	if c.tape[n].kind == k {
		return true
	}
	c.w.addTypeMismatch(n, k)
	return false
}

// wantBool is walker.wantKind(n, kindTrue): true or false.
func (c *a2aCheck) wantBool(n uint32) {
	if k := c.tape[n].kind; k != kindTrue && k != kindFalse {
		c.w.addTypeMismatch(n, kindTrue)
	}
}

// b2u is 1 for true and 0 for false, without a branch: the compiler turns
// it into the flag the comparison set.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
