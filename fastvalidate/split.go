package fastvalidate

// ArrayElements calls fn for each element of doc when doc is a JSON array,
// with the element's bytes as written and their offset in doc, and returns
// true. It returns false without calling fn when doc is not a strictly valid
// JSON array (then doc is one record to judge as a whole).
//
// It serves readers of .json files that hold a list of cards: each element
// is judged, and copied out, as its own record. Not safe for concurrent use
// with other calls on the same Validator.
func (v *Validator) ArrayElements(doc []byte, fn func(elem []byte, offset int)) bool {
	sc := &v.w.sc
	if !sc.scan(doc) || sc.tape[0].kind != kindArray {
		return false
	}
	end := len(doc)
	for end > 0 && doc[end-1] != ']' {
		end--
	}
	end-- // the closing bracket
	for e := uint32(1); e < sc.tape[0].end; {
		start := int(sc.tape[e].start)
		if sc.tape[e].kind == kindString {
			start--
		}
		next := sc.next(e)
		stop := end
		if next < sc.tape[0].end {
			stop = int(sc.tape[next].start)
			if sc.tape[next].kind == kindString {
				stop--
			}
			for stop > start && doc[stop-1] != ',' {
				stop--
			}
			stop--
		}
		for stop > start && wsTable[doc[stop-1]] {
			stop--
		}
		fn(doc[start:stop], start)
		e = next
	}
	return true
}
