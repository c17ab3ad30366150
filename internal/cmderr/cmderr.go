// Package cmderr is the ways a cardscan command ends, as errors: every
// subcommand, wherever it lives, returns one of them (or nil), and Status
// is the one place that turns a way out into an exit status, so that no
// command picks a number by hand.
//
// Exit says the error on stderr, unless it is one of the "reported" ways
// out whose words are there already (commands that judge many things in a
// row report each as they go and end with the worst), and returns the
// status: cardscan's main and each subcommand's tests end the same way.
package cmderr

import (
	"errors"
	"fmt"
	"io"
	"syscall"
)

// Exit statuses, as docs/cli.md promises them.
const (
	StatusOK     = 0 // every card passed (per --fail-on), or there was nothing to judge
	StatusFailed = 1 // at least one card failed
	StatusUsage  = 2 // bad flags or arguments
	StatusIO     = 3 // an input or output could not be read, fetched, decompressed or written
)

// UsageError is a mistake in the command line: exit status 2. The message
// is Err's; Hint, when set, follows it; else Command, when set ("cardscan
// diff"), adds a hint to its --help.
type UsageError struct {
	Command string
	Err     error
	Hint    string
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage is a usage error of command, answered with a hint to its --help.
func Usage(command string, err error) error { return &UsageError{Command: command, Err: err} }

// UsageStop is a usage error said without a hint: the flags parsed, but
// what they ask for cannot be done (an unknown profile, an output that
// would destroy an input).
func UsageStop(err error) error { return &UsageError{Err: err} }

// UsageHint is a usage error with its own remedy (the profiles there are,
// for an unknown one).
func UsageHint(err error, hint string) error { return &UsageError{Err: err, Hint: hint} }

// IOError is an input that could not be read or an output that could not
// be written: exit status 3.
type IOError struct{ Err error }

func (e *IOError) Error() string { return e.Err.Error() }
func (e *IOError) Unwrap() error { return e.Err }

// IOf is an I/O failure with a formatted message.
func IOf(format string, args ...any) error {
	return &IOError{fmt.Errorf(format, args...)}
}

// InterruptedError is a run a signal ended early, after finishing what it
// had read: 128 plus the signal's number, as the shell reports a process
// the signal killed (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
type InterruptedError struct{ Signal syscall.Signal }

func (e *InterruptedError) Error() string { return "interrupted by " + e.Signal.String() }

// Interrupted is the way out of a run sig ended.
func Interrupted(sig syscall.Signal) error { return &InterruptedError{sig} }

// The ways out whose reasons are already on stderr, or need no words.
var (
	// ErrFailed: the verdict is a failure (a card failed per --fail-on, a
	// key changed between dumps); exit status 1.
	ErrFailed = errors.New("failed")
	// ErrIOReported: an I/O failure, said already; exit status 3.
	ErrIOReported = errors.New("an input or output failed")
	// ErrUsageReported: a usage error, said already; exit status 2.
	ErrUsageReported = errors.New("usage error")
)

// Verdict is the way out the cards call for under --fail-on (error,
// warning or never): ErrFailed or nil.
func Verdict(failOn string, invalid, warnings int64) error {
	switch {
	case failOn == "never":
		return nil
	case invalid > 0, failOn == "warning" && warnings > 0:
		return ErrFailed
	}
	return nil
}

// Status is the exit status err stands for: the one place a way out
// becomes a number. An error of no kind above is an I/O failure.
func Status(err error) int {
	var usage *UsageError
	var interrupted *InterruptedError
	switch {
	case err == nil:
		return StatusOK
	case errors.As(err, &usage), errors.Is(err, ErrUsageReported):
		return StatusUsage
	case errors.Is(err, ErrFailed):
		return StatusFailed
	case errors.As(err, &interrupted):
		return 128 + int(interrupted.Signal)
	}
	return StatusIO
}

// Console is where Exit says an error: internal/console's, in cardscan's
// voice ("cardscan: error: ...", "cardscan: hint: ...").
type Console interface {
	Errorf(format string, args ...any)
	Hintf(format string, args ...any)
}

// Exit says err on con, unless it was said already or needs no words, and
// returns the exit status it stands for.
func Exit(err error, con Console) int {
	var usage *UsageError
	var interrupted *InterruptedError
	switch {
	case err == nil, errors.Is(err, ErrFailed), errors.Is(err, ErrIOReported),
		errors.Is(err, ErrUsageReported), errors.As(err, &interrupted):
		// Said already, or nothing to say.
	case errors.As(err, &usage):
		con.Errorf("%s", usage.Err)
		if usage.Hint != "" {
			con.Hintf("%s", usage.Hint)
		} else if usage.Command != "" {
			con.Hintf("run '%s --help' for usage", usage.Command)
		}
	default:
		con.Errorf("%s", err)
	}
	return Status(err)
}

// CloseOutput closes an output a command wrote, named by what ("--resume
// out.jsonl"), and makes a failure to close it the command's way out when
// the command had none but a verdict: an earlier failure says what went
// wrong first. Deferred right after the output is opened, it is the one
// place a command closes it, on every path.
func CloseOutput(c io.Closer, what string, err *error) {
	if cerr := c.Close(); cerr != nil && (*err == nil || errors.Is(*err, ErrFailed)) {
		*err = IOf("%s: %s", what, cerr)
	}
}
