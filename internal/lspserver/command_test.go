package lspserver

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/cmderr"
)

// endedConn is a connection whose session is over.
type endedConn struct{ err error }

func (c endedConn) Done() <-chan struct{} {
	done := make(chan struct{})
	close(done)
	return done
}

func (c endedConn) Err() error { return c.err }

// TestSessionEndExitAndEOF: a client that sends exit and then closes its
// end ends the session both ways at once. When Serve came to wait only
// after both had happened (a loaded machine, the race detector), it took
// either at random, and an exit without shutdown ended 0 about half the
// time, where the spec says 1.
func TestSessionEndExitAndEOF(t *testing.T) {
	for _, tc := range []struct {
		name     string
		shutdown bool
		want     error
	}{
		{"exit without shutdown", false, cmderr.ErrFailed},
		{"shutdown then exit", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range 100 {
				server := NewServer(Config{}, nil)
				server.shutdown = tc.shutdown
				close(server.exited)
				if err := sessionEnd(context.Background(), server, endedConn{}); !errors.Is(err, tc.want) {
					t.Fatalf("ending %d: %v, want %v", i, err, tc.want)
				}
			}
		})
	}
}

// TestSessionEndConnectionFailed: with no exit, a connection that failed
// is an I/O error and one the client closed is a clean end.
func TestSessionEndConnectionFailed(t *testing.T) {
	server := NewServer(Config{}, nil)
	if err := sessionEnd(context.Background(), server, endedConn{}); err != nil {
		t.Errorf("closed connection: %v, want nil", err)
	}
	err := sessionEnd(context.Background(), server, endedConn{errors.New("broken pipe")})
	if cmderr.Status(err) != cmderr.StatusIO {
		t.Errorf("failed connection: %v (status %d), want an I/O error", err, cmderr.Status(err))
	}
}

// TestSizeFlagBounds: --max-document had no upper bound (2GiB was taken,
// beyond the largest message that could carry a document), and an
// out-of-range --max-message was printed in bytes rather than as typed.
func TestSizeFlagBounds(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-document", "2GiB"}, "--max-document 2GiB: want 1 byte to 1GiB"},
		{[]string{"--max-document=0"}, "--max-document 0: want 1 byte to 1GiB"},
		{[]string{"--max-message", "2GiB"}, "--max-message 2GiB: want 1KiB to 1GiB"},
		{[]string{"--max-message", "2048M"}, "--max-message 2048M: want 1KiB to 1GiB"},
		{[]string{"--max-message", "1000"}, "--max-message 1000: want 1KiB to 1GiB"},
	} {
		if _, err := parseArgs(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want %q", tc.args, err, tc.want)
		}
	}
	for _, args := range [][]string{{"--max-document", "1GiB"}, {"--max-document", "1"}, {"--max-message", "1GiB", "--max-document", "1KiB"}} {
		if _, err := parseArgs(args); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
}

// TestSignatureFlagsChecked: the signature flags are checked as serve's
// and verify's are, before a session starts.
func TestSignatureFlagsChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--signatures", "require"}, "--signatures require needs trusted keys"},
		{[]string{"--signatures", "maybe"}, `--signatures "maybe": want off, check or require`},
		{[]string{"--canonical", "sorted"}, `--canonical "sorted": want as-is or drop-empty`},
		{[]string{"--now", "yesterday"}, "--now"},
	} {
		if _, err := parseArgs(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want %q", tc.args, err, tc.want)
		}
	}
	if err := Run([]string{"--keys", filepath.Join(t.TempDir(), "none.jwks")}, strings.NewReader(""), io.Discard, io.Discard, nil); cmderr.Status(err) != 2 {
		t.Errorf("--keys naming no file: %v (status %d), want a usage error", err, cmderr.Status(err))
	}
}
