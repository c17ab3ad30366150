//go:build !unix

package dump

import (
	"os"
	"time"
)

// unlockedAge: without flock(2) nothing tells a live run's directory but
// its process ID, which may have been reused; a day outlives any run.
const unlockedAge = 24 * time.Hour

func lockFile(path string) (*os.File, error) { return os.Create(path) }

func lockHeld(string) (bool, error) { return false, nil }

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
