package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryNeedsDumpWork: --memory bounds what --cross-card and
// --digest-out hold; without either it bounded nothing, silently.
func TestMemoryNeedsDumpWork(t *testing.T) {
	r := run(t, "", "--memory", "64MiB", cardsFile)
	if want := "--memory bounds what --cross-card and --digest-out hold"; r.code != 2 || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("--memory alone: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	for _, args := range [][]string{
		{"--memory", "64MiB", "--cross-card", "-q", cardsFile},
		{"--memory", "64MiB", "--digest-out", filepath.Join(t.TempDir(), "d.zst"), "-q", cardsFile},
	} {
		if r := run(t, "", args...); r.code == 2 {
			t.Errorf("%q: exit 2, stderr %q", args, r.stderr)
		}
	}
}

// TestSignaturesOffWithKeys: --signatures off verifies nothing, so the
// keys given beside it were read by no one, silently: a card the user
// meant to verify passed unverified.
func TestSignaturesOffWithKeys(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "k.jwks")
	for _, args := range [][]string{
		{"--signatures", "off", "--keys", keys, cardsFile},
		{"--signatures", "off", "--trust-jku", "https://keys.example/", cardsFile},
		{"diff", "--signatures", "off", "--keys", keys, cardsFile, cardsFile},
	} {
		r := run(t, "", args...)
		if want := "--signatures off verifies no signature"; r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", args, r.code, r.stderr, want)
		}
		// "drop them, or --signatures off" read as if --signatures off
		// were the remedy, when it is the cause: each way out names the
		// flags to drop and what the run then does.
		for _, want := range []string{
			"drop --keys, --trust-jku and --trust to judge the cards unverified",
			"or drop --signatures off to verify with them",
		} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%q: stderr %q; want it to say %q", args, r.stderr, want)
			}
		}
	}
}
