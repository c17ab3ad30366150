//go:build !race

package cardsig

const raceEnabled = false
