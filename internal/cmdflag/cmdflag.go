// Package cmdflag holds the command-line conventions that cardscan and its
// serve and fetch subcommands share, so that a size or a colour choice is
// read the same way by all three.
package cmdflag

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// Size is a byte count flag written as 4096, 64KiB, 16MiB or 1GiB (also K,
// M, G, KB, MB, GB: all powers of 1024, since buffers are).
type Size int64

func (s *Size) String() string { return strconv.FormatInt(int64(*s), 10) }

// Set parses a size; it implements flag.Value.
func (s *Size) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = Size(n)
	return nil
}

// ParseSize reads a size as Size.Set does. Sizes above 1 TiB are refused:
// no buffer here is meant to be that large.
func ParseSize(v string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(v))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("%q is not a size such as 4096, 64KiB or 16MiB", v)
	}
	return n * mult, nil
}

// WantColor follows a --color flag (always, never, auto), then NO_COLOR
// (https://no-color.org) and TERM=dumb, then whether stdout is a terminal.
func WantColor(when string, stdout io.Writer) bool {
	switch when {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := stdout.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// ParseError words an error of flag.FlagSet.Parse for a user: the flag
// package says "flag provided but not defined" for an unknown flag.
func ParseError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return "unknown flag " + name
	}
	return msg
}
