package cmdflag

import (
	"fmt"
	"strings"
)

// Command describes a command for its shell completion scripts and its
// manual page, both written from its flag declarations, so that neither
// can offer a flag the command does not take or miss one it does.
type Command struct {
	Name     string // as typed: "cardscan", or a subcommand's "serve"
	Synopsis string // what follows the name in a usage line: "[flags] [PATH ...]"
	Summary  string // one line: what it does
	Flags    *Set   // nil when it takes none
	// Words are the only operands it takes (completion's "bash zsh
	// fish"); none means its operands are files.
	Words       []string
	Subcommands []Command
}

// Shells are the shells Completion writes scripts for.
var Shells = []string{"bash", "zsh", "fish"}

// Completion returns the completion script of c for shell, one of Shells.
// Flags whose value is a FILE complete file names; other values are left
// to the user, since the declarations do not list them.
func (c Command) Completion(shell string) (string, error) {
	switch shell {
	case "bash":
		return c.bash(), nil
	case "zsh":
		return c.zsh(), nil
	case "fish":
		return c.fish(), nil
	}
	return "", fmt.Errorf("no completion for shell %q; want bash, zsh or fish", shell)
}

// flagWords returns c's flags as typed, long and short forms, and those of
// them that take a value.
func (c Command) flagWords() (all, valued []string) {
	if c.Flags == nil {
		return nil, nil
	}
	for _, f := range c.Flags.flags {
		names := []string{"--" + f.Long}
		if f.Short != "" {
			names = append(names, "-"+f.Short)
		}
		all = append(all, names...)
		if f.Arg != "" {
			valued = append(valued, names...)
		}
	}
	return all, valued
}

// fileValued returns the flags, as typed, whose value is a file name.
func (c Command) fileValued() []string {
	var out []string
	if c.Flags != nil {
		for _, f := range c.Flags.flags {
			if f.Arg == "FILE" {
				out = append(out, "--"+f.Long)
				if f.Short != "" {
					out = append(out, "-"+f.Short)
				}
			}
		}
	}
	return out
}

func (c Command) subcommandNames() []string {
	names := make([]string, len(c.Subcommands))
	for i, s := range c.Subcommands {
		names[i] = s.Name
	}
	return names
}

// firstLine is a flag's help as one line: completion menus show one.
func firstLine(help string) string {
	return strings.Join(strings.Fields(help), " ")
}

// shellQuote quotes s for a POSIX shell, fish and zsh alike.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (c Command) bash() string {
	fn := "_" + identifier(c.Name)
	var b strings.Builder
	fmt.Fprintf(&b, "# bash completion for %s; written by '%s completion bash'.\n", c.Name, c.Name)
	fmt.Fprintf(&b, "# Load it with: source <(%s completion bash)\n", c.Name)
	fmt.Fprintf(&b, "%s() {\n", fn)
	b.WriteString("    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n")
	b.WriteString("    local sub= flags= valued= files= words=\n")
	b.WriteString("    if ((COMP_CWORD > 1)); then\n        case ${COMP_WORDS[1]} in\n")
	for _, s := range c.Subcommands {
		fmt.Fprintf(&b, "        %s) sub=%s ;;\n", s.Name, s.Name)
	}
	b.WriteString("        esac\n    fi\n    case $sub in\n")
	cases := append([]Command{}, c.Subcommands...)
	for _, s := range append(cases, c) {
		label := s.Name
		if s.Name == c.Name {
			label = "*"
		}
		all, valued := s.flagWords()
		fmt.Fprintf(&b, "    %s)\n", label)
		fmt.Fprintf(&b, "        flags=%s\n", shellQuote(strings.Join(all, " ")))
		fmt.Fprintf(&b, "        valued=%s\n", shellQuote(" "+strings.Join(valued, " ")+" "))
		fmt.Fprintf(&b, "        files=%s\n", shellQuote(" "+strings.Join(s.fileValued(), " ")+" "))
		fmt.Fprintf(&b, "        words=%s\n", shellQuote(strings.Join(s.Words, " ")))
		b.WriteString("        ;;\n")
	}
	b.WriteString("    esac\n")
	b.WriteString(`    # The value of a flag: a file name for FILE, else nothing to offer.
    if [[ $valued == *" $prev "* ]]; then
        if [[ $files == *" $prev "* ]]; then
            COMPREPLY=($(compgen -f -- "$cur"))
        else
            COMPREPLY=()
        fi
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    elif [[ -n $words ]]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    elif ((COMP_CWORD == 1)); then
`)
	fmt.Fprintf(&b, "        COMPREPLY=($(compgen -W %s -- \"$cur\") $(compgen -f -- \"$cur\"))\n", shellQuote(strings.Join(c.subcommandNames(), " ")))
	b.WriteString(`    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
`)
	fmt.Fprintf(&b, "complete -o filenames -F %s %s\n", fn, c.Name)
	return b.String()
}

func (c Command) zsh() string {
	fn := "_" + identifier(c.Name)
	var b strings.Builder
	fmt.Fprintf(&b, "#compdef %s\n", c.Name)
	fmt.Fprintf(&b, "# zsh completion for %s; written by '%s completion zsh'.\n", c.Name, c.Name)
	fmt.Fprintf(&b, "# Load it with: source <(%s completion zsh), after compinit;\n", c.Name)
	fmt.Fprintf(&b, "# or save it as %s in a directory of $fpath.\n", fn)
	fmt.Fprintf(&b, "%s() {\n", fn)
	b.WriteString("    local sub= prev=${words[CURRENT-1]}\n    local -a flags valued files subs choices\n")
	b.WriteString("    if ((CURRENT > 2)); then\n        case ${words[2]} in\n")
	for _, s := range c.Subcommands {
		fmt.Fprintf(&b, "        (%s) sub=%s ;;\n", s.Name, s.Name)
	}
	b.WriteString("        esac\n    fi\n    case $sub in\n")
	cases := append([]Command{}, c.Subcommands...)
	for _, s := range append(cases, c) {
		label := s.Name
		if s.Name == c.Name {
			label = "*"
		}
		_, valued := s.flagWords()
		fmt.Fprintf(&b, "    (%s)\n", label)
		b.WriteString("        flags=(")
		if s.Flags != nil {
			for _, f := range s.Flags.flags {
				desc := firstLine(f.Help)
				fmt.Fprintf(&b, "\n            %s", shellQuote(zshEscape("--"+f.Long)+":"+desc))
				if f.Short != "" {
					fmt.Fprintf(&b, "\n            %s", shellQuote(zshEscape("-"+f.Short)+":"+desc))
				}
			}
		}
		b.WriteString(")\n")
		fmt.Fprintf(&b, "        valued=(%s)\n", strings.Join(quoteAll(valued), " "))
		fmt.Fprintf(&b, "        files=(%s)\n", strings.Join(quoteAll(s.fileValued()), " "))
		fmt.Fprintf(&b, "        choices=(%s)\n", strings.Join(quoteAll(s.Words), " "))
		b.WriteString("        ;;\n")
	}
	b.WriteString("    esac\n")
	b.WriteString("    subs=(")
	for _, s := range c.Subcommands {
		fmt.Fprintf(&b, "\n        %s", shellQuote(zshEscape(s.Name)+":"+s.Summary))
	}
	b.WriteString(")\n")
	b.WriteString(`    if ((${valued[(Ie)$prev]})); then
        if ((${files[(Ie)$prev]})); then
            _files
        fi
        return
    fi
    if [[ $PREFIX == -* ]]; then
        _describe -t flags flag flags
    elif ((${#choices})); then
        compadd -a choices
    elif ((CURRENT == 2)); then
        _describe -t commands command subs
        _files
    else
        _files
    fi
}
`)
	fmt.Fprintf(&b, "if [[ ${funcstack[1]} == %s ]]; then\n    %s \"$@\"\nelif (($+functions[compdef])); then\n    compdef %s %s\nfi\n", fn, fn, fn, c.Name)
	return b.String()
}

// zshEscape escapes the colons of a _describe name, which end the name.
func zshEscape(s string) string { return strings.ReplaceAll(s, ":", `\:`) }

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuote(s)
	}
	return out
}

func (c Command) fish() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# fish completion for %s; written by '%s completion fish'.\n", c.Name, c.Name)
	fmt.Fprintf(&b, "# Load it with: %s completion fish | source\n", c.Name)
	subs := strings.Join(c.subcommandNames(), " ")
	for _, s := range c.Subcommands {
		fmt.Fprintf(&b, "complete -c %s -n '__fish_use_subcommand' -a %s -d %s\n", c.Name, shellQuote(s.Name), shellQuote(s.Summary))
	}
	cases := append([]Command{}, c.Subcommands...)
	for _, s := range append(cases, c) {
		cond := "not __fish_seen_subcommand_from " + subs
		if s.Name != c.Name {
			cond = "__fish_seen_subcommand_from " + s.Name
		}
		if len(s.Words) > 0 {
			fmt.Fprintf(&b, "complete -c %s -n %s -f -a %s\n", c.Name, shellQuote(cond), shellQuote(strings.Join(s.Words, " ")))
		}
		if s.Flags == nil {
			continue
		}
		for _, f := range s.Flags.flags {
			line := fmt.Sprintf("complete -c %s -n %s -l %s", c.Name, shellQuote(cond), f.Long)
			if f.Short != "" {
				line += " -s " + f.Short
			}
			switch {
			case f.Arg == "FILE":
				line += " -r -F"
			case f.Arg != "":
				line += " -x"
			}
			line += " -d " + shellQuote(firstLine(f.Help))
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// identifier makes a shell function name of a command's name.
func identifier(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, name)
}
