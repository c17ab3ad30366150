// Package suggest finds the known name a user most likely meant by a name
// that is not known: a rule ID, a subcommand, a policy file's key.
package suggest

import "strings"

// Nearest returns the candidate closest to name in edits, ASCII case
// ignored, when it is close enough to be a likely slip: at most a third of
// name's length in edits, and at least one. Otherwise it returns "". Ties go
// to the earlier candidate, so a caller's order settles them.
func Nearest(name string, candidates []string) string {
	lower := strings.ToLower(name)
	best, bestD := "", max(len(name)/3, 1)+1
	for _, c := range candidates {
		if d := Distance(lower, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the optimal string alignment distance between a and b: the
// insertions, deletions, substitutions and swaps of neighbouring bytes that
// turn one into the other. A swap counts once because it is the commonest
// slip ("a2a.ulr"); plain Levenshtein would count it twice and prefer an
// unrelated name as near. Names longer than 64 bytes are never near, which
// bounds the cost on hostile input.
func Distance(a, b string) int {
	const limit = 64
	if len(a) > limit || len(b) > limit {
		return limit
	}
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
