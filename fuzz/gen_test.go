package fuzz

import "testing"

// generatedCards returns n cards from the corpus generator.
func generatedCards(t testing.TB, n int) [][]byte {
	return nil
}

// generatedSchemaCards returns n cards of the agentcard-schema dialect,
// valid and defective, from the corpus generator.
func generatedSchemaCards(t testing.TB, n int) [][]byte {
	return nil
}
