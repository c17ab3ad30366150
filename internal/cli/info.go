package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"text/tabwriter"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
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
func listRules(w io.Writer, profile string) error {
	if err := cmdflag.CheckProfile(profile); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tPROFILES\tDESCRIPTION")
	for _, r := range fastvalidate.Rules() {
		if profile != "auto" && !r.InProfile(profile) {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Profiles, r.Description)
	}
	return tw.Flush()
}

// runSummary is `cardscan summary merge A.json B.json ...`: it adds up the
// summaries of shards and prints the total.
func runSummary(args []string, stdout io.Writer, con *console.Console) int {
	if len(args) == 0 || args[0] != "merge" {
		con.Errorf("usage: cardscan summary merge SUMMARY.json ...")
		return console.ExitUsage
	}
	if len(args) == 1 {
		con.Errorf("summary merge: no summary files given")
		return console.ExitUsage
	}
	var total summary.Summary
	for _, path := range args[1:] {
		b, err := os.ReadFile(path)
		if err != nil {
			con.Errorf("%s: %s", path, describe(err))
			return console.ExitIO
		}
		s, err := summary.Unmarshal(b)
		if err != nil {
			con.Errorf("%s", notASummary(path, err))
			return console.ExitIO
		}
		if err := total.Add(s); err != nil {
			con.Errorf("summary merge: %s: %s", path, err)
			return console.ExitIO
		}
	}
	if err := total.WriteFile("-", stdout); err != nil {
		if isClosedPipe(err) {
			return console.ExitOK
		}
		con.Errorf("writing stdout: %s", err)
		return console.ExitIO
	}
	return console.ExitOK
}
