// Package jsonedit edits decoded JSON values (as encoding/json decodes
// them into any) one member at a time, for the differential tests that
// judge every card one edit away from another.
package jsonedit

import (
	"slices"
	"strconv"
)

// Edited returns a copy of root with the value at path (member names and
// array indices) set to v, or deleted when del is set. Only the objects
// and arrays along path are copied; the rest is shared, and root is left
// as it was. A path that leads into a scalar, or past an array's end,
// leaves root as it was, so that an edit meant for a member a card may
// not have is simply not made.
func Edited(root any, path []string, v any, del bool) any {
	if len(path) == 0 {
		return v
	}
	switch n := root.(type) {
	case map[string]any:
		c := make(map[string]any, len(n))
		for k, x := range n {
			c[k] = x
		}
		if len(path) == 1 && del {
			delete(c, path[0])
		} else {
			c[path[0]] = Edited(n[path[0]], path[1:], v, del)
		}
		return c
	case []any:
		i, err := strconv.Atoi(path[0])
		if err != nil || i < 0 || i >= len(n) {
			return root
		}
		if len(path) == 1 && del {
			return append(slices.Clip(n[:i]), n[i+1:]...)
		}
		c := slices.Clone(n)
		c[i] = Edited(n[i], path[1:], v, del)
		return c
	}
	return root
}
