package cli

import (
	"io"

	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/fetch"
	"github.com/cardscan/cardscan/internal/lspserver"
	"github.com/cardscan/cardscan/internal/mcpserver"
	"github.com/cardscan/cardscan/internal/serve"
	"github.com/cardscan/cardscan/internal/sign"
	"github.com/cardscan/cardscan/internal/suggest"
)

// env is what a subcommand runs with: its arguments (after its name) and
// the standard streams.
type env struct {
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
	con            *console.Console
}

// command is a subcommand of cardscan. The table below is the only list
// of them: Run dispatches through it, and cardscan's usage, the typo
// suggestions, the completion scripts and the manual page are written
// from it, so a new subcommand is one entry (and its file).
type command struct {
	name string
	// usage is the line of cardscan's usage after "cardscan ".
	usage string
	// synopsis and summary are the manual page's and the completion
	// scripts'.
	synopsis, summary string
	// flags declares the subcommand's flags, for completion and the
	// manual page; nil when it takes none.
	flags func() *cmdflag.Set
	// words are the only operands it takes; none means files.
	words func() []string
	run   func(e *env) error
}

// commands are cardscan's subcommands, in the order its usage lists them.
// (Set by init: completion and man, which are in it, read it.)
var commands []command

func init() {
	commands = []command{
		{name: "summary", usage: "summary merge SUMMARY.json ...",
			synopsis: "merge SUMMARY.json ...", summary: "merge the JSON summaries of shards into one",
			run: func(e *env) error { return runSummary(e.args, e.stdin, e.stdout, e.con) }},
		{name: "diff", usage: "diff OLD NEW        (what changed between two dumps; diff --help)",
			synopsis: "[flags] OLD NEW", summary: "what changed between two dumps",
			flags: func() *cmdflag.Set { return newDiffFlagSet(&diffOptions{}) },
			run:   func(e *env) error { return runDiff(e.args, e.stdin, e.stdout, e.con) }},
		{name: "merge", usage: "merge DIGEST ...    (sharded runs' --digest-out as one run; merge --help)",
			synopsis: "[flags] DIGEST ...", summary: "sharded runs' --digest-out as one run",
			flags: func() *cmdflag.Set { return newMergeFlagSet(&mergeOptions{}) },
			run:   func(e *env) error { return runMerge(e.args, e.stdout, e.con) }},
		{name: "report", usage: "report SUMMARY.json [DIFF.jsonl] -o report.html",
			synopsis: "SUMMARY.json [DIFF.jsonl] -o report.html", summary: "an HTML report of a summary",
			flags: func() *cmdflag.Set { return newReportFlagSet(new(string)) },
			run:   func(e *env) error { return runReport(e.args, e.stdin, e.stdout, e.con) }},
		{name: "serve", usage: "serve [flags]       (validation over HTTP; serve --help)",
			synopsis: "[flags]", summary: "validation over HTTP", flags: serve.FlagSet,
			run: func(e *env) error { return serve.Run(e.args, e.stdin, e.stdout, e.stderr) }},
		{name: "fetch", usage: "fetch [flags] ...   (discover and validate served cards; fetch --help)",
			synopsis: "[flags] URL ...", summary: "discover and validate served cards", flags: fetch.FlagSet,
			run: func(e *env) error { return fetch.Run(e.args, e.stdin, e.stdout, e.stderr) }},
		{name: "probe", usage: "probe [flags] ...   (ask each advertised interface, safely; probe --help)",
			synopsis: "[flags] [CARDS ...]", summary: "ask each advertised interface, safely", flags: fetch.ProbeFlagSet,
			run: func(e *env) error { return fetch.RunProbe(e.args, e.stdin, e.stdout, e.stderr) }},
		{name: "sign", usage: "sign --key K CARD   (append an A2A signature to a card; sign --help)",
			synopsis: "--key FILE CARD", summary: "append an A2A signature to a card", flags: sign.FlagSet,
			run: func(e *env) error { return sign.Run(e.args, e.stdin, e.stdout, e.stderr) }},
		{name: "verify", usage: "verify [--explain] CARD (why a card's signatures verify or not)",
			synopsis: "[flags] CARD", summary: "why a card's signatures verify or not",
			flags: func() *cmdflag.Set { return newVerifyFlagSet(&verifyOptions{}) },
			run:   func(e *env) error { return runVerify(e.args, e.stdin, e.stdout, e.con) }},
		{name: "mcp", usage: "mcp [flags]         (the validator as an MCP server; mcp --help)",
			synopsis: "[flags]", summary: "the validator as an MCP server", flags: mcpserver.FlagSet,
			run: func(e *env) error { return mcpserver.Run(e.args, e.stdin, e.stdout, e.stderr) }},
		{name: "lsp", usage: "lsp [flags]         (a language server for editors; lsp --help)",
			synopsis: "[flags]", summary: "a language server for editors", flags: lspserver.FlagSet,
			run: func(e *env) error { return lspserver.Run(e.args, e.stdin, e.stdout, e.stderr, lspPolicy) }},
		{name: "explain", usage: "explain RULE        (what a rule checks, why, and how to fix it)",
			synopsis: "[--format FORMAT] RULE", summary: "what a rule checks, why, and how to fix it", words: ruleIDs,
			flags: func() *cmdflag.Set { return newExplainFlagSet(new(string)) },
			run:   func(e *env) error { return runExplain(e.args, e.stdout, e.con) }},
		{name: "migrate", usage: "migrate --to REL ...  (move cards between A2A releases; migrate --help)",
			synopsis: "--to RELEASE [flags] [PATH ...]", summary: "move cards between A2A releases",
			flags: func() *cmdflag.Set { return newMigrateFlagSet(&migrateOptions{}) },
			run:   func(e *env) error { return runMigrate(e.args, e.stdin, e.stdout, e.con) }},
		{name: "schema", usage: "schema PROFILE      (a JSON Schema of a profile for editors; schema --help)",
			synopsis: "[flags] PROFILE", summary: "a JSON Schema of a profile for editors",
			flags: func() *cmdflag.Set { return newSchemaFlagSet(new(string), new(bool)) },
			run:   func(e *env) error { return runSchema(e.args, e.stdin, e.stdout, e.con) }},
		{name: "completion", usage: "completion SHELL    (bash, zsh or fish completion script)",
			synopsis: "bash|zsh|fish", summary: "a shell completion script", words: func() []string { return cmdflag.Shells },
			run: func(e *env) error { return runCompletion(e.args, e.stdout, e.con) }},
		{name: "man", usage: "man                 (the manual page, in roff)",
			summary: "this manual page, in roff",
			run:     func(e *env) error { return runMan(e.args, e.stdout, e.con) }},
	}
}

// lookupCommand returns the subcommand named name.
func lookupCommand(name string) (*command, bool) {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i], true
		}
	}
	return nil, false
}

// nearestSubcommand returns the subcommand closest to name within two
// edits (insertions, deletions, substitutions or swaps of neighbours),
// the first in the table's order among equals, or "".
func nearestSubcommand(name string) string {
	best, bestDist := "", 3
	for _, c := range commands {
		if d := suggest.Distance(name, c.name); d < bestDist {
			best, bestDist = c.name, d
		}
	}
	return best
}

// subcommandUsage is the usage's lines of the subcommands.
func subcommandUsage() string {
	var b []byte
	for _, c := range commands {
		b = append(b, "       cardscan "+c.usage+"\n"...)
	}
	return string(b)
}
