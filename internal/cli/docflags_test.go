package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/cmdflag"
)

// flagHome is the page that documents each command's flags in full, the
// one a user of the command reads: --help prints them in short, so a flag
// missing there, or shown with another default, is one the user meets
// only by accident.
var flagHome = map[string]string{
	"cardscan":   "cli.md",
	"diff":       "cli.md",
	"merge":      "cli.md",
	"report":     "cli.md",
	"fetch":      "cli.md",
	"probe":      "cli.md",
	"explain":    "cli.md",
	"migrate":    "cli.md",
	"schema":     "cli.md",
	"completion": "cli.md",
	"man":        "cli.md",
	"summary":    "cli.md",
	"serve":      "design.md",
	"sign":       "signatures.md",
	"verify":     "signatures.md",
	"mcp":        "mcp.md",
	"lsp":        "editors.md",
}

// docsDir is docs/ of the checkout the test runs in.
const docsDir = "../../docs"

// TestDocsNameEveryFlag: every flag a command declares, and so shows in
// its --help and the manual page, is named on the page that documents the
// command.
func TestDocsNameEveryFlag(t *testing.T) {
	tree := commandTree()
	for _, c := range append([]cmdflag.Command{tree}, tree.Subcommands...) {
		page, ok := flagHome[c.Name]
		if !ok {
			t.Errorf("command %s has no page in flagHome: say where its flags are documented", c.Name)
			continue
		}
		if c.Flags == nil {
			continue
		}
		text := readDoc(t, page)
		for _, f := range c.Flags.Flags() {
			if !namesFlag(text, f.Long) {
				t.Errorf("docs/%s does not name --%s, a flag of %s (%s)", page, f.Long, commandLine(c), firstHelpLine(f))
			}
		}
	}
}

// TestDocsFlagDefaults: where a table row of a command's page documents one
// of its flags and states a default, or a synopsis shows the flag with a
// value ("cardscan serve [--listen 127.0.0.1:8089]"), that is the declared
// default, which --help shows.
func TestDocsFlagDefaults(t *testing.T) {
	tree := commandTree()
	compared := 0
	for _, c := range append([]cmdflag.Command{tree}, tree.Subcommands...) {
		if c.Flags == nil {
			continue
		}
		page := flagHome[c.Name]
		text := readDoc(t, page)
		rows := flagRows(page, text, commandLine(c))
		synopses := synopsisDefaults(text, commandLine(c))
		for _, f := range c.Flags.Flags() {
			if f.Default == "" {
				continue
			}
			for _, row := range append(rows[f.Long], synopses[f.Long]...) {
				if row.stated == "" {
					continue
				}
				compared++
				if normalizeDefault(row.stated) != normalizeDefault(f.Default) {
					t.Errorf("docs/%s:%d: --%s of %s: the page says default %q, --help says %q", page, row.line, f.Long, commandLine(c), row.stated, f.Default)
				}
			}
		}
	}
	// The pages state dozens; none found means the tables or synopses
	// changed shape and this test no longer reads them.
	if compared < 20 {
		t.Errorf("only %d defaults stated in the docs were found to compare: the tables or synopses changed shape", compared)
	}
}

// TestDocsFlagTablesNameDeclaredFlags: a flag table documents only flags
// the command takes, so a flag renamed or dropped cannot live on in the
// docs.
func TestDocsFlagTablesNameDeclaredFlags(t *testing.T) {
	tree := commandTree()
	listed := 0
	for _, c := range append([]cmdflag.Command{tree}, tree.Subcommands...) {
		page := flagHome[c.Name]
		if _, ok := pageCommand[page]; !ok {
			continue
		}
		declared := map[string]bool{}
		if c.Flags != nil {
			for _, f := range c.Flags.Flags() {
				declared[f.Long] = true
			}
		}
		for name, rows := range flagRows(page, readDoc(t, page), commandLine(c)) {
			listed++
			if !declared[name] {
				t.Errorf("docs/%s:%d documents --%s, which %s does not take (%s --help lists its flags)", page, rows[0].line, name, commandLine(c), commandLine(c))
			}
		}
	}
	if listed < 50 {
		t.Errorf("only %d flags found in the docs' flag tables: the tables changed shape", listed)
	}
}

// TestCLIDocSynopsisNamesEverySubcommand: cli.md's synopsis, the first
// thing a user of the command reads, lists every subcommand --help lists.
func TestCLIDocSynopsisNamesEverySubcommand(t *testing.T) {
	text := readDoc(t, "cli.md")
	_, rest, _ := strings.Cut(text, "```sh\n")
	synopsis, _, _ := strings.Cut(rest, "```")
	for _, c := range commandTree().Subcommands {
		if !strings.Contains(synopsis, "\ncardscan "+c.Name+" ") {
			t.Errorf("the synopsis at the top of docs/cli.md has no line for %s", commandLine(c))
		}
	}
}

func commandLine(c cmdflag.Command) string {
	if c.Name == "cardscan" {
		return "cardscan"
	}
	return "cardscan " + c.Name
}

func firstHelpLine(f *cmdflag.Flag) string {
	line, _, _ := strings.Cut(f.Help, "\n")
	return line
}

func readDoc(t *testing.T, page string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(docsDir, page))
	if err != nil {
		t.Fatalf("the documentation beside the code: %v", err)
	}
	return string(text)
}

// namesFlag says whether text names --long as a whole word: --format does
// not count as --format-version, nor --key as --keys.
func namesFlag(text, long string) bool {
	return regexp.MustCompile(`--` + regexp.QuoteMeta(long) + `(?:[^a-z0-9-]|$)`).MatchString(text)
}

type flagRow struct {
	line   int
	stated string // the default the row states, "" for none
}

var (
	tableFlag = regexp.MustCompile("`(?:-[a-z], )?--([a-z0-9-]+)[^`]*`")
	// "(default `16MiB`", "(default 8)", "(default `text`;": the value after.
	defaultAfter = regexp.MustCompile("\\(default (`[^`]+`|[0-9][^ ;,)]*)")
	// "`check` (default)": the value before.
	defaultBefore = regexp.MustCompile("`([^`]+)` \\(default[);:]")
)

// pageCommand is the command a page's sections are about unless their
// heading names another.
var pageCommand = map[string]string{
	"cli.md":     "cardscan",
	"mcp.md":     "cardscan mcp",
	"editors.md": "cardscan lsp",
}

// flagRows finds the rows of a page's flag tables (headed "| flag |") by
// the flags their first cell names, with the default a row of one flag
// states. A table whose
// header has a "default" column states it there. Tables under a section
// about another command are left out: "`--format`" of cardscan fetch is not
// cardscan's.
func flagRows(page, text, command string) map[string][]flagRow {
	rows := map[string][]flagRow{}
	inFlagTable, defaultColumn := false, -1
	about := pageCommand[page]
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "## ") {
			about = sectionCommand(line, pageCommand[page])
		}
		if !strings.HasPrefix(line, "|") {
			inFlagTable = false
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if cells[0] == "flag" {
			inFlagTable, defaultColumn = true, -1
			for j, c := range cells {
				if c == "default" {
					defaultColumn = j
				}
			}
			continue
		}
		if !inFlagTable || about != command {
			continue
		}
		named := tableFlag.FindAllStringSubmatch(cells[0], -1)
		row := flagRow{line: i + 1}
		// A row of several flags ("--timeout D, --connect-timeout D")
		// states their defaults together, in an order not worth parsing.
		if len(named) == 1 {
			row.stated = statedDefault(cells, defaultColumn)
		}
		for _, m := range named {
			rows[m[1]] = append(rows[m[1]], row)
		}
	}
	return rows
}

// statedDefault is the default a flag table's row states, "" for none.
func statedDefault(cells []string, defaultColumn int) string {
	rest := strings.Join(cells[1:], " | ")
	switch {
	case defaultColumn > 0 && defaultColumn < len(cells):
		return cells[defaultColumn]
	case defaultAfter.MatchString(rest):
		return defaultAfter.FindStringSubmatch(rest)[1]
	case defaultBefore.MatchString(rest):
		return defaultBefore.FindStringSubmatch(rest)[1]
	}
	return ""
}

// sectionCommand is the command a section documents: the one its heading
// names ("## `cardscan fetch`"), else the page's.
func sectionCommand(heading, page string) string {
	m := sectionTitle.FindStringSubmatch(heading)
	if m == nil {
		return page
	}
	return m[1]
}

var sectionTitle = regexp.MustCompile("`(cardscan[a-z ]*)`")

// normalizeDefault makes "8 MiB" and "8MiB", "`text`" and "text", "10 s"
// and "10s" one value.
func normalizeDefault(s string) string {
	return strings.ReplaceAll(strings.Trim(s, "`"), " ", "")
}

// synopsisFlag is "[--listen 127.0.0.1:8089]" in a synopsis: a flag shown
// with a value, not a placeholder (FILE) nor a choice (as-is|drop-empty).
// A synopsis shows a flag's default that way, and its choices as a|b.
var synopsisFlag = regexp.MustCompile(`\[--([a-z0-9-]+)[ =]([^\]A-Z| ]+)\]`)

// synopsisDefaults finds the values a page's code blocks show for
// command's flags in its synopses: lines that start with the command, and
// the indented lines that continue them.
func synopsisDefaults(text, command string) map[string][]flagRow {
	rows := map[string][]flagRow{}
	fenced, current := false, ""
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced, current = !fenced, ""
			continue
		}
		if !fenced {
			continue
		}
		switch {
		case strings.HasPrefix(line, "cardscan "):
			current = synopsisCommand(line)
		case !strings.HasPrefix(line, " "):
			current = ""
		}
		if current != command {
			continue
		}
		for _, m := range synopsisFlag.FindAllStringSubmatch(line, -1) {
			rows[m[1]] = append(rows[m[1]], flagRow{line: i + 1, stated: m[2]})
		}
	}
	return rows
}

// synopsisCommand is the command a line of a code block runs: cardscan
// itself, or a subcommand named by its first operand.
func synopsisCommand(line string) string {
	fields := strings.Fields(line)
	for _, c := range commands {
		if len(fields) > 1 && fields[1] == c.name {
			return "cardscan " + c.name
		}
	}
	return "cardscan"
}

var (
	// codeSpanCommand is an inline command: `cardscan diff --key id OLD NEW`.
	codeSpanCommand = regexp.MustCompile("`((?:bin/|\\./)?cardscan [^`]+)`")
	// typedFlag is a flag as typed in a command, not inside a word
	// (x--y) or a longer flag.
	typedFlag = regexp.MustCompile(`(?:^|[^\w-])--([a-z][a-z0-9-]*)`)
)

// TestDocsCommandsUseDeclaredFlags: every cardscan command the docs show,
// in a code span or a line of a code block, uses only flags the command
// (or the subcommand it names) takes: a user who copies it gets no
// "unknown flag".
func TestDocsCommandsUseDeclaredFlags(t *testing.T) {
	tree := commandTree()
	declared := map[string]map[string]bool{}
	for _, c := range append([]cmdflag.Command{tree}, tree.Subcommands...) {
		declared[c.Name] = map[string]bool{"help": true}
		if c.Flags != nil {
			for _, f := range c.Flags.Flags() {
				declared[c.Name][f.Long] = true
			}
		}
	}
	pages, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in %s: %v", docsDir, err)
	}
	checked := 0
	for _, page := range append([]string{filepath.Join(docsDir, "..", "README.md")}, pages...) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, cmd := range shownCommands(string(text)) {
			checked++
			name := "cardscan"
			if words := strings.Fields(cmd); len(words) > 1 && declared[words[1]] != nil {
				name = words[1]
			}
			for _, m := range typedFlag.FindAllStringSubmatch(cmd, -1) {
				if !declared[name][m[1]] {
					t.Errorf("%s shows %q: --%s is no flag of %s", filepath.Base(page), cmd, m[1], name)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d cardscan commands found in the docs: the pattern no longer finds them", checked)
	}
}

// shownCommands returns the cardscan commands a page shows: its code spans
// that start with cardscan, and in its code blocks each command of a line
// (after a "$ " prompt, a pipe, ";" or "&&", its backslash continuations
// joined) that does, up to a comment.
func shownCommands(text string) []string {
	var cmds []string
	for _, m := range codeSpanCommand.FindAllStringSubmatch(text, -1) {
		cmds = append(cmds, strings.Join(strings.Fields(m[1]), " "))
	}
	fenced, continued := false, ""
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced, continued = !fenced, ""
			continue
		}
		if !fenced {
			continue
		}
		// A line ending in a backslash goes on on the next.
		if more, ok := strings.CutSuffix(line, "\\"); ok {
			continued += more + " "
			continue
		}
		line, continued = continued+line, ""
		line, _, _ = strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "$ "), " #")
		for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == '|' || r == ';' || r == '&' }) {
			part = strings.TrimSpace(part)
			for _, prefix := range []string{"cardscan ", "bin/cardscan ", "./cardscan "} {
				if strings.HasPrefix(part, prefix) {
					cmds = append(cmds, strings.TrimPrefix(part, strings.TrimSuffix(prefix, "cardscan ")))
				}
			}
		}
	}
	return cmds
}

// exitStatus is a status in the first column of cli.md's table.
var exitStatus = regexp.MustCompile(`^\d+$`)

// TestHelpNamesEveryExitStatusOfCLIDoc: every exit status the table of
// docs/cli.md's "Exit status" lists is in --help's, and so the manual
// page's, exit status paragraph, so that a script's author who reads
// only those learns what 130 means.
func TestHelpNamesEveryExitStatusOfCLIDoc(t *testing.T) {
	text := readDoc(t, "cli.md")
	_, section, ok := strings.Cut(text, "\n## Exit status\n")
	if !ok {
		t.Fatal(`docs/cli.md has no "## Exit status" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	statuses := 0
	for _, line := range strings.Split(section, "\n") {
		first, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		if !ok || !strings.HasPrefix(line, "| ") {
			continue
		}
		for _, n := range strings.Split(first, ", ") {
			if !exitStatus.MatchString(n) {
				continue
			}
			statuses++
			if !regexp.MustCompile(`\b` + n + `\b`).MatchString(usageTail) {
				t.Errorf("docs/cli.md's exit status %s is not in --help's: %q", n, strings.TrimSpace(usageTail))
			}
		}
	}
	if statuses < 5 {
		t.Errorf("only %d exit statuses found in docs/cli.md's table: it changed shape", statuses)
	}
}
