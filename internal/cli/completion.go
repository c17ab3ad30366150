package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/suggest"
)

// commandTree is cardscan and its subcommands, each with the flags it
// declares, which the completion scripts and the manual page are written
// from.
func commandTree() cmdflag.Command {
	return cmdflag.Command{
		Name:        "cardscan",
		Synopsis:    "[flags] [PATH ...]",
		Summary:     "validate agent cards (AgentCard, A2A, MA2D)",
		Flags:       newFlagSet(&options{}),
		Subcommands: subcommandTree(),
	}
}

// subcommandTree is the command table as completion and the manual
// page want it.
func subcommandTree() []cmdflag.Command {
	var subs []cmdflag.Command
	for _, c := range commands {
		sub := cmdflag.Command{Name: c.name, Synopsis: c.synopsis, Summary: c.summary}
		if c.flags != nil {
			sub.Flags = c.flags()
		}
		if c.words != nil {
			sub.Words = c.words()
		}
		subs = append(subs, sub)
	}
	return subs
}

const completionUsage = `usage: cardscan completion bash|zsh|fish

Writes the shell's completion script for cardscan to standard output,
from the flags cardscan and its subcommands declare:

  bash: source <(cardscan completion bash)
  zsh:  source <(cardscan completion zsh)   (after compinit)
  fish: cardscan completion fish | source
`

// runCompletion is `cardscan completion SHELL`.
func runCompletion(args []string, stdout io.Writer, con *console.Console) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		return writeOut(stdout, completionUsage)
	}
	if len(args) != 1 {
		return cmderr.Usage("cardscan completion", usagef("completion takes one shell: bash, zsh or fish"))
	}
	if !slices.Contains(cmdflag.Shells, args[0]) {
		msg := fmt.Sprintf("unknown shell %q: want bash, zsh or fish", args[0])
		if near := suggest.Nearest(args[0], cmdflag.Shells); near != "" {
			msg += "; did you mean " + near + "?"
		}
		return cmderr.Usage("cardscan completion", usagef("%s", msg))
	}
	script, err := commandTree().Completion(args[0])
	if err != nil {
		return cmderr.Usage("cardscan completion", err)
	}
	return writeOut(stdout, script)
}

// runMan is `cardscan man`: the manual page, in roff, on standard output
// (make man writes it to bin/cardscan.1).
func runMan(args []string, stdout io.Writer, con *console.Console) error {
	operands, err := (&cmdflag.Set{}).Parse(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return writeOut(stdout, "usage: cardscan man\n\nWrites cardscan's manual page, in roff, to standard output:\ncardscan man > cardscan.1; man -l cardscan.1\n")
		}
		return cmderr.Usage("cardscan man", err)
	}
	if len(operands) > 0 {
		return cmderr.Usage("cardscan man", usagef("man takes no operands"))
	}
	return writeOut(stdout, commandTree().Man(cmdflag.ManPage{
		Section:     "1",
		Source:      "cardscan " + version(),
		Description: usageDescription(),
		ExitStatus:  strings.TrimPrefix(strings.TrimSpace(usageTail), "exit status: "),
		SeeAlso:     "cardscan --help, and cardscan COMMAND --help for each command. docs/cli.md in the source.",
	}))
}

// usageDescription is --help's description of cardscan: the paragraph
// between the usage lines and the flags.
func usageDescription() string {
	_, rest, _ := strings.Cut(usageHead, "\n\n")
	desc, _, _ := strings.Cut(rest, "\nflags:")
	return desc
}
