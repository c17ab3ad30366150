package cmdflag

import (
	"fmt"
	"strings"
)

// ManPage is what a manual page says beside the flags: the sections the
// declarations cannot write.
type ManPage struct {
	Section     string // "1"
	Source      string // the program and version, the page footer's middle
	Description string // paragraphs separated by blank lines
	ExitStatus  string // paragraphs, as Description
	SeeAlso     string
}

// Man returns c's manual page in roff (the man macros): the name and
// summary, a synopsis line per command, the description, then each
// command's flags as declared, with their defaults.
func (c Command) Man(p ManPage) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH %s %s \"\" %s\n", roffArg(strings.ToUpper(c.Name)), p.Section, roffArg(p.Source))
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", roffText(c.Name), roffText(c.Summary))
	b.WriteString(".SH SYNOPSIS\n")
	fmt.Fprintf(&b, ".B %s\n%s\n", roffText(c.Name), roffText(c.Synopsis))
	for _, s := range c.Subcommands {
		fmt.Fprintf(&b, ".br\n.B %s %s\n%s\n", roffText(c.Name), roffText(s.Name), roffText(s.Synopsis))
	}
	b.WriteString(".SH DESCRIPTION\n")
	writeParagraphs(&b, p.Description)
	b.WriteString(".SH OPTIONS\n")
	writeFlags(&b, c.Flags)
	if len(c.Subcommands) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, s := range c.Subcommands {
			fmt.Fprintf(&b, ".SS %s %s\n", roffText(c.Name), roffText(s.Name))
			fmt.Fprintf(&b, "%s\n", roffText(s.Summary))
			writeFlags(&b, s.Flags)
		}
	}
	if p.ExitStatus != "" {
		b.WriteString(".SH EXIT STATUS\n")
		writeParagraphs(&b, p.ExitStatus)
	}
	if p.SeeAlso != "" {
		b.WriteString(".SH SEE ALSO\n")
		writeParagraphs(&b, p.SeeAlso)
	}
	return b.String()
}

func writeParagraphs(b *strings.Builder, text string) {
	for i, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		b.WriteString(roffText(strings.Join(strings.Fields(para), " ")) + "\n")
	}
}

// writeFlags writes a tagged paragraph per flag: its names and value in
// bold and italics, then its help and default.
func writeFlags(b *strings.Builder, s *Set) {
	if s == nil {
		return
	}
	for _, f := range s.flags {
		tag := `\fB\-\-` + roffText(f.Long) + `\fR`
		if f.Short != "" {
			tag = `\fB\-` + roffText(f.Short) + `\fR, ` + tag
		}
		if f.Arg != "" {
			tag += ` \fI` + roffText(f.Arg) + `\fR`
		}
		help := firstLine(f.Help)
		if f.Default != "" {
			help += " (default " + f.Default + ")"
		}
		fmt.Fprintf(b, ".TP\n%s\n%s\n", tag, roffText(help))
	}
}

// roffText escapes text for a roff line: backslashes, hyphens (a plain -
// may print as a hyphen, not the minus an option needs) and a leading dot
// or quote, which would make the line a request.
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffArg is text as one quoted argument of a request.
func roffArg(s string) string {
	return `"` + strings.ReplaceAll(roffText(s), `"`, `""`) + `"`
}
