package cli

import (
	"bytes"
	"github.com/cardscan/cardscan/cardsig"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportOutputIsAnInput: report -o naming its own summary or diff,
// by the same name, another path, a hard link or a symbolic link, is a
// usage error naming both, and leaves the file as it was.
func TestReportOutputIsAnInput(t *testing.T) {
	dir := t.TempDir()
	sum := writeFile(t, filepath.Join(dir, "s.json"), readFile(t, reportSummary))
	diff := writeFile(t, filepath.Join(dir, "d.jsonl"), readFile(t, reportDiff))
	hard := filepath.Join(dir, "hard.json")
	if err := os.Link(sum, hard); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(dir, "soft.json")
	if err := os.Symlink(sum, soft); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		out  string
	}{
		{[]string{"report", sum, "-o", sum}, sum},
		{[]string{"report", sum, "-o", dir + "/./s.json"}, dir + "/./s.json"},
		{[]string{"report", sum, "-o", hard}, hard},
		{[]string{"report", sum, "-o", soft}, soft},
		{[]string{"report", hard, "-o", sum}, sum},
		{[]string{"report", sum, diff, "-o", diff}, diff},
	} {
		r := run(t, "", tc.args...)
		in := tc.args[len(tc.args)-3]
		if r.code != exitUsage || !strings.Contains(r.stderr, "-o "+tc.out) || !strings.Contains(r.stderr, " "+in) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming %s and %s", tc.args, r.code, r.stderr, tc.out, in)
		}
	}
	if got := readFile(t, sum); !bytes.Equal(got, readFile(t, reportSummary)) {
		t.Errorf("the summary now holds %.60q", got)
	}
	if got := readFile(t, diff); !bytes.Equal(got, readFile(t, reportDiff)) {
		t.Errorf("the diff now holds %.60q", got)
	}
}

// appendTo opens path for appending, as `>> path` does, to serve as a
// command's standard output.
func appendTo(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestStdoutIsAnInput: a command whose standard output is appended to
// one of its inputs (`>> input`) would add its output to the input; it
// is refused before it writes, for summary merge, sign, report -o -,
// diff and migrate (its cards, or its records, on standard output).
func TestStdoutIsAnInput(t *testing.T) {
	dir := t.TempDir()
	sum := writeFile(t, filepath.Join(dir, "s.json"), readFile(t, reportSummary))
	card := writeFile(t, filepath.Join(dir, "card.json"), []byte(`{"name":"Agent","description":"","skills":[{"id":"a","name":"A","description":"d","tags":["t"]}]}`))
	key := writeFile(t, filepath.Join(dir, "k.jwk"), []byte(`{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"k"}`))
	old := writeFile(t, filepath.Join(dir, "old.ndjson"), readFile(t, cardsFile))
	cards := writeFile(t, filepath.Join(dir, "new.ndjson"), readFile(t, cardsFile))
	for _, tc := range []struct {
		args   []string
		victim string
	}{
		{[]string{"summary", "merge", sum, reportSummary}, sum},
		{[]string{"sign", "--key", key, card}, card},
		{[]string{"sign", "--key", key, card}, key},
		{[]string{"report", sum, "-o", "-"}, sum},
		{[]string{"diff", old, cards}, cards},
		{[]string{"diff", "--summary", filepath.Join(dir, "sum.json"), old, cards}, old},
		{[]string{"migrate", "--to", "a2a/1.0", card}, card},
		{[]string{"migrate", "--to", "a2a/1.0", "-o", filepath.Join(dir, "m.json"), card}, card},
		{[]string{"migrate", "--to", "a2a/1.0", "--check", card}, card},
	} {
		before := readFile(t, tc.victim)
		var errOut bytes.Buffer
		code := Run(tc.args, strings.NewReader(""), appendTo(t, tc.victim), &errOut)
		if code != exitUsage || !strings.Contains(errOut.String(), "standard output") || !strings.Contains(errOut.String(), tc.victim) {
			t.Errorf("%v >> %s: exit %d, stderr %q", tc.args, tc.victim, code, errOut.String())
		}
		if got := readFile(t, tc.victim); !bytes.Equal(got, before) {
			t.Errorf("%v >> %s: it grew from %d to %d bytes", tc.args, tc.victim, len(before), len(got))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sum.json")); err == nil {
		t.Error("a refused diff wrote its --summary")
	}
}

// TestDiffSummaryIsStdout: diff's --summary and its records on standard
// output would interleave in one file.
func TestDiffSummaryIsStdout(t *testing.T) {
	dir := t.TempDir()
	out := writeFile(t, filepath.Join(dir, "out.txt"), nil)
	var errOut bytes.Buffer
	code := Run([]string{"diff", "--summary", out, cardsFile, cardsFile}, strings.NewReader(""), appendTo(t, out), &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "--summary "+out) || !strings.Contains(errOut.String(), "standard output") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

// TestScanOutputIsAKeyOrStdout: validation's --summary over its --keys
// file, or its findings appended to the input they come from, would spoil
// the file.
func TestScanOutputIsAKeyOrStdout(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, filepath.Join(dir, "data.ndjson"), readFile(t, cardsFile))
	keys := writeFile(t, filepath.Join(dir, "keys.jwk"), []byte(`{"keys":[]}`))
	r := run(t, "", "-q", "--keys", keys, "--summary", keys, data)
	if r.code != exitUsage || !strings.Contains(r.stderr, "--summary "+keys+" is also --keys "+keys) {
		t.Errorf("--summary over --keys: exit %d, stderr %q", r.code, r.stderr)
	}
	var errOut bytes.Buffer
	if code := Run([]string{data}, strings.NewReader(""), appendTo(t, data), &errOut); code != exitUsage || !strings.Contains(errOut.String(), "standard output is also an input "+data) {
		t.Errorf("findings appended to the input: exit %d, stderr %q", code, errOut.String())
	}
	if got := readFile(t, data); !bytes.Equal(got, readFile(t, cardsFile)) {
		t.Errorf("the input now holds %d bytes", len(got))
	}
}

// TestTrustFileIsAnOutput: validation's --trust file is read like --keys;
// --summary, --valid-out or standard output over it replaced, emptied or
// grew it.
func TestTrustFileIsAnOutput(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, filepath.Join(dir, "data.ndjson"), readFile(t, cardsFile))
	const policy = "origins:\n  \"*\":\n    x5c: true\n"
	trust := writeFile(t, filepath.Join(dir, "trust.yaml"), []byte(policy))
	for _, args := range [][]string{
		{"-q", "--trust", trust, "--summary", trust, data},
		{"-q", "--trust", trust, "--valid-out", trust, data},
	} {
		if r := run(t, "", args...); r.code != exitUsage || !strings.Contains(r.stderr, "is also --trust "+trust) {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	var errOut bytes.Buffer
	if code := Run([]string{"--trust", trust, data}, strings.NewReader(""), appendTo(t, trust), &errOut); code != exitUsage || !strings.Contains(errOut.String(), "standard output is also --trust") {
		t.Errorf("findings appended to --trust: exit %d, stderr %q", code, errOut.String())
	}
	if got := readFile(t, trust); string(got) != policy {
		t.Errorf("the trust file now holds %q", got)
	}
}

// TestVerifyStdoutIsAnInput: verify's report appended to the card, a key
// set, the trust policy or the signed copy it reads would change it.
func TestVerifyStdoutIsAnInput(t *testing.T) {
	f := newSigFixture(t)
	signed := f.sign(t, a2aCard, f.k1, cardsig.SignOptions{})
	card := writeFile(t, filepath.Join(f.dir, "signed.json"), []byte(signed))
	copyOf := writeFile(t, filepath.Join(f.dir, "copy.json"), []byte(signed))
	for _, victim := range []string{card, f.keys, copyOf} {
		before := readFile(t, victim)
		var errOut bytes.Buffer
		code := Run([]string{"verify", "--keys", f.keys, "--signed-copy", copyOf, card}, strings.NewReader(""), appendTo(t, victim), &errOut)
		if code != exitUsage || !strings.Contains(errOut.String(), "standard output is also") || !strings.Contains(errOut.String(), victim) {
			t.Errorf("verify >> %s: exit %d, stderr %q", victim, code, errOut.String())
		}
		if got := readFile(t, victim); !bytes.Equal(got, before) {
			t.Errorf("verify >> %s: it grew from %d to %d bytes", victim, len(before), len(got))
		}
	}
}

// TestValidOutDash: "-" is standard output for --summary and --format,
// but --valid-out and --invalid-out created a file named "-", which the
// guard took for standard output and never compared: an input named "-"
// (./-) was emptied before it was read, and the run said no records.
func TestValidOutDash(t *testing.T) {
	dir := t.TempDir()
	want := readFile(t, cardsFile)
	input := writeFile(t, filepath.Join(dir, "-"), want)
	for _, flag := range []string{"--valid-out", "--invalid-out"} {
		r := runIn(t, dir, "-q", flag, "-", "./-")
		if r.code != exitUsage || !strings.Contains(r.stderr, flag+" -: want a file") {
			t.Errorf("%s -: exit %d, stderr %q", flag, r.code, r.stderr)
		}
		if got := readFile(t, input); !bytes.Equal(got, want) {
			t.Fatalf("%s -: the input ./- now holds %d bytes", flag, len(got))
		}
	}
}
