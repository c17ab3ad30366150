package cli

import (
	"os"
	"path/filepath"

	"github.com/cardscan/cardscan/internal/lspserver"
)

// lspPolicy reads the policy file that governs the card at path for
// cardscan lsp, as a run of cardscan in the card's directory would find it:
// in that directory or a parent, up to the repository's root. A document
// that is no file (an editor's unsaved buffer) is looked up from the
// working directory, where the editor started the server.
func lspPolicy(path string) (lspserver.Policy, error) {
	dir := filepath.Dir(path)
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return lspserver.Policy{}, nil
		}
		dir = wd
	}
	file, err := findConfig(dir)
	if err != nil || file == "" {
		return lspserver.Policy{}, err
	}
	p, err := loadPolicy(file)
	if err != nil {
		return lspserver.Policy{}, err
	}
	pol := lspserver.Policy{File: file, Profile: p.values["profile"].value, Policy: p.values["policy"].value,
		Rules: overrideOptions(p.rules), Levels: overrideTable(p.rules)}
	if path != "" {
		f := newPathFilter(p)
		pol.Skip = f.excluded(path) || !f.walked(path)
	}
	return pol, nil
}
