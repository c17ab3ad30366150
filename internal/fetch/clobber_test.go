package fetch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStdoutIsAnInput: fetch's and probe's records on standard output,
// appended to a file they read (the URL list, a key set, a card file),
// would grow it while it is read; each is refused before anything is
// fetched, naming the file.
func TestStdoutIsAnInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	urls := write("urls.txt", "https://127.0.0.1:1/\n")
	keys := write("keys.jwks", `{"keys":[]}`)
	cards := write("cards.ndjson", `{"protocolVersion":"0.3.0","name":"A","description":"d","version":"1","url":"https://127.0.0.1:1/a2a","capabilities":{},"skills":[],"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"]}`+"\n")
	for _, tc := range []struct {
		run    func(args []string, stdin *strings.Reader, stdout, stderr *os.File) error
		args   []string
		victim string
	}{
		{fetchCmd, []string{"--urls", urls}, urls},
		{fetchCmd, []string{"--keys", keys, "https://127.0.0.1:1/"}, keys},
		{probeCmd, []string{cards}, cards},
		{probeCmd, []string{"--summary", "-", "--resume", filepath.Join(dir, "r.jsonl"), cards}, cards},
	} {
		before, _ := os.ReadFile(tc.victim)
		out, err := os.OpenFile(tc.victim, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		errOut, _ := os.CreateTemp(dir, "stderr")
		err = tc.run(tc.args, strings.NewReader(""), out, errOut)
		out.Close()
		msg, _ := os.ReadFile(errOut.Name())
		if err == nil || !strings.Contains(err.Error(), "standard output is also") || !strings.Contains(err.Error(), tc.victim) {
			t.Errorf("%v >> %s: %v (stderr %q)", tc.args, tc.victim, err, msg)
		}
		if after, _ := os.ReadFile(tc.victim); !bytes.Equal(after, before) {
			t.Errorf("%v >> %s: it grew from %d to %d bytes", tc.args, tc.victim, len(before), len(after))
		}
	}
}

func fetchCmd(args []string, stdin *strings.Reader, stdout, stderr *os.File) error {
	return Run(args, stdin, stdout, stderr)
}

func probeCmd(args []string, stdin *strings.Reader, stdout, stderr *os.File) error {
	return RunProbe(args, stdin, stdout, stderr)
}
