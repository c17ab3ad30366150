//go:build !(linux || darwin || freebsd)

package pipeline

import (
	"errors"
	"os"
)

func mapFile(*os.File, int64) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) {}

func dropPages([]byte) {}
