//go:build !amd64 || purego

package tape

import "testing"

// classifyPasses lists every way of computing the quote and care bits in
// this build: the word-at-a-time one only.
func classifyPasses() []classifyPass {
	return []classifyPass{{name: "words", portable: true, blocks: classifyWords}}
}

func (p classifyPass) use(tb testing.TB, sc *Scanner) { sc.Portable = p.portable }
