//go:build !race

package fastvalidate

const raceEnabled = false
