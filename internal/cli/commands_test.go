package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestEverySubcommandCompletes: every subcommand cardscan's usage lists
// is in the completion scripts and the manual page, which are written
// from the same table.
func TestEverySubcommandCompletes(t *testing.T) {
	var names []string
	for _, line := range strings.Split(usage(), "\n") {
		if rest, ok := strings.CutPrefix(line, "       cardscan "); ok {
			names = append(names, strings.Fields(rest)[0])
		}
	}
	if len(names) < 10 {
		t.Fatalf("usage lists %d subcommands: %q", len(names), names)
	}
	var man bytes.Buffer
	if status := Run([]string{"man"}, nil, &man, new(bytes.Buffer)); status != 0 {
		t.Fatalf("man: exit status %d", status)
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		var script bytes.Buffer
		if status := Run([]string{"completion", shell}, nil, &script, new(bytes.Buffer)); status != 0 {
			t.Fatalf("completion %s: exit status %d", shell, status)
		}
		for _, name := range names {
			if !strings.Contains(script.String(), name) {
				t.Errorf("completion %s: no %s", shell, name)
			}
		}
	}
	for _, name := range names {
		if !strings.Contains(man.String(), "cardscan "+name) && !strings.Contains(man.String(), `cardscan\ `+name) && !strings.Contains(man.String(), name+"\n") {
			t.Errorf("man: no %s", name)
		}
		if _, ok := lookupCommand(name); !ok {
			t.Errorf("%s: listed in usage, not in the command table", name)
		}
	}
}
