package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLSPPolicy holds cardscan lsp's policy lookup to the CLI's: the file
// in the card's directory or a parent, not above the repository's root,
// with its settings and its include and exclude globs.
func TestLSPPolicy(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(repo, ".cardscan.yaml")
	writeFile(t, policy, []byte("profile: ma2d\npolicy: production\nrules:\n  version.semver: warning\n  endpoint.insecure: error\ninclude: ['cards/**', 'vendor/**']\nexclude: ['vendor/**']\n"))
	// Above the repository's root: never read.
	writeFile(t, filepath.Join(top, ".cardscan.yaml"), []byte("profile: agentcard\n"))

	pol, err := lspPolicy(filepath.Join(repo, "cards", "deep", "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if pol.File != policy || pol.Profile != "ma2d" || pol.Policy != "production" || len(pol.Rules) != 2 || pol.Skip {
		t.Errorf("a card under cards/: %+v, want %s's profile, policy, two rules, not skipped", pol, policy)
	}
	for _, card := range []string{"vendor/b.json", "other/c.json"} {
		pol, err := lspPolicy(filepath.Join(repo, card))
		if err != nil {
			t.Fatal(err)
		}
		if !pol.Skip {
			t.Errorf("%s: not skipped, though the policy file's globs leave it out", card)
		}
	}

	// A repository with no policy file of its own reads none, not the one above it.
	other := filepath.Join(top, "other")
	if err := os.MkdirAll(filepath.Join(other, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if pol, err := lspPolicy(filepath.Join(other, "a.json")); err != nil || pol.File != "" {
		t.Errorf("a card in a repository without a policy file: %+v, %v; want none", pol, err)
	}

	// An unsaved buffer is looked up from the working directory.
	if err := os.MkdirAll(filepath.Join(repo, "cards"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(repo, "cards"))
	if pol, err := lspPolicy(""); err != nil || pol.File != policy || pol.Skip {
		t.Errorf("a document that is no file: %+v, %v; want %s, not skipped", pol, err, policy)
	}
}

func TestLSPPolicy_BadFile(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(repo, ".cardscan.yaml")
	writeFile(t, policy, []byte("profile: ma2d\nrules:\n  no.such-rule: error\n"))
	_, err := lspPolicy(filepath.Join(repo, "a.json"))
	if err == nil || !strings.Contains(err.Error(), policy) {
		t.Errorf("a policy file naming an unknown rule: %v; want an error naming %s", err, policy)
	}
}
