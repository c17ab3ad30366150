//go:build race

package bench

// raceEnabled: under the race detector sync.Pool drops Puts at random, on
// purpose, so a Pool allocates where it would not in production.
const raceEnabled = true
