//go:build unix

package trustfile

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO named as a key set or a CA bundle would block the run until
// something wrote to it; it is refused without being opened.
func TestParseRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "keys.jwks")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	for _, tc := range []struct{ src, want string }{
		{"origins:\n  https://a.example:\n    keys: keys.jwks\n", "p.yaml:3:11: https://a.example: keys: " + fifo + ": not a regular file"},
		{"x5c-roots: keys.jwks\norigins:\n  '*': {x5c: true}\n", "p.yaml:1:12: x5c-roots: " + fifo + ": not a regular file"},
	} {
		root, err := ReadRoot("p.yaml", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := Parse("p.yaml", dir, root)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("%q: error %v, want %s", tc.src, err, tc.want)
			}
		case <-time.After(10 * time.Second):
			// Unblock the reader so the test binary can end.
			t.Fatalf("%q: reading the policy blocked on the FIFO", tc.src)
		}
	}
}
