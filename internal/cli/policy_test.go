package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/cardscan/cardscan/internal/golden"
)

// repoWithPolicy makes a repository directory (it holds .git) with the
// golden cards as cards.ndjson and, unless policy is "", a policy file of
// the given name, and returns its path.
func repoWithPolicy(t *testing.T, name, policy string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"))
	writeFile(t, filepath.Join(dir, "cards.ndjson"), readFile(t, cardsFile))
	if policy != "" {
		writeFile(t, filepath.Join(dir, name), []byte(policy))
	}
	return dir
}

func TestFindConfig(t *testing.T) {
	root := t.TempDir()
	outer := filepath.Join(root, "outer")
	repo := filepath.Join(outer, "repo")
	deep := filepath.Join(repo, "a", "b")
	writeFile(t, filepath.Join(outer, ".cardscan.yaml"), nil) // above the repository
	writeFile(t, filepath.Join(repo, ".git"), []byte("gitdir: elsewhere\n"))
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	noRepo := filepath.Join(root, "plain", "x")
	if err := os.MkdirAll(noRepo, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "plain", ".cardscan.json"), nil)
	both := filepath.Join(root, "both")
	writeFile(t, filepath.Join(both, ".cardscan.yaml"), nil)
	writeFile(t, filepath.Join(both, ".cardscan.yml"), nil)
	// A directory of the name is no policy file.
	dirNamed := filepath.Join(repo, "d")
	if err := os.MkdirAll(filepath.Join(dirNamed, ".cardscan.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "a", ".cardscan.yml"), nil)
	fifo := filepath.Join(root, "fifo")
	if err := os.MkdirAll(fifo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(fifo, ".cardscan.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name, from, want, err string
	}{
		{"in a parent, inside the repository", deep, filepath.Join(repo, "a", ".cardscan.yml"), ""},
		{"none up to the repository's root", repo, "", ""},
		{"a directory of the name is skipped", dirNamed, "", ""},
		{"no repository: up to the root", noRepo, filepath.Join(root, "plain", ".cardscan.json"), ""},
		{"two in one directory", both, "", "are both policy files"},
		{"a FIFO is refused, not read", fifo, "", ".cardscan.yaml is not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := findConfig(c.from)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("findConfig(%s) = %q, %v; want %q", c.from, got, err, c.want)
			}
		})
	}
}

// TestPolicyPrecedence: a flag overrides the file, the file overrides the
// default, for each key that stands for a flag.
func TestPolicyPrecedence(t *testing.T) {
	for _, c := range []struct {
		name   string
		policy string
		args   []string
		code   int
		check  func(t *testing.T, r result)
	}{
		{"default", "", nil, exitInvalid, func(t *testing.T, r result) {
			wantPrefix(t, r.stdout, "cards.ndjson:2:69: error: version.semver")
		}},
		{"file sets the format", "format: jsonl\n", nil, exitInvalid, func(t *testing.T, r result) {
			wantPrefix(t, r.stdout, `{"input":"cards.ndjson"`)
		}},
		{"flag overrides the file's format", "format: jsonl\n", []string{"--format", "text"}, exitInvalid, func(t *testing.T, r result) {
			wantPrefix(t, r.stdout, "cards.ndjson:2:69: error")
		}},
		{"file sets fail-on", "fail-on: never\n", nil, exitOK, nil},
		{"flag overrides the file's fail-on", "fail-on: never\n", []string{"--fail-on", "error"}, exitInvalid, nil},
		{"file sets the profile", "profile: a2a\n", []string{"-q", "--summary", "-"}, exitInvalid, func(t *testing.T, r result) {
			if !strings.Contains(r.stdout, `"a2a/`) {
				t.Errorf("no a2a profile in the summary:\n%s", r.stdout)
			}
		}},
		{"flag overrides the file's profile", "profile: a2a\n", []string{"-q", "--summary", "-", "--profile", "agentcard"}, exitInvalid, func(t *testing.T, r result) {
			if strings.Contains(r.stdout, `"a2a/`) || !strings.Contains(r.stdout, `"agentcard": `) {
				t.Errorf("want only the agentcard profile:\n%s", r.stdout)
			}
		}},
		{"file sets the policy", "policy: production\nprofile: agentcard\n", []string{"-q", "--summary", "-"}, exitInvalid, func(t *testing.T, r result) {
			if s := summaryOf(t, r.stdout); s.Invalid != 8 {
				t.Errorf("production policy: %d invalid, want 8", s.Invalid)
			}
		}},
		{"flag overrides the file's policy", "policy: production\nprofile: agentcard\n", []string{"-q", "--summary", "-", "--policy", "default"}, exitInvalid, func(t *testing.T, r result) {
			if s := summaryOf(t, r.stdout); s.Invalid != 7 {
				t.Errorf("default policy: %d invalid, want 7", s.Invalid)
			}
		}},
		{"file sets min-level", "min-level: error\n", nil, exitInvalid, func(t *testing.T, r result) {
			if strings.Contains(r.stdout, "warning:") {
				t.Errorf("warnings shown:\n%s", r.stdout)
			}
		}},
		{"flag overrides the file's min-level", "min-level: error\n", []string{"--min-level", "warning"}, exitInvalid, func(t *testing.T, r result) {
			if !strings.Contains(r.stdout, "warning:") {
				t.Errorf("no warning shown:\n%s", r.stdout)
			}
		}},
		{"flag's rule overrides the file's", "rules:\n  version.semver: off\n", []string{"--rule", "version.semver=warning"}, exitInvalid, func(t *testing.T, r result) {
			wantPrefix(t, r.stdout, "cards.ndjson:2:69: warning: version.semver")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := repoWithPolicy(t, ".cardscan.yaml", c.policy)
			r := runIn(t, dir, append(baseArgs(c.policy, c.args), c.args...)...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d; stderr %s", r.code, c.code, r.stderr)
			}
			if c.check != nil {
				c.check(t, r)
			}
		})
	}
}

// baseArgs are the arguments every precedence case runs with: the cards,
// no colour, and the agentcard profile unless the case is about profiles.
func baseArgs(policy string, args []string) []string {
	base := []string{"--color", "never", "cards.ndjson"}
	if !strings.Contains(policy, "profile:") && !containsArg(args, "--profile") {
		base = append(base, "--profile", "agentcard")
	}
	return base
}

func containsArg(args []string, a string) bool {
	for _, x := range args {
		if x == a {
			return true
		}
	}
	return false
}

func wantPrefix(t *testing.T, got, prefix string) {
	t.Helper()
	if !strings.HasPrefix(got, prefix) {
		t.Errorf("output does not start with %q:\n%s", prefix, got)
	}
}

type policySummary struct {
	Records, Valid, Invalid, Errors, Warnings int64
	Rules                                     map[string]int64
	Overrides                                 map[string]string
}

func summaryOf(t *testing.T, s string) policySummary {
	t.Helper()
	var sum policySummary
	if err := json.Unmarshal([]byte(s), &sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, s)
	}
	return sum
}

// TestRuleOverrides: each kind of override, from the file and from the
// flag, changes the verdicts, the exit status, the valid/invalid split and
// the summary, which records the overrides in force.
func TestRuleOverrides(t *testing.T) {
	for _, c := range []struct {
		name, policy string
		args         []string
		code         int
		// invalid and warnings are the summary's counts; rules its
		// version.semver and capability.description-missing counts.
		invalid, warnings, semver, descMissing int64
		overrides                              map[string]string
	}{
		{"none", "", nil, exitInvalid, 7, 4, 1, 1, nil},
		{"error to warning by flag", "", []string{"--rule", "version.semver=warning"}, exitInvalid, 6, 5, 1, 1,
			map[string]string{"version.semver": "warning"}},
		{"error to warning by file", "rules:\n  version.semver: warning\n", nil, exitInvalid, 6, 5, 1, 1,
			map[string]string{"version.semver": "warning"}},
		{"error off", "rules: {version.semver: off}\n", nil, exitInvalid, 6, 4, 0, 1,
			map[string]string{"version.semver": "off"}},
		{"warning off", "", []string{"--rule", "capability.description-missing=off"}, exitInvalid, 7, 3, 1, 0,
			map[string]string{"capability.description-missing": "off"}},
		{"warning to error", "", []string{"--rule", "endpoint.insecure=error"}, exitInvalid, 8, 2, 1, 1,
			map[string]string{"endpoint.insecure": "error"}},
		{"file and flag together", "rules:\n  version.semver: warning\n", []string{"--rule", "capability.description-missing=off"}, exitInvalid, 6, 4, 1, 0,
			map[string]string{"version.semver": "warning", "capability.description-missing": "off"}},
		{"json.syntax=error is allowed", "", []string{"--rule", "json.syntax=error"}, exitInvalid, 7, 4, 1, 1,
			map[string]string{"json.syntax": "error"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := repoWithPolicy(t, ".cardscan.yaml", c.policy)
			args := append([]string{"-q", "--profile", "agentcard", "--summary", "-", "cards.ndjson",
				"--valid-out", "valid.ndjson", "--invalid-out", "invalid.ndjson"}, c.args...)
			r := runIn(t, dir, args...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d; stderr %s", r.code, c.code, r.stderr)
			}
			s := summaryOf(t, r.stdout)
			if s.Invalid != c.invalid || s.Warnings != c.warnings || s.Rules["version.semver"] != c.semver || s.Rules["capability.description-missing"] != c.descMissing {
				t.Errorf("invalid %d, warnings %d, version.semver %d, capability.description-missing %d; want %d, %d, %d, %d",
					s.Invalid, s.Warnings, s.Rules["version.semver"], s.Rules["capability.description-missing"],
					c.invalid, c.warnings, c.semver, c.descMissing)
			}
			if len(s.Overrides) != len(c.overrides) {
				t.Errorf("overrides %v, want %v", s.Overrides, c.overrides)
			}
			for k, v := range c.overrides {
				if s.Overrides[k] != v {
					t.Errorf("overrides %v, want %v", s.Overrides, c.overrides)
				}
			}
			if n := lines(readFile(t, filepath.Join(dir, "invalid.ndjson"))); int64(n) != c.invalid {
				t.Errorf("--invalid-out has %d records, want %d", n, c.invalid)
			}
			if n := lines(readFile(t, filepath.Join(dir, "valid.ndjson"))); int64(n) != s.Valid {
				t.Errorf("--valid-out has %d records, want %d", n, s.Valid)
			}
		})
	}
}

func lines(b []byte) int { return strings.Count(string(b), "\n") }

// TestMinLevel: --min-level error hides warnings from every format; the
// counts keep them.
func TestMinLevel(t *testing.T) {
	for _, format := range []string{"text", "jsonl", "github"} {
		t.Run(format, func(t *testing.T) {
			sAll, sErr := filepath.Join(t.TempDir(), "all.json"), filepath.Join(t.TempDir(), "err.json")
			all := run(t, "", "--format", format, "--all", "--color", "never", "--profile", "agentcard", "--summary", sAll, cardsFile)
			hidden := run(t, "", "--format", format, "--all", "--color", "never", "--profile", "agentcard", "--summary", sErr, "--min-level", "error", cardsFile)
			if all.code != exitInvalid || hidden.code != exitInvalid {
				t.Fatalf("exit %d and %d, want %d", all.code, hidden.code, exitInvalid)
			}
			for _, w := range []string{"capability.description-missing", "endpoint.insecure"} {
				if !strings.Contains(all.stdout, w) {
					t.Errorf("without --min-level: no %s", w)
				}
				if strings.Contains(hidden.stdout, w) {
					t.Errorf("--min-level error shows %s:\n%s", w, hidden.stdout)
				}
			}
			if !strings.Contains(hidden.stdout, "version.semver") {
				t.Errorf("--min-level error hides an error:\n%s", hidden.stdout)
			}
			a, h := summaryOf(t, string(readFile(t, sAll))), summaryOf(t, string(readFile(t, sErr)))
			if a.Warnings != 4 || h.Warnings != a.Warnings || h.Rules["endpoint.insecure"] != a.Rules["endpoint.insecure"] {
				t.Errorf("counts differ: %+v and %+v", a, h)
			}
		})
	}
	r := run(t, "", "--min-level", "error", "--fail-on", "warning", cardsFile)
	if r.code != exitUsage || !strings.Contains(r.stderr, "would hide the warnings") {
		t.Errorf("--min-level error --fail-on warning: exit %d, stderr %s", r.code, r.stderr)
	}
	r = run(t, "", "--min-level", "info", cardsFile)
	if r.code != exitUsage || !strings.Contains(r.stderr, `--min-level "info": want warning or error`) {
		t.Errorf("--min-level info: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestPolicyGolden: the golden cards under a policy file that turns one
// rule off, lowers one and raises one, with warnings hidden.
func TestPolicyGolden(t *testing.T) {
	policy := `# the project's policy
profile: agentcard
min-level: error
rules:
  version.semver: warning
  capability.description-missing: off
  endpoint.insecure: error
`
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"policy.text.golden", []string{"--color", "never"}},
		{"policy.jsonl.golden", []string{"--format", "jsonl"}},
		{"policy.github.golden", []string{"--format", "github"}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			pkg, err := os.Getwd()
			if err != nil {
				t.Fatal(err)
			}
			dir := repoWithPolicy(t, ".cardscan.yaml", policy)
			r := runIn(t, dir, append(c.args, "cards.ndjson")...)
			if r.code != exitInvalid {
				t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
			}
			t.Chdir(pkg)
			golden.Check(t, c.golden, r.stdout)
		})
	}
}

// TestPolicyErrors: every mistake in a policy file or --rule is a usage
// error (exit 2) naming the file and the line, or the flag.
func TestPolicyErrors(t *testing.T) {
	for _, c := range []struct {
		name, file, policy string
		args               []string
		want               string
	}{
		{"unknown rule", ".cardscan.yaml", "rules:\n  version.semver: warning\n  a2a.mim: off\n", nil,
			`.cardscan.yaml:3: rules: unknown rule "a2a.mim"; the closest known rule is a2a.mime`},
		{"unknown rule far from any", ".cardscan.yaml", "rules:\n  completely-different: off\n", nil,
			`.cardscan.yaml:2: rules: unknown rule "completely-different" (cardscan --list-rules lists them)`},
		{"bad level", ".cardscan.yaml", "rules:\n  version.semver:\n    warn\n", nil,
			`.cardscan.yaml:3: rules: version.semver: level "warn": want off, warning or error`},
		{"unjudged rule lowered", ".cardscan.yaml", "rules:\n  json.syntax: off\n", nil,
			`.cardscan.yaml:2: rules: json.syntax cannot be off: a card it rejects is not judged further`},
		{"unknown key", ".cardscan.yaml", "profile: agentcard\nfail_on: never\n", nil,
			`.cardscan.yaml:2: unknown key "fail_on": did you mean fail-on?`},
		{"unknown key far from any", ".cardscan.yaml", "colour: never\n", nil,
			`.cardscan.yaml:1: unknown key "colour"; known keys: profile, policy, fail-on, format, min-level, rules, include, exclude`},
		{"malformed YAML", ".cardscan.yaml", "profile: agentcard\nrules: [\n  a: b\n", nil,
			`.cardscan.yaml:2:8: sequence end token ']' not found`},
		{"tab indentation", ".cardscan.yml", "rules:\n\tversion.semver: off\n", nil,
			// The console shows the tab escaped.
			`.cardscan.yml:2:1: found character '\x09' that cannot start any token`},
		{"malformed JSON", ".cardscan.json", "{\n  \"profile\": \"agentcard\",\n  \"rules\": {\"version.semver\" \"off\"}\n}\n", nil,
			`.cardscan.json:3:13: could not find flow map content`},
		{"JSON duplicate key", ".cardscan.json", "{\"format\": \"text\",\n \"format\": \"jsonl\"}\n", nil,
			`.cardscan.json:2:2: mapping key "format" already defined at [1:2]`},
		{"two documents", ".cardscan.yaml", "profile: agentcard\n---\nformat: jsonl\n", nil,
			`.cardscan.yaml:3: a second document: a policy file holds one`},
		{"an alias", ".cardscan.yaml", "profile: &p agentcard\npolicy: *p\n", nil,
			`.cardscan.yaml:1:10: an anchor (&p): a policy file takes none`},
		{"a rule's level a list", ".cardscan.yaml", "rules:\n  version.semver: [off]\n", nil,
			`.cardscan.yaml:2: rules: version.semver: want off, warning or error, got a list`},
		{"not a mapping", ".cardscan.yaml", "- profile\n", nil,
			`.cardscan.yaml:1: want a mapping of keys`},
		{"rules not a mapping", ".cardscan.yaml", "rules: [version.semver]\n", nil,
			`.cardscan.yaml:1: rules: want a mapping of rule IDs to off, warning or error, got a list`},
		{"unknown profile", ".cardscan.yaml", "\nprofile: agntcard\n", nil,
			`.cardscan.yaml:2: unknown profile "agntcard"`},
		{"bad format", ".cardscan.yaml", "format: xml\n", nil,
			`.cardscan.yaml:1: format "xml": want`},
		{"bad fail-on", ".cardscan.yaml", "rules: {}\nfail-on: sometimes\n", nil,
			`.cardscan.yaml:2: fail-on "sometimes": want error, warning or never`},
		{"profile a list", ".cardscan.yaml", "profile: [a, b]\n", nil,
			`.cardscan.yaml:1: profile: want a string, got a list`},
		{"bad glob", ".cardscan.yaml", "exclude:\n  - 'cards/[a'\n", nil,
			`.cardscan.yaml:2: exclude: "cards/[a" is not a glob relative to the policy file's directory`},
		{"absolute glob", ".cardscan.yaml", "include: /etc/*.json\n", nil,
			`.cardscan.yaml:1: include: "/etc/*.json" is not a glob`},
		{"two policy files", ".cardscan.yml", "rules: {}\n", []string{"--rule", "version.semver=off"},
			`.cardscan.yaml and `},
		{"unknown rule by flag", "", "", []string{"--rule", "version.semvr=off"},
			`invalid value "version.semvr=off" for flag --rule: unknown rule "version.semvr"; the closest known rule is version.semver`},
		{"flag without a level", "", "", []string{"--rule", "version.semver"},
			`for flag --rule: want RULE=off, RULE=warning or RULE=error`},
		{"flag's bad level", "", "", []string{"--rule", "version.semver=warn"},
			`version.semver: level "warn": want off, warning or error`},
		{"flag lowers json.utf8", "", "", []string{"--rule", "json.utf8=warning"},
			`json.utf8 cannot be warning`},
		{"missing --config", "", "", []string{"--config", "nope.yaml"},
			`nope.yaml: no such file or directory`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := repoWithPolicy(t, c.file, c.policy)
			if c.name == "two policy files" {
				writeFile(t, filepath.Join(dir, ".cardscan.yaml"), nil)
			}
			r := runIn(t, dir, append([]string{"cards.ndjson"}, c.args...)...)
			if r.code != exitUsage || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", r.code, r.stderr, exitUsage, c.want)
			}
		})
	}
}

// TestPolicyConfigFlag: --config names a file anywhere, which is read
// instead of any the working directory has; a policy file above the
// repository is not read.
func TestPolicyConfigFlag(t *testing.T) {
	cards := readFile(t, cardsFile)
	dir := repoWithPolicy(t, ".cardscan.yaml", "fail-on: never\n")
	other := writeFile(t, filepath.Join(t.TempDir(), "strict.json"), []byte(`{"rules": {"endpoint.insecure": "error"}, "profile": "agentcard"}`))
	r := runIn(t, dir, "-q", "--summary", "-", "--config", other, "cards.ndjson")
	if r.code != exitInvalid {
		t.Fatalf("exit %d, want %d (the named file, not the found one, sets fail-on); stderr %s", r.code, exitInvalid, r.stderr)
	}
	if s := summaryOf(t, r.stdout); s.Invalid != 8 || s.Overrides["endpoint.insecure"] != "error" {
		t.Errorf("summary %+v", s)
	}

	// A policy file in the repository's parent is not the repository's.
	parent := t.TempDir()
	writeFile(t, filepath.Join(parent, ".cardscan.yaml"), []byte("fail-on: never\n"))
	repo := filepath.Join(parent, "repo")
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), nil)
	writeFile(t, filepath.Join(repo, "sub", "cards.ndjson"), cards)
	if r := runIn(t, filepath.Join(repo, "sub"), "-q", "--profile", "agentcard", "cards.ndjson"); r.code != exitInvalid {
		t.Errorf("a policy file above the repository was read: exit %d", r.code)
	}
	// The same file in the repository's root is read from a subdirectory.
	writeFile(t, filepath.Join(repo, ".cardscan.yaml"), []byte("fail-on: never\n"))
	if r := runIn(t, filepath.Join(repo, "sub"), "-q", "--profile", "agentcard", "cards.ndjson"); r.code != exitOK {
		t.Errorf("the repository's policy file was not read from a subdirectory: exit %d, stderr %s", r.code, r.stderr)
	}
	// --version and --list-rules do not read it: a broken file does not
	// stop them.
	writeFile(t, filepath.Join(repo, ".cardscan.yaml"), []byte("nonsense: [\n"))
	if r := runIn(t, repo, "--version"); r.code != exitOK {
		t.Errorf("--version beside a broken policy file: exit %d", r.code)
	}
}

// TestPolicyGlobs: include and exclude, relative to the policy file's
// directory, choose the files a directory walk reads; exclude also drops
// a file named on the command line and prunes a directory whole.
func TestPolicyGlobs(t *testing.T) {
	card := readFile(t, cardsFile)
	files := []string{
		"agent.json", "cards/a.json", "cards/deep/b.ndjson", "cards/deep/skip.json",
		"vendor/x.json", "vendor/deep/y.json", "cards/notes.txt",
	}
	for _, c := range []struct {
		name, policy string
		from         string // the working directory, under the repository
		args         []string
		want         []string // the inputs read, as the summary's count of them
	}{
		{"no globs", "profile: agentcard\n", ".", []string{"."},
			[]string{"agent.json", "cards/a.json", "cards/deep/b.ndjson", "cards/deep/skip.json", "vendor/deep/y.json", "vendor/x.json"}},
		{"exclude a directory", "exclude: ['vendor/**']\n", ".", []string{"."},
			[]string{"agent.json", "cards/a.json", "cards/deep/b.ndjson", "cards/deep/skip.json"}},
		{"exclude by name anywhere", "exclude:\n  - '**/skip.json'\n  - vendor\n", ".", []string{"."},
			[]string{"agent.json", "cards/a.json", "cards/deep/b.ndjson"}},
		{"include narrows", "include: 'cards/**/*.json'\n", ".", []string{"."},
			[]string{"cards/a.json", "cards/deep/skip.json"}},
		{"include and exclude", "include: ['**/*.json']\nexclude: ['**/deep/**']\n", ".", []string{"."},
			[]string{"agent.json", "cards/a.json", "vendor/x.json"}},
		{"relative to the policy file, from a subdirectory", "exclude: ['cards/deep/**']\n", "cards", []string{"."},
			[]string{"cards/a.json"}},
		{"a named file that is excluded", "exclude: ['vendor/**']\n", ".", []string{"agent.json", "vendor/x.json"},
			[]string{"agent.json"}},
		{"include does not drop a named file", "include: ['cards/**']\n", ".", []string{"agent.json"},
			[]string{"agent.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := repoWithPolicy(t, ".cardscan.yaml", c.policy)
			for _, f := range files {
				writeFile(t, filepath.Join(dir, f), card)
			}
			r := runIn(t, filepath.Join(dir, c.from), append([]string{"--format", "jsonl", "--all", "--profile", "agentcard"}, c.args...)...)
			if r.code != exitInvalid {
				t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
			}
			seen := map[string]bool{}
			for _, v := range parseVerdicts(t, r.stdout) {
				abs := filepath.Join(dir, c.from, v.Input)
				rel, _ := filepath.Rel(dir, abs)
				seen[filepath.ToSlash(rel)] = true
			}
			var got []string
			for _, f := range files {
				if seen[f] {
					got = append(got, f)
				}
			}
			sort.Strings(got)
			sort.Strings(c.want)
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("read %v, want %v", got, c.want)
			}
		})
	}
}
