// Package cmdflag holds the command-line conventions that cardscan and its
// serve and fetch subcommands share, so that a size or a colour choice is
// read the same way by all three, and each declares its flags once (Set).
package cmdflag

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
	"golang.org/x/term"
)

// Size is a byte count flag written as 4096, 64KiB, 16MiB, 1GiB or 1TiB
// (also K, M, G, T, KB, MB, GB, TB: all powers of 1024, since buffers are).
type Size int64

// String writes the size in the largest unit that divides it (16MiB), as
// the help shows a default.
func (s *Size) String() string {
	n := int64(*s)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// FormatSize writes n bytes as Size.String does, for a message that
// names a size flag's value as the user would type it.
func FormatSize(n int64) string {
	s := Size(n)
	return s.String()
}

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
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1},
	} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || n < 0 {
		return 0, fmt.Errorf("%q is not a size such as 4096, 64KiB or 16MiB", v)
	}
	if err != nil || n > (1<<40)/mult {
		return 0, fmt.Errorf("%q is more than 1TiB, the largest size", v)
	}
	return n * mult, nil
}

// CheckProfile returns an error naming the known profiles unless name is
// one of them.
func CheckProfile(name string) error {
	if _, err := fastvalidate.New(name); err != nil {
		return fmt.Errorf("unknown profile %q; known profiles: %s", name, strings.Join(fastvalidate.Profiles(), ", "))
	}
	return nil
}

// AddColorFlag declares --color, which WantColor follows, in fs: every
// command with text output takes it with these words.
func AddColorFlag(fs *Set, p *string) *Flag {
	return fs.String(p, "--color WHEN", "auto", "auto, always or never: colour text output")
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
