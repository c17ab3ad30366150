package cmdflag

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cardscan/cardscan/internal/suggest"
)

// Set is a command's flags, each declared once, with the way it is written
// in the help ("-j, --jobs N"), its default and its help text: Parse reads
// the declarations, and so does Help, so no flag can be parsed yet missing
// from --help, nor documented with a default it does not have.
//
// Every flag may be written with one dash or two (-profile, --profile),
// its value after '=' or as the next argument; a one-letter flag that takes
// a value may also have it attached (-j4). Flags may follow operands, up
// to a "--", after which every argument is an operand. "-" is an operand
// (standard input). -h and --help ask for the help.
type Set struct {
	flags []*Flag
	names map[string]*Flag // short and long names, without dashes
	// values makes the flag values: the standard library's, so that a bad
	// number is reported as the flag package would.
	values *flag.FlagSet
}

// Flag is one declared flag.
type Flag struct {
	Short string // one letter, or ""
	Long  string
	Arg   string // what the value is called in the help ("N"); "" for a switch
	Help  string // may hold newlines: each further line is indented to the help column
	// Default is the default as the help shows it, "" for none: the
	// value's text at declaration unless that is the zero value.
	Default string
	value   flag.Value
	// given says Parse set the flag, for a command whose defaults come
	// in part from a file the command line overrides.
	given bool
	// typed is the value as the user wrote it, for an error that quotes
	// it: 2048M, not the 2147483648 it was read as.
	typed string
	// noEmpty refuses an empty value: the flag's default is the empty
	// string, so an empty value would be taken for the flag left out
	// (--summary="$UNSET" writing no summary, and saying nothing).
	noEmpty bool
}

// boolFlag is how the flag package tells a switch, which takes no value,
// from a flag that does.
type boolFlag interface{ IsBoolFlag() bool }

func (f *Flag) isSwitch() bool {
	b, ok := f.value.(boolFlag)
	return ok && b.IsBoolFlag()
}

// HideDefault keeps the default out of the help, for a flag whose help
// says what its default means better than its value would.
func (f *Flag) HideDefault() *Flag {
	f.Default = ""
	return f
}

// Bool declares a switch. spec is the flag as the help shows it: "--all"
// or "-q, --quiet".
func (s *Set) Bool(p *bool, spec, help string) *Flag {
	return s.declare(spec, help, func(fs *flag.FlagSet, key string) { fs.BoolVar(p, key, false, "") })
}

// String declares a flag with a string value. spec is the flag as the help
// shows it, with its value's name: "--format FORMAT".
// A flag whose default is "" refuses an empty value.
func (s *Set) String(p *string, spec, def, help string) *Flag {
	f := s.declare(spec, help, func(fs *flag.FlagSet, key string) { fs.StringVar(p, key, def, "") })
	f.noEmpty = def == ""
	return f
}

// Int declares a flag with an int value.
func (s *Set) Int(p *int, spec string, def int, help string) *Flag {
	return s.declare(spec, help, func(fs *flag.FlagSet, key string) { fs.IntVar(p, key, def, "") })
}

// Int64 declares a flag with an int64 value.
func (s *Set) Int64(p *int64, spec string, def int64, help string) *Flag {
	return s.declare(spec, help, func(fs *flag.FlagSet, key string) { fs.Int64Var(p, key, def, "") })
}

// Duration declares a flag with a time.Duration value (10s, 1m30s).
func (s *Set) Duration(p *time.Duration, spec string, def time.Duration, help string) *Flag {
	return s.declare(spec, help, func(fs *flag.FlagSet, key string) { fs.DurationVar(p, key, def, "") })
}

// Var declares a flag of any flag.Value; its default is v as it stands.
func (s *Set) Var(v flag.Value, spec, help string) *Flag {
	s.init()
	return s.add(spec, help, v)
}

// declare makes a value of the standard library's with define, under a
// key of its own in s.values, and declares the flag with it.
func (s *Set) declare(spec, help string, define func(fs *flag.FlagSet, key string)) *Flag {
	s.init()
	key := strconv.Itoa(len(s.flags))
	define(s.values, key)
	return s.add(spec, help, s.values.Lookup(key).Value)
}

func (s *Set) init() {
	if s.names == nil {
		s.names = map[string]*Flag{}
		s.values = flag.NewFlagSet("", flag.ContinueOnError)
	}
}

// add parses spec and records the flag. A malformed spec or a name
// declared twice is a mistake in the program, not in its input: it
// panics, at start-up, in every test that builds the set.
func (s *Set) add(spec, help string, v flag.Value) *Flag {
	f := &Flag{Help: help, value: v}
	for _, field := range strings.Fields(spec) {
		switch {
		case strings.HasPrefix(field, "--") && len(field) > 3 && f.Long == "":
			f.Long = field[2:]
		case strings.HasPrefix(field, "-") && len(field) == 3 && field[2] == ',' && f.Short == "" && f.Long == "":
			f.Short = field[1:2]
		case !strings.HasPrefix(field, "-") && f.Long != "" && f.Arg == "":
			f.Arg = field
		default:
			panic(fmt.Sprintf("cmdflag: malformed flag spec %q", spec))
		}
	}
	if f.Long == "" || (f.Arg == "") != f.isSwitch() {
		panic(fmt.Sprintf("cmdflag: flag spec %q needs a --name, and a value name unless it is a switch", spec))
	}
	for _, name := range []string{f.Short, f.Long} {
		if name == "" {
			continue
		}
		if s.names[name] != nil || name == "h" || name == "help" {
			panic("cmdflag: flag " + name + " declared twice")
		}
		s.names[name] = f
	}
	if d := v.String(); d != "" && d != "0" && d != "false" && d != "0s" {
		f.Default = d
	}
	s.flags = append(s.flags, f)
	return f
}

// Given reports whether the last Parse set the flag of that name, long or
// short, without dashes.
func (s *Set) Given(name string) bool {
	f := s.names[name]
	return f != nil && f.given
}

// Typed returns the value of the flag of that name (long or short,
// without dashes) as the last Parse was given it, or its current value's
// text when it was not given; "" for no such flag.
func (s *Set) Typed(name string) string {
	f := s.names[name]
	switch {
	case f == nil:
		return ""
	case f.given:
		return f.typed
	}
	return f.value.String()
}

// Flags returns the declared flags, in the order of declaration.
func (s *Set) Flags() []*Flag { return s.flags }

// helpColumn is where flag help starts unless a long flag pushes it
// further, so that the commands' help pages line up alike.
const helpColumn = 26

// Help returns a line per flag, in the order declared: the flag as
// declared, then its help in a column, then its default.
//
//	-j, --jobs N            workers (default 8)
//	    --all               a verdict for every card
func (s *Set) Help() string {
	lefts := make([]string, len(s.flags))
	col := helpColumn
	for i, f := range s.flags {
		lefts[i] = f.spec()
		col = max(col, len(lefts[i])+2)
	}
	var b strings.Builder
	for i, f := range s.flags {
		help := f.Help
		if f.Default != "" {
			help += " (default " + f.Default + ")"
		}
		for j, line := range strings.Split(help, "\n") {
			left := ""
			if j == 0 {
				left = lefts[i]
			}
			b.WriteString(left)
			b.WriteString(strings.Repeat(" ", col-len(left)))
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// spec is the flag as the help's first column shows it.
func (f *Flag) spec() string {
	left := "      --" + f.Long
	if f.Short != "" {
		left = "  -" + f.Short + ", --" + f.Long
	}
	if f.Arg != "" {
		left += " " + f.Arg
	}
	return left
}

// Missing returns the declared flags that help does not show as Help
// does: a line with the flag, its help's first line and, if it has one,
// its default. Tests call it with a command's --help output, so that no
// flag goes undocumented whatever writes that output.
func (s *Set) Missing(help string) []*Flag {
	lines := strings.Split(help, "\n")
	var missing []*Flag
	for _, f := range s.flags {
		first, _, _ := strings.Cut(f.Help, "\n")
		shown := false
		for i, line := range lines {
			rest, ok := strings.CutPrefix(line, f.spec()+"  ")
			if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " "), first) {
				continue
			}
			// The default ends the flag's last line.
			block := line
			for j := i + 1; j < len(lines) && strings.HasPrefix(lines[j], "      ") && !strings.HasPrefix(strings.TrimLeft(lines[j], " "), "-"); j++ {
				block += "\n" + lines[j]
			}
			shown = f.Default == "" || strings.Contains(block, "(default "+f.Default+")")
			break
		}
		if !shown {
			missing = append(missing, f)
		}
	}
	return missing
}

// unknown is the error for a flag typed that names none, with the long
// name most likely meant, as a mistyped subcommand or policy key gets one.
// Names under three letters are left alone: any flag is near them.
func (s *Set) unknown(typed, name string) error {
	if len(name) >= 3 {
		longs := make([]string, len(s.flags))
		for i, f := range s.flags {
			longs[i] = f.Long
		}
		if near := suggest.Nearest(name, longs); near != "" {
			return fmt.Errorf("unknown flag %s: did you mean --%s?", typed, near)
		}
	}
	return errors.New("unknown flag " + typed)
}

// Parse sets the flags in args and returns the other arguments, the
// operands, in order. It returns flag.ErrHelp for -h or --help. Errors name
// a flag as the user wrote it.
func (s *Set) Parse(args []string) (operands []string, err error) {
	s.init()
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			return append(operands, args[i+1:]...), nil
		}
		if len(arg) < 2 || arg[0] != '-' {
			operands = append(operands, arg)
			continue
		}
		typed, value, hasValue := strings.Cut(arg, "=")
		name := strings.TrimPrefix(typed[1:], "-")
		f := s.names[name]
		if f == nil && !strings.HasPrefix(typed, "--") && len(name) > 1 {
			// -j4: a one-letter flag with its value attached.
			if g := s.names[name[:1]]; g != nil && g.Short == name[:1] && !g.isSwitch() {
				f, typed, value, hasValue = g, arg[:2], arg[2:], true
			}
		}
		if f == nil {
			if name == "h" || name == "help" {
				return nil, flag.ErrHelp
			}
			return nil, s.unknown(typed, name)
		}
		switch {
		case f.isSwitch() && !hasValue:
			value = "true"
		case !hasValue:
			if i+1 == len(args) {
				return nil, errors.New("flag needs an argument: " + typed)
			}
			i++
			value = args[i]
		}
		if value == "" && f.noEmpty {
			return nil, fmt.Errorf("%s %q: %s may not be empty", typed, value, f.Arg)
		}
		if err := f.value.Set(value); err != nil {
			if f.isSwitch() {
				return nil, fmt.Errorf("invalid boolean value %q for %s: %v", value, typed, err)
			}
			return nil, fmt.Errorf("invalid value %q for flag %s: %v", value, typed, err)
		}
		f.given, f.typed = true, value
	}
	return operands, nil
}
