package cli

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
)

// shellScript writes `cardscan completion shell` to a file and returns its
// path, skipping the test, naming the Debian package, when the shell is
// not installed.
func shellScript(t *testing.T, shell string) (path, bin string) {
	t.Helper()
	bin, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed (Debian package %s; make debian-packages installs it)", shell, shell)
	}
	r := run(t, "", "completion", shell)
	if r.code != cmderr.StatusOK || r.stderr != "" {
		t.Fatalf("completion %s: exit %d, stderr %q", shell, r.code, r.stderr)
	}
	return writeFile(t, filepath.Join(t.TempDir(), "cardscan."+shell), []byte(r.stdout)), bin
}

func runShell(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	// An empty directory, so that no file name joins the completions.
	cmd.Dir = t.TempDir()
	cmd.Env = append(cmd.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s %q: %v\n%s%s", bin, args, err, out, stderr)
	}
	return string(out)
}

// TestCompletionBash sources the bash script in bash, sets COMP_WORDS and
// COMP_CWORD as bash does for a tab, calls the function and reads
// COMPREPLY.
func TestCompletionBash(t *testing.T) {
	script, bash := shellScript(t, "bash")
	complete := func(words ...string) []string {
		t.Helper()
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, shellQuoteTest(w))
		}
		out := runShell(t, bash, "--norc", "--noprofile", "-c",
			`source "$1" || exit 9; COMP_WORDS=(`+strings.Join(quoted, " ")+`); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); `+
				`complete -p cardscan >/dev/null || exit 8; _cardscan; printf '%s\n' "${COMPREPLY[@]}"`, "bash", script)
		return strings.Fields(out)
	}
	for _, c := range []struct {
		words []string
		want  []string
	}{
		{[]string{"cardscan", "--prof"}, []string{"--profile"}},
		{[]string{"cardscan", "--max-r"}, []string{"--max-record"}},
		{[]string{"cardscan", "-q"}, []string{"-q"}},
		{[]string{"cardscan", "sign", "--k"}, []string{"--key", "--kid"}},
		{[]string{"cardscan", "serve", "--prof"}, []string{"--profile"}},
		{[]string{"cardscan", "compl"}, []string{"completion"}},
		{[]string{"cardscan", "completion", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"cardscan", "explain", "a2a.mim"}, []string{"a2a.mime"}},
		// A value that is no file name gets nothing.
		{[]string{"cardscan", "--format", ""}, nil},
		{[]string{"cardscan", "--jobs", "4"}, nil},
	} {
		if got := complete(c.words...); !slices.Equal(got, c.want) {
			t.Errorf("%q: completions %q, want %q", c.words, got, c.want)
		}
	}
	// Every flag cardscan declares, and only those, completes from "--".
	var want []string
	for _, f := range newFlagSet(&options{}).Flags() {
		want = append(want, "--"+f.Long)
	}
	got := complete("cardscan", "--")
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("cardscan --: completions %q, want the declared flags %q", got, want)
	}
	// A FILE value completes file names.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "policy.yaml"), []byte("rules: {}\n"))
	if got := complete("cardscan", "--config", filepath.Join(dir, "pol")); !slices.Equal(got, []string{filepath.Join(dir, "policy.yaml")}) {
		t.Errorf("--config FILE: completions %q, want the file", got)
	}
}

// shellQuoteTest quotes a word for bash's array syntax.
func shellQuoteTest(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TestCompletionZsh sources the zsh script after compinit: it must load
// without error and register _cardscan for cardscan. Then _cardscan runs
// with the completion system's words, CURRENT and PREFIX set as for
// `cardscan --prof<TAB>`, and _describe and compadd standing in to print
// what they are given.
func TestCompletionZsh(t *testing.T) {
	script, zsh := shellScript(t, "zsh")
	out := runShell(t, zsh, "-f", "-c", `autoload -Uz compinit && compinit -u -D || exit 7
source "$1" || exit 9
print -r -- "registered:$_comps[cardscan]"
_describe() { local x; for x in "${(@P)${@[-1]}}"; do print -r -- "describe:$x"; done }
compadd() { local x; [[ $1 == -a ]] && for x in "${(@P)2}"; do print -r -- "compadd:$x"; done }
_files() { print -r -- "_files called" }
words=(cardscan --prof); CURRENT=2; PREFIX=--prof
_cardscan
words=(cardscan completion ''); CURRENT=3; PREFIX=
_cardscan`, "zsh", script)
	if !strings.Contains(out, "registered:_cardscan\n") {
		t.Errorf("the script does not register _cardscan for cardscan:\n%s", out)
	}
	if !strings.Contains(out, "describe:--profile:rule set") {
		t.Errorf("cardscan --prof: --profile not offered:\n%s", out)
	}
	if strings.Contains(out, "describe:serve:") || strings.Contains(out, "_files called") {
		t.Errorf("cardscan --prof: offers subcommands or files:\n%s", out)
	}
	if !strings.Contains(out, "compadd:bash\ncompadd:zsh\ncompadd:fish\n") {
		t.Errorf("cardscan completion: the shells are not offered:\n%s", out)
	}
}

// TestCompletionFish loads the fish script and asks fish itself what it
// completes (complete -C).
func TestCompletionFish(t *testing.T) {
	script, fish := shellScript(t, "fish")
	complete := func(line string) []string {
		t.Helper()
		out := runShell(t, fish, "--no-config", "-c", `source $argv[1]; or exit 9; complete -C $argv[2]`, script, line)
		var words []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			w, _, _ := strings.Cut(l, "\t")
			if w != "" {
				words = append(words, w)
			}
		}
		return words
	}
	for _, c := range []struct {
		line string
		want []string
	}{
		{"cardscan --prof", []string{"--profile"}},
		{"cardscan sign --k", []string{"--key", "--kid"}},
		{"cardscan completion ", []string{"bash", "zsh", "fish"}},
		{"cardscan expl", []string{"explain"}},
	} {
		got := complete(c.line)
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("%q: completions %q, want %q", c.line, got, want)
		}
	}
}

// TestCompletionCommand: `cardscan completion bash` was read as two input
// files (exit 3); it writes the script, and anything but one known shell
// is a usage error.
func TestCompletionCommand(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		r := run(t, "", "completion", shell)
		if r.code != cmderr.StatusOK || !strings.HasPrefix(r.stdout, "#") || !strings.Contains(r.stdout, "max-record") {
			t.Errorf("completion %s: exit %d, stdout %.80q, stderr %q", shell, r.code, r.stdout, r.stderr)
		}
	}
	for _, args := range [][]string{{"completion"}, {"completion", "powershell"}, {"completion", "bash", "zsh"}} {
		if r := run(t, "", args...); r.code != cmderr.StatusUsage || !strings.Contains(r.stderr, "bash, zsh or fish") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error naming the shells", args, r.code, r.stderr)
		}
	}
	if r := run(t, "", "complettion", "bash"); r.code != cmderr.StatusUsage || !strings.Contains(r.stderr, "did you mean completion?") {
		t.Errorf("complettion: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestManPage: `cardscan man` is a roff page with the usual sections and
// every flag of cardscan and its subcommands, which groff reads without a
// warning and man -l renders.
func TestManPage(t *testing.T) {
	r := run(t, "", "man")
	if r.code != cmderr.StatusOK || r.stderr != "" {
		t.Fatalf("man: exit %d, stderr %q", r.code, r.stderr)
	}
	page := r.stdout
	if !strings.HasPrefix(page, `.TH "CARDSCAN" 1 `) {
		t.Errorf("the page does not start with .TH: %.60q", page)
	}
	last := -1
	for _, sh := range []string{".SH NAME\ncardscan \\- ", ".SH SYNOPSIS\n", ".SH DESCRIPTION\n", ".SH OPTIONS\n", ".SH COMMANDS\n", ".SH EXIT STATUS\n0 every card passed"} {
		i := strings.Index(page, sh)
		if i <= last {
			t.Errorf("section %q missing or out of order", sh)
		}
		last = i
	}
	tree := commandTree()
	for _, c := range append([]cmdFlags{{"", tree.Flags.Flags()}}, subcommandFlags(tree)...) {
		for _, f := range c.flags {
			if !strings.Contains(page, `\fB\-\-`+strings.ReplaceAll(f.Long, "-", `\-`)+`\fR`) {
				t.Errorf("%s --%s is not on the page", c.name, f.Long)
			}
		}
	}
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "'") || (strings.HasPrefix(line, ".") && !isManRequest(line)) {
			t.Errorf("a text line reads as a request: %q", line)
		}
	}
	path := writeFile(t, filepath.Join(t.TempDir(), "cardscan.1"), []byte(page))
	if groff, err := exec.LookPath("groff"); err == nil {
		out, err := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z", path).CombinedOutput()
		if err != nil || len(out) != 0 {
			t.Errorf("groff -ww: %v\n%s", err, out)
		}
	} else {
		t.Log("groff is not installed (Debian package groff-base): the page is only checked for its structure")
	}
	if man, err := exec.LookPath("man"); err == nil {
		cmd := exec.Command(man, "-l", path)
		cmd.Env = append(cmd.Environ(), "MANWIDTH=100", "MANPAGER=cat", "PAGER=cat")
		out, err := cmd.Output()
		text := string(out)
		if err != nil || !strings.Contains(text, "--profile NAME") || !strings.Contains(text, "cardscan completion bash|zsh|fish") {
			t.Errorf("man -l: %v\n%s", err, text)
		}
	} else {
		t.Log("man is not installed (Debian package man-db): the page is not rendered")
	}
}

type cmdFlags struct {
	name  string
	flags []*cmdflag.Flag
}

func subcommandFlags(c cmdflag.Command) []cmdFlags {
	var out []cmdFlags
	for _, s := range c.Subcommands {
		if s.Flags != nil {
			out = append(out, cmdFlags{s.Name, s.Flags.Flags()})
		}
	}
	return out
}

// isManRequest says whether a line starting with a dot is one of the
// requests the page is written with.
func isManRequest(line string) bool {
	req, _, _ := strings.Cut(line, " ")
	return slices.Contains([]string{".TH", ".SH", ".SS", ".TP", ".PP", ".B", ".br"}, req)
}

// TestCompletionNamesTheShellGiven: an unknown shell was refused without
// being named, so a typo (fisj) or a hidden character in a script's
// variable could not be told from a missing operand.
func TestCompletionNamesTheShellGiven(t *testing.T) {
	for _, tc := range []struct{ shell, want string }{
		{"fisj", `unknown shell "fisj": want bash, zsh or fish; did you mean fish?`},
		{"powershell", `unknown shell "powershell": want bash, zsh or fish`},
		{"bash\x1b", `unknown shell "bash\x1b": want bash, zsh or fish; did you mean bash?`},
	} {
		r := run(t, "", "completion", tc.shell)
		if r.code != cmderr.StatusUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("completion %q: exit %d, stderr %q; want %q", tc.shell, r.code, r.stderr, tc.want)
		}
	}
}
