package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/cardscan/cardscan/rule"

	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/suggest"
	"github.com/cardscan/cardscan/internal/summary"
)

// version describes the build: the module version (or "devel" in a
// checkout), the VCS revision when recorded, and the Go version.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "-dirty"
			}
		}
	}
	if rev != "" {
		v += " " + rev[:min(12, len(rev))] + modified
	}
	return v + " " + info.GoVersion
}

// listRules prints the rule table: ID, severity, profiles, description.
// A profile other than auto (the default, which lists every rule) lists
// only the rules a run under it can report.
func listRules(w io.Writer, profile string, format report.Format) error {
	if err := cmdflag.CheckProfile(profile); err != nil {
		return err
	}
	if format == report.FormatJSONL {
		return listRulesJSONL(w, profile)
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tPROFILES\tDESCRIPTION")
	for _, r := range rule.All() {
		if profile != "auto" && !r.InProfile(profile) {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Profiles, r.Description)
	}
	return tw.Flush()
}

const summaryUsage = `usage: cardscan summary merge SUMMARY.json ...

Adds up the --summary files of runs over parts of one dump (the shards
of docs/cli.md) and writes the total, one summary, to standard output.
'-' reads a summary from standard input. One file named twice is
refused: its counts would be added to themselves.

exit status: 0 written, 2 usage error, 3 a summary could not be read or
added up, or the total not written.
`

// runSummary is `cardscan summary merge A.json B.json ...`: it adds up the
// summaries of shards and prints the total.
func runSummary(args []string, stdin io.Reader, stdout io.Writer, con *console.Console) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		return writeOut(stdout, summaryUsage)
	}
	if len(args) == 0 || args[0] != "merge" {
		if len(args) > 0 && suggest.Nearest(args[0], []string{"merge"}) != "" {
			return cmderr.Usage("cardscan summary", fmt.Errorf("unknown summary command %q: did you mean merge?", args[0]))
		}
		return cmderr.Usage("cardscan summary", errors.New("want: cardscan summary merge SUMMARY.json [SUMMARY.json]"))
	}
	var fs cmdflag.Set
	paths, err := fs.Parse(args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return writeOut(stdout, summaryUsage)
	}
	if err == nil && len(paths) == 0 {
		err = errors.New("summary merge: no summary files given")
	}
	if err == nil {
		err = sameFiles(paths, stdin)
	}
	if err != nil {
		return cmderr.Usage("cardscan summary merge", err)
	}
	inputs := make([]clobber.File, 0, len(paths))
	for _, path := range paths {
		inputs = append(inputs, clobber.File{Role: "the summary", Path: path})
	}
	if err := guardFiles(inputs, []clobber.File{{Role: "standard output", Path: "-"}}, stdin, stdout); err != nil {
		return cmderr.UsageStop(fmt.Errorf("summary merge: %s", err))
	}
	var total summary.Summary
	for _, path := range paths {
		name := path
		if path == "-" {
			name = stdinName
		}
		b, err := readSummaryFile(path, stdin)
		if err != nil {
			return cmderr.IOf("%s: %s", name, err)
		}
		s, err := summary.Unmarshal(b)
		if err != nil {
			return cmderr.IOf("%s", notASummary(name, err))
		}
		if err := total.Add(s); err != nil {
			return cmderr.IOf("summary merge: %s: %s", name, err)
		}
	}
	if err := total.WriteFile("-", stdout); err != nil {
		if isClosedPipe(err) {
			return nil
		}
		return cmderr.IOf("writing stdout: %s", err)
	}
	return nil
}

// listRulesJSONL writes a JSON object per rule of profile ("auto": every
// rule): {"id","severity","profiles":[...],"description"}.
func listRulesJSONL(w io.Writer, profile string) error {
	var b []byte
	for _, r := range rule.All() {
		if profile != "auto" && !r.InProfile(profile) {
			continue
		}
		b = append(b, `{"id":`...)
		b = report.AppendJSONString(b, r.ID)
		b = append(b, `,"severity":`...)
		b = report.AppendJSONString(b, r.Severity.String())
		b = append(b, `,"profiles":[`...)
		for i, p := range strings.Split(r.Profiles.String(), ",") {
			if i > 0 {
				b = append(b, ',')
			}
			b = report.AppendJSONString(b, p)
		}
		b = append(b, `],"description":`...)
		b = report.AppendJSONString(b, r.Description)
		b = append(b, "}\n"...)
	}
	_, err := w.Write(b)
	return err
}
