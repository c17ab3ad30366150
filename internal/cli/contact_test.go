package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyFlagValues: a flag with no default given an empty value, as
// --summary="$OUT" with OUT unset gives it, is a usage error naming the
// flag; it was taken for the flag left out, and the run wrote no summary
// and said nothing.
func TestEmptyFlagValues(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "cards.ndjson"), readFile(t, cardsFile))
	for _, args := range [][]string{
		{"--summary=", in},
		{"--valid-out", "", in},
		{"--invalid-out=", in},
		{"--digest-out=", in},
		{"--config=", in},
		{"--now=", in},
		{"--stdin-filename=", in},
		{"--shard=", in},
		{"diff", "--summary=", in, in},
		{"verify", "--trust=", in},
		{"migrate", "--to", "a2a/1.0", "--report=", in},
	} {
		r := run(t, "", args...)
		flag := args[0]
		if flag == "diff" || flag == "verify" || flag == "migrate" {
			flag = args[1]
			if flag == "--to" {
				flag = args[3]
			}
		}
		flag = strings.TrimSuffix(flag, "=")
		if r.code != 2 || !strings.Contains(r.stderr, flag+` "": `) || !strings.Contains(r.stderr, "may not be empty") {
			t.Errorf("%q: exit %d, stderr %q; want 2 naming %s as empty", args, r.code, r.stderr, flag)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 1 {
		t.Errorf("files in %s: %v, %v; want only the input", dir, entries, err)
	}
}

// TestJobsBoundsSaid: the error for a -j out of range says what is
// accepted, 0 among it.
func TestJobsBoundsSaid(t *testing.T) {
	if r := run(t, "", "-j", "0", cardsFile); r.code > 1 {
		t.Fatalf("-j 0: exit %d: %s", r.code, r.stderr)
	}
	for _, j := range []string{"-1", "5000"} {
		r := run(t, "", "-j", j, cardsFile)
		if r.code != 2 || !strings.Contains(r.stderr, "-j "+j+": want 1 to 4096 workers, or 0 for one per CPU") {
			t.Errorf("-j %s: exit %d, stderr %q", j, r.code, r.stderr)
		}
	}
}

// TestSizeTooLargeSaid: a SIZE past the largest is named too large, in
// the unit the help writes sizes in, not called no size at all.
func TestSizeTooLargeSaid(t *testing.T) {
	for flag, want := range map[string]string{
		"2TiB": `"2TiB" is more than 1TiB, the largest size`,
		"1e3":  `"1e3" is not a size such as 4096, 64KiB or 16MiB`,
	} {
		r := run(t, "", "--max-record", flag, cardsFile)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("--max-record %s: exit %d, stderr %q; want 2 and %s", flag, r.code, r.stderr, want)
		}
	}
}

// TestEmptyChoiceValues: a flag of fixed choices given an empty value is
// a usage error naming the choices; --shard-by= was taken for auto.
func TestEmptyChoiceValues(t *testing.T) {
	for flag, want := range map[string]string{
		"--shard-by=": `--shard-by "": want auto, file or record`,
		"--format=":   `--format "": want text, jsonl`,
		"--input=":    `--input "": want auto, ndjson or json`,
	} {
		r := run(t, "", flag, cardsFile)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %s", flag, r.code, r.stderr, want)
		}
	}
}

// TestSameInputTwice: one file named twice (again, by another path, by a
// link, or as standard input too) is a usage error naming both: each of
// its cards was judged and counted twice, and --cross-card took each for
// a duplicate of itself.
func TestSameInputTwice(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "cards.ndjson"), readFile(t, cardsFile))
	other := writeFile(t, filepath.Join(dir, "other.ndjson"), readFile(t, cardsFile))
	link := filepath.Join(dir, "link.ndjson")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(sub, "hard.ndjson")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{in, in},
		{"--cross-card", in, dir + "/./cards.ndjson"},
		{in, link},
		{sub, in},
	} {
		r := run(t, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "are the same file") || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and the two names", args, r.code, r.stdout, r.stderr)
		}
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errOut strings.Builder
	if code := Run([]string{in, "-"}, f, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "<stdin>") {
		t.Errorf("standard input from an operand: exit %d, stderr %q", code, errOut.String())
	}
	// A copy is another file, judged as such; so are the files of a walk.
	if r := run(t, "", "--cross-card", in, other); r.code != 1 || !strings.Contains(r.stdout, "dump.duplicate-card") {
		t.Errorf("a copy: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestVerifyNamesTheCardOnce: verify named a card it could not read
// twice ("dir: dir: is a directory"), and standard input as "-" where
// every other command says <stdin>.
func TestVerifyNamesTheCardOnce(t *testing.T) {
	f := newSigFixture(t)
	missing := filepath.Join(f.dir, "missing.json")
	for path, want := range map[string]string{
		missing: "cardscan: error: " + missing + ": no such file or directory\n",
		f.dir:   "cardscan: error: " + f.dir + ": is a directory\n",
	} {
		r := run(t, "", "verify", "--keys", f.keys, path)
		if r.code != 3 || r.stderr != want {
			t.Errorf("verify %s: exit %d, stderr %q; want 3 and %q", path, r.code, r.stderr, want)
		}
	}
	r := run(t, "{\"a\":1,\"a\":2}", "verify", "--keys", f.keys, "-")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "cardscan: error: <stdin>:1:8: ") {
		t.Errorf("verify -: exit %d, stderr %q; want 1 and <stdin>:1:8", r.code, r.stderr)
	}
	r = run(t, "{}", "verify", "--keys", f.keys, "-")
	if r.code != 1 || r.stdout != "<stdin>: not signed\n" {
		t.Errorf("verify -: exit %d, stdout %q; want 1 and <stdin>: not signed", r.code, r.stdout)
	}
}

// TestSummaryMergeArguments: summary merge took every argument for a
// file: --help was "--help: no such file or directory" (status 3), as
// were a flag it does not know and "-"; one file named twice was added
// to itself, doubling every count.
func TestSummaryMergeArguments(t *testing.T) {
	dir := t.TempDir()
	sum := filepath.Join(dir, "s.json")
	if r := run(t, "", "--summary", sum, cardsFile); r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"summary", "merge", "--help"}, {"summary", "--help"}, {"summary", "-h"}} {
		if r := run(t, "", args...); r.code != 0 || !strings.HasPrefix(r.stdout, "usage: cardscan summary merge") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want the usage", args, r.code, r.stdout, r.stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"summary", "merge", "-o", "x", sum}, "unknown flag -o"},
		{[]string{"summary", "mrege", sum}, "did you mean merge?"},
		{[]string{"summary", "merge", sum, sum}, "are the same file"},
		{[]string{"summary", "merge", sum, dir + "/./s.json"}, "are the same file"},
		{[]string{"summary", "merge", "-", "-"}, "standard input twice"},
	} {
		if r := run(t, "", tc.args...); r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	one := run(t, "", "summary", "merge", sum)
	fromStdin := run(t, string(readFile(t, sum)), "summary", "merge", "-")
	if one.code != 0 || fromStdin.code != 0 || fromStdin.stdout != one.stdout {
		t.Errorf("summary merge -: exit %d, %q; want %q", fromStdin.code, fromStdin.stdout+fromStdin.stderr, one.stdout)
	}
}

// TestReportNamesStandardInput: report named standard input "-" in its
// errors, where every other command says <stdin>.
func TestReportNamesStandardInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	r := run(t, "{\"records\":", "report", "-", "-o", out)
	if r.code != 3 || !strings.HasPrefix(r.stderr, "cardscan: error: <stdin>:1:") {
		t.Errorf("exit %d, stderr %q; want 3 and <stdin>:1:", r.code, r.stderr)
	}
	sum := filepath.Join(t.TempDir(), "s.json")
	if r := run(t, "", "--summary", sum, cardsFile); r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	r = run(t, "nope\n", "report", sum, "-", "-o", out)
	if r.code != 3 || !strings.HasPrefix(r.stderr, "cardscan: error: <stdin>:1:2: ") {
		t.Errorf("diff from stdin: exit %d, stderr %q; want 3 and <stdin>:1:2", r.code, r.stderr)
	}
}

// TestMaxWarningsOneWarning: the summary line said "1 warnings" when one
// warning passed --max-warnings 0.
func TestMaxWarningsOneWarning(t *testing.T) {
	lines := strings.Split(string(readFile(t, cardsFile)), "\n")
	r := run(t, lines[7]+"\n", "--max-warnings", "0") // a valid card with a warning
	if r.code != exitInvalid || !strings.HasSuffix(r.stderr, "; 1 warning, more than --max-warnings 0\n") {
		t.Errorf("exit %d, stderr %q; want 1 and \"1 warning, more than\"", r.code, r.stderr)
	}
}

// TestDigestPartsNeedsDigestOut: --digest-parts without --digest-out
// split nothing and said nothing; the user asked for parts no run writes.
func TestDigestPartsNeedsDigestOut(t *testing.T) {
	for _, args := range [][]string{{"--digest-parts", "4", cardsFile}, {"diff", "--digest-parts", "4", cardsFile, cardsFile}} {
		r := run(t, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "--digest-parts 4 needs --digest-out") {
			t.Errorf("%q: exit %d, stderr %q; want 2", args, r.code, r.stderr)
		}
	}
}

// TestListRulesTakesNoPaths: --list-rules with paths printed the rules
// and judged none of the files named, with status 0, as if it had.
func TestListRulesTakesNoPaths(t *testing.T) {
	r := run(t, "", "--list-rules", cardsFile)
	if r.code != 2 || !strings.Contains(r.stderr, "--list-rules judges no card") || r.stdout != "" {
		t.Errorf("exit %d, stdout %d bytes, stderr %q; want 2", r.code, len(r.stdout), r.stderr)
	}
	// "drop the paths, or --list-rules to judge them" offered --list-rules
	// as the way to judge the paths: each way out names what to drop.
	for _, want := range []string{"drop the paths to list the rules", "or drop --list-rules to judge the paths"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q; want it to say %q", r.stderr, want)
		}
	}
	if r := run(t, "", "--list-rules", "--profile", "ma2d"); r.code != 0 || !strings.Contains(r.stdout, "ma2d.name") {
		t.Errorf("--list-rules --profile ma2d: exit %d, stderr %q", r.code, r.stderr)
	}
}
