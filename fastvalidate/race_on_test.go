//go:build race

package fastvalidate

// raceEnabled: the race detector makes sync.Pool drop a share of the items
// put back, so a Pool allocates now and then by design.
const raceEnabled = true
