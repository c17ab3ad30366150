package integrations

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// TestActionHostileInputs runs run.sh as the Action does on workspaces a
// careless or hostile pull request could make: no input runs as shell or
// becomes a flag, no file name writes a line the runner obeys as a
// workflow command, and no output is written over a card.
func TestActionHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cardscan")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	a, script, runnerTemp, _ := actionInstalled(t)
	run := func(t *testing.T, dir string, inputs map[string]string) (code int, stdout, stderr string) {
		t.Helper()
		env := append(os.Environ(), actionEnv(t, a, inputs, runnerTemp)...)
		env = append(env, gitIdentity...)
		return runScript(t, script, dir, append(env, "GITHUB_OUTPUT="+filepath.Join(t.TempDir(), "github_output")))
	}
	// forged reports a line of the log the runner would obey as a
	// workflow command planted by a file name.
	forged := func(t *testing.T, stdout, stderr string) {
		t.Helper()
		for _, line := range strings.Split(stdout+"\n"+stderr, "\n") {
			if strings.HasPrefix(line, "::error title=forged") {
				t.Errorf("a file name wrote a workflow command: %q\nstdout:\n%s\nstderr:\n%s", line, stdout, stderr)
			}
		}
	}

	t.Run("a found card's name holds a workflow command", func(t *testing.T) {
		repo := t.TempDir()
		git(t, repo, "init", "-q")
		writeFile(t, filepath.Join(repo, "x\n::error title=forged::hidden", "agent.json"), badCard)
		code, stdout, stderr := run(t, repo, nil)
		if code != 1 || !strings.Contains(stdout, "::error file=x%0A") {
			t.Errorf("exit %d, want 1 with the card's finding\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		forged(t, stdout, stderr)
	})

	t.Run("no card in a workspace whose name holds a workflow command", func(t *testing.T) {
		ws := filepath.Join(t.TempDir(), "ws\n::error title=forged::x")
		if err := os.Mkdir(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		git(t, ws, "init", "-q")
		code, stdout, stderr := run(t, ws, nil)
		if code != 2 || !strings.HasPrefix(stdout, "::error title=cardscan::no agent card found in ") {
			t.Errorf("exit %d, want 2 with an ::error line\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		forged(t, stdout, stderr)
	})

	t.Run("sarif-file names a card", func(t *testing.T) {
		repo := t.TempDir()
		card := filepath.Join(repo, ".well-known", "agent-card.json")
		writeFile(t, card, badCard)
		code, stdout, stderr := run(t, repo, map[string]string{"format": "sarif", "sarif-file": ".well-known/agent-card.json"})
		if b, err := os.ReadFile(card); err != nil || string(b) != badCard {
			t.Fatalf("the card was written over: %q, %v\nstdout:\n%s\nstderr:\n%s", b, err, stdout, stderr)
		}
		if code != 2 || !strings.Contains(stderr, "would destroy it") {
			t.Errorf("exit %d, want 2 naming the clash\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
	})

	t.Run("sarif-file is a dash", func(t *testing.T) {
		repo := t.TempDir()
		writeFile(t, filepath.Join(repo, "agent.json"), badCard)
		code, stdout, stderr := run(t, repo, map[string]string{"format": "sarif", "sarif-file": "-"})
		if code != 1 || strings.Contains(stdout, `"version"`) {
			t.Errorf("exit %d, want 1 with the report in the file -, not the log\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		if b, err := os.ReadFile(filepath.Join(repo, "-")); err != nil || !bytes.Contains(b, []byte(`"version.semver"`)) {
			t.Errorf("the file - holds %q, %v", b, err)
		}
	})

	t.Run("sarif-file holds a line break", func(t *testing.T) {
		repo := t.TempDir()
		writeFile(t, filepath.Join(repo, "agent.json"), badCard)
		code, stdout, stderr := run(t, repo, map[string]string{"format": "sarif", "sarif-file": "a.sarif\nsecret=forged"})
		if code != 2 || !strings.HasPrefix(stdout, "::error title=cardscan::sarif-file a.sarif%0Asecret=forged holds a line break") {
			t.Errorf("exit %d, want 2 with an ::error line\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
	})

	t.Run("more cards than one command line holds", func(t *testing.T) {
		// 24,000 paths of 116 bytes: 2.8 MB, past Linux's 2 MiB ARG_MAX.
		repo := t.TempDir()
		const n = 24000
		pad := strings.Repeat("x", 90)
		for i := range n {
			writeFile(t, filepath.Join(repo, "cards", fmt.Sprintf("agent-%05d-%s", i, pad), "agent.json"), badCard)
		}
		code, stdout, stderr := run(t, repo, nil)
		if got := strings.Count(stdout, ",title=version.semver::"); code != 1 || got != n {
			t.Errorf("exit %d with %d findings, want 1 with %d\nstderr:\n%.2000s", code, got, n, stderr)
		}
		if len(stderr) > 64<<10 {
			t.Errorf("stderr is %d bytes: the found cards are listed whole", len(stderr))
		}
		code, stdout, stderr = run(t, repo, map[string]string{"format": "sarif"})
		if code != 2 || !strings.Contains(stdout, "::error title=cardscan::") || !strings.Contains(stdout, "too many") {
			t.Errorf("sarif: exit %d, want 2 with an ::error line\nstdout:\n%.2000s\nstderr:\n%.2000s", code, stdout, stderr)
		}
	})

	t.Run("paths that look like flags or shell", func(t *testing.T) {
		repo := t.TempDir()
		names := []string{"--format=jsonl=out.json", "$(touch${IFS}pwned)", "`touch${IFS}pwned`", "'q'\"q\"", "*"}
		for _, n := range names {
			writeFile(t, filepath.Join(repo, n), badCard)
		}
		code, stdout, stderr := run(t, repo, map[string]string{"paths": strings.Join(names, "\n")})
		if code != 1 {
			t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		for _, n := range names {
			if !strings.Contains(stdout, "::error file="+escapeProperty(n)+",line="+badLine+",") {
				t.Errorf("%s was not judged as a card:\n%s", n, stdout)
			}
		}
		for _, made := range []string{"pwned", "out.json"} {
			if _, err := os.Lstat(filepath.Join(repo, made)); err == nil {
				t.Errorf("an input made %s", made)
			}
		}
	})
}

// escapeProperty escapes s as a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// TestPreCommitHooksEndFlags: each hook's args end with --, so that a
// file pre-commit appends whose name starts with a dash
// (--format=jsonl=x.agentcard.json) is read as a card, never taken as a
// flag that writes a file or sets a policy.
func TestPreCommitHooksEndFlags(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID    string
		Entry string
		Args  []string
	}
	if err := yaml.Unmarshal(b, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) == 0 {
		t.Fatal(".pre-commit-hooks.yaml holds no hook")
	}
	for _, h := range hooks {
		if len(h.Args) == 0 || h.Args[len(h.Args)-1] != "--" {
			t.Errorf("hook %s: args %q do not end with --", h.ID, h.Args)
		}
		if strings.Contains(h.Entry, " -- ") || strings.HasSuffix(h.Entry, " --") {
			t.Errorf("hook %s: entry %q ends flags before its args", h.ID, h.Entry)
		}
	}
}
