package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/trustfile"
)

// policyBombs are policy files built to exhaust the parser, each with the
// error that must stop it. The first two are the shapes that took 3.7 GB
// (97 KB of nested block sequences) and 650 MB (39 KB of nested flow
// sequences) before the parser was bounded.
func policyBombs() []struct{ name, src, want string } {
	var flat strings.Builder
	for i := range trustfile.MaxTokens {
		fmt.Fprintf(&flat, "k%d: v\n", i)
	}
	var indented strings.Builder
	for i := range 300 {
		indented.WriteString(strings.Repeat(" ", i) + "- \n")
	}
	return []struct{ name, src, want string }{
		{"nested block sequences", strings.Repeat("- ", 97_000/2) + "x\n",
			fmt.Sprintf(":1:%d: nested more than %d levels deep", 2*trustfile.MaxDepth+1, trustfile.MaxDepth)},
		{"nested flow sequences", strings.Repeat("[", 39_000/2) + strings.Repeat("]", 39_000/2),
			fmt.Sprintf(":1:%d: nested more than %d levels deep", trustfile.MaxDepth+1, trustfile.MaxDepth)},
		{"nested flow mappings", strings.Repeat("{a: ", 20_000) + "b" + strings.Repeat("}", 20_000),
			fmt.Sprintf(":1:%d: nested more than %d levels deep", 4*trustfile.MaxDepth+1, trustfile.MaxDepth)},
		// Line i+2 holds a sequence entry at column i+1.
		{"indented block sequences", "rules:\n" + indented.String(),
			fmt.Sprintf(":%d:%d: nested more than %d levels deep", trustfile.MaxDepth+2, trustfile.MaxDepth+1, trustfile.MaxDepth)},
		// Each line is three tokens (key, colon, value): the one past the
		// limit is a colon.
		{"a long mapping", flat.String(),
			fmt.Sprintf(":%d:%d: more than %d tokens", trustfile.MaxTokens/3+1, len(fmt.Sprint("k", trustfile.MaxTokens/3))+1, trustfile.MaxTokens)},
		{"aliases", "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n", ":1:4: an anchor (&a): a policy file takes none"},
		{"an alias alone", "profile: *p\n", ":1:10: * starts an alias"},
		{"an unquoted glob", "include: **/*.json\n", `:1:10: * starts an alias, which a policy file takes none of (quote a glob that starts with *)`},
	}
}

// TestPolicyBombs: a hostile policy file is refused with its file, line
// and column, having cost little memory, both through loadPolicy (where
// the allocations are counted) and through the command (usage error).
func TestPolicyBombs(t *testing.T) {
	// Reading a policy file within the limits allocates a few megabytes;
	// the bombs took hundreds of megabytes to gigabytes before the limits.
	const allocBound = 32 << 20
	for _, c := range policyBombs() {
		t.Run(c.name, func(t *testing.T) {
			dir := repoWithPolicy(t, ".cardscan.yaml", c.src)
			path := filepath.Join(dir, ".cardscan.yaml")
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := loadPolicy(path)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.HasPrefix(err.Error(), path+c.want) {
				t.Errorf("loadPolicy: %v\nwant %s%s", err, path, c.want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > allocBound {
				t.Errorf("loadPolicy allocated %d MB, want at most %d MB", alloc>>20, allocBound>>20)
			}
			r := runIn(t, dir, "cards.ndjson")
			if r.code != exitUsage || !strings.Contains(r.stderr, ".cardscan.yaml"+c.want) {
				t.Errorf("exit %d, stderr:\n%.300s\nwant exit %d and %q", r.code, r.stderr, exitUsage, c.want)
			}
		})
	}
}

// TestPolicyWithinLimits: the limits leave room for any real policy file:
// every rule set, each with a comment, two levels deep, and many globs.
func TestPolicyWithinLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("profile: agentcard\nrules:\n")
	for _, id := range ruleIDs() {
		if !strings.HasPrefix(id, "json.") && id != "input.too-large" {
			fmt.Fprintf(&b, "  %s: error # why this rule fails a card here\n", id)
		}
	}
	b.WriteString("exclude:\n")
	for i := range 300 {
		fmt.Fprintf(&b, "  - 'vendor/%d/**'\n", i)
	}
	p, err := loadPolicy(writeFile(t, filepath.Join(t.TempDir(), ".cardscan.yaml"), []byte(b.String())))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.rules) < 50 || len(p.exclude) != 300 {
		t.Errorf("read %d rules and %d exclude globs, want every rule and 300 globs", len(p.rules), len(p.exclude))
	}
}

// FuzzPolicyFile: whatever a policy file holds, reading it ends in a
// policy or in an error that names the file and line, without a panic and
// within a bounded allocation, at any size up to the limit on a policy
// file.
func FuzzPolicyFile(f *testing.F) {
	f.Add([]byte("profile: agentcard\nrules:\n  version.semver: warning\ninclude: ['**/*.json']\nexclude: [vendor/**]\n"))
	f.Add([]byte("{\"profile\": \"a2a\", \"rules\": {\"a2a.mime\": \"off\"}}\n"))
	f.Add([]byte("rules: [\n  a: b\n"))
	f.Add([]byte("a: &a [x]\nb: *a\n"))
	f.Add([]byte("- - - - [[[{a: {b: [c]}}]]]\n"))
	f.Add([]byte("? a\n: b\n--- \n...\n%YAML 1.2\n"))
	f.Add([]byte("rules:\n\tversion.semver: off\n"))
	const allocBound = 64 << 20
	errorAt := regexp.MustCompile(`^p\.yaml:[0-9]+(:[0-9]+)?: `)
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > maxConfig {
			return // loadPolicy refuses it unread
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := parsePolicy("p.yaml", "/", src)
		runtime.ReadMemStats(&after)
		if err != nil && !errorAt.MatchString(err.Error()) {
			t.Errorf("error without the file and line: %q", err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > allocBound {
			t.Errorf("%d bytes allocated %d MB, want at most %d MB", len(src), alloc>>20, allocBound>>20)
		}
	})
}
