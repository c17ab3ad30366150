//go:build !unix

package dump

import "errors"

// makeFIFO reports that this system has no named pipes in its file
// system, so that the tests that use one leave it out.
func makeFIFO(string) error { return errors.ErrUnsupported }
