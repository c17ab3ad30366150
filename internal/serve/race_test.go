//go:build race

package serve

// raceEnabled skips the RSS bound: the race detector's shadow memory
// multiplies what a process holds.
const raceEnabled = true
