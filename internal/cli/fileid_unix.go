//go:build linux || darwin || freebsd

package cli

import (
	"os"
	"syscall"
)

// fileID is what tells one file from another on its system: its device
// and inode, the same for every path and link to it.
func fileID(info os.FileInfo) (id [2]uint64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return id, false
	}
	return [2]uint64{uint64(st.Dev), st.Ino}, true
}
