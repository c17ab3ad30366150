//go:build !amd64 || purego

package tape

import "testing"

// classifyPasses lists every way of computing the quote and care bits in
// this build: the word-at-a-time one only.
func classifyPasses() []classifyPass {
	return []classifyPass{{name: "words", portable: true, blocks: classifyWords}}
}

// setVectorPass has nothing to set: this build has no vector pass, and
// classifyPasses lists none.
func setVectorPass(testing.TB, uint8) {}
