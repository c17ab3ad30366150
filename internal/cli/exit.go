package cli

import (
	"errors"
	"fmt"

	"github.com/cardscan/cardscan/internal/console"
)

// A command ends with an error that says which way out it took; exitStatus
// is the one place that turns it into an exit status, so a command never
// picks a number by hand.

// badUsage is a mistake in the command line: exit status 2. The message is
// err's; command, when set ("cardscan diff"), adds a hint to its --help.
type badUsage struct {
	command string
	err     error
}

func (e *badUsage) Error() string { return e.err.Error() }
func (e *badUsage) Unwrap() error { return e.err }

// usageFailure is a usage error of command, answered with a hint to its
// --help.
func usageFailure(command string, err error) error { return &badUsage{command, err} }

// usageStop is a usage error said without a hint: the flags parsed, but
// what they ask for cannot be done (an unknown profile, an output that
// would destroy an input).
func usageStop(err error) error { return &badUsage{err: err} }

// ioFailure is an input that could not be read or an output that could
// not be written: exit status 3.
type ioFailure struct{ err error }

func (e *ioFailure) Error() string { return e.err.Error() }
func (e *ioFailure) Unwrap() error { return e.err }

func ioFailuref(format string, args ...any) error {
	return &ioFailure{fmt.Errorf(format, args...)}
}

// The ways out whose reasons are already on stderr, or need no words.
// Commands that judge many things in a row (a run of cards, several
// outputs to close) report each as they go and end with the worst.
var (
	// errFailed: the verdict is a failure (a card failed per --fail-on, a
	// key changed between dumps); exit status 1.
	errFailed = errors.New("failed")
	// errIOReported: an I/O failure, said already; exit status 3.
	errIOReported = errors.New("an input or output failed")
	// errUsageReported: a usage error, said already; exit status 2.
	errUsageReported = errors.New("usage error")
)

// statusError is the way out of a command that chooses its exit status
// itself (a library's Run, a run a signal ended).
type statusError struct{ status int }

func (e *statusError) Error() string { return fmt.Sprintf("exit status %d", e.status) }
func (e *statusError) ExitCode() int { return e.status }

// fromStatus is status as an error: nil for 0.
func fromStatus(status int) error {
	if status == 0 {
		return nil
	}
	return &statusError{status}
}

// exitStatus says err on stderr, unless it was said already, and returns
// the exit status it stands for.
func exitStatus(err error, con *console.Console) int {
	var usage *badUsage
	var coded interface{ ExitCode() int }
	switch {
	case err == nil, errors.Is(err, errFailed), errors.Is(err, errIOReported),
		errors.Is(err, errUsageReported), errors.As(err, &coded):
		// Said already, or nothing to say.
	case errors.As(err, &usage):
		con.Errorf("%s", usage.err)
		if usage.command != "" {
			con.Hintf("run '%s --help' for usage", usage.command)
		}
	default:
		con.Errorf("%s", err)
	}
	return statusOf(err)
}

// statusOf is the exit status err stands for: the one place a way out
// becomes a number.
func statusOf(err error) int {
	var usage *badUsage
	switch {
	case err == nil:
		return console.ExitOK
	case errors.As(err, &usage):
		return console.ExitUsage
	case errors.Is(err, errFailed):
		return console.ExitInvalid
	case errors.Is(err, errUsageReported):
		return console.ExitUsage
	case errors.Is(err, errIOReported):
		return console.ExitIO
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return console.ExitIO
}
