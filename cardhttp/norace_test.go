//go:build !race

package cardhttp

const raceEnabled = false
