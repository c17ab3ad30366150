//go:build race

package cardhttp

// raceEnabled skips allocation assertions: under the race detector
// sync.Pool drops items on purpose, so pooled code allocates.
const raceEnabled = true
