package integrations

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// goodCard passes every rule; badCard breaks version.semver.
const (
	goodCard = `{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":"Weather","version":"1.2.0",` +
		`"capabilities":[{"id":"weather.forecast","description":"Forecasts"}],` +
		`"endpoint":{"protocol":"https","url":"https://weather.example.com/agent"}}` + "\n"
	badCard = "{\n  \"agent_id\": \"01HZQK3P8EMXR9V7T5N2W4J6C0\",\n  \"name\": \"Weather\",\n  \"version\": \"1.0\",\n" +
		`  "capabilities": [{"id": "weather.forecast", "description": "Forecasts"}],` + "\n" +
		`  "endpoint": {"protocol": "https", "url": "https://weather.example.com/agent"}` + "\n}\n"
)

// badLine is where badCard's version.semver finding is.
const badLine = "4"

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cardscanBinary builds cmd/cardscan into a temporary directory.
func cardscanBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cardscan")
	if out, err := exec.Command("go", "build", "-o", bin, root+"/cmd/cardscan").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// action is what the tests read of action.yml.
type action struct {
	Runs struct {
		Using string
		Steps []struct {
			Uses string
			With map[string]string
			ID   string
			Env  map[string]string
			Run  string
		}
	}
	Inputs map[string]struct {
		Default string
	}
	Outputs map[string]struct {
		Value string
	}
}

func readAction(t *testing.T) action {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// runStepEnv returns the environment action.yml's step that runs run.sh
// sets, with its expressions still in.
func runStepEnv(t *testing.T, a action) map[string]string {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, ".github/action/run.sh") {
			return s.Env
		}
	}
	t.Fatal("action.yml: no step runs .github/action/run.sh")
	return nil
}

// TestActionDefinition: action.yml is a composite action that sets up Go
// for its own checkout and hands every input to run.sh.
func TestActionDefinition(t *testing.T) {
	a := readAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using %q, want composite", a.Runs.Using)
	}
	if len(a.Runs.Steps) == 0 || !strings.HasPrefix(a.Runs.Steps[0].Uses, "actions/setup-go@") ||
		!strings.Contains(a.Runs.Steps[0].With["go-version-file"], "github.action_path") {
		t.Errorf("the first step does not set up Go from the action's go.mod: %+v", a.Runs.Steps)
	}
	for _, in := range []string{"paths", "profile", "config", "format"} {
		if _, ok := a.Inputs[in]; !ok {
			t.Errorf("no input %s", in)
		}
	}
	if d := a.Inputs["format"].Default; d != "github" {
		t.Errorf("format defaults to %q, want github", d)
	}
	env := runStepEnv(t, a)
	for in := range a.Inputs {
		name := "INPUT_" + strings.ToUpper(strings.ReplaceAll(in, "-", "_"))
		if env[name] != "${{ inputs."+in+" }}" {
			t.Errorf("input %s does not reach run.sh as %s: %q", in, name, env[name])
		}
	}
	if v := a.Outputs["sarif-file"].Value; v != "${{ steps.run.outputs.sarif-file }}" {
		t.Errorf("output sarif-file is %q", v)
	}
}

// expr is a GitHub Actions expression in action.yml's env.
var expr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// actionEnv is the environment the Action gives run.sh for inputs (the
// defaults for those not given), resolving action.yml's expressions as
// the runner would, with runnerTemp as runner.temp.
func actionEnv(t *testing.T, a action, inputs map[string]string, runnerTemp string) []string {
	t.Helper()
	var env []string
	for name, value := range runStepEnv(t, a) {
		value = expr.ReplaceAllStringFunc(value, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			switch {
			case e == "runner.temp":
				return runnerTemp
			case strings.HasPrefix(e, "inputs."):
				in := strings.TrimPrefix(e, "inputs.")
				def, ok := a.Inputs[in]
				if !ok {
					t.Fatalf("action.yml: %s names no input", e)
				}
				if v, ok := inputs[in]; ok {
					return v
				}
				return def.Default
			}
			t.Fatalf("action.yml: the test cannot resolve %s", e)
			return ""
		})
		env = append(env, name+"="+value)
	}
	for in := range inputs {
		if _, ok := a.Inputs[in]; !ok {
			t.Fatalf("the test gives input %s, which action.yml does not declare", in)
		}
	}
	return env
}

// TestActionRun runs .github/action/run.sh as the Action does, with the
// environment action.yml's step gives it, on a workspace holding a good
// actionInstalled sets run.sh up as the runner does, cardscan built where
// action.yml leaves it under runnerTemp, and returns the action, the
// script's path, runnerTemp and the binary.
func actionInstalled(t *testing.T) (a action, script, runnerTemp, bin string) {
	t.Helper()
	a = readAction(t)
	script, err := filepath.Abs(filepath.Join(root, ".github/action/run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	runnerTemp = t.TempDir()
	bin = filepath.Join(runnerTemp, "cardscan-bin", "cardscan")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(cardscanBinary(t), bin); err != nil {
		t.Fatal(err)
	}
	return a, script, runnerTemp, bin
}

// runScript runs script with bash in dir under env, and returns its exit
// status and output.
func runScript(t *testing.T, script, dir string, env []string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command("bash", script)
	cmd.Dir, cmd.Env = dir, env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// and a bad card.
func TestActionRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cardscan")
	}
	a, script, runnerTemp, bin := actionInstalled(t)
	sarif := false
	if out, _ := exec.Command(bin, "--help").Output(); strings.Contains(string(out), "sarif") {
		sarif = true
	}

	work := t.TempDir()
	writeFile(t, filepath.Join(work, ".well-known/agent-card.json"), goodCard)
	writeFile(t, filepath.Join(work, "bad/agent.json"), badCard)
	policy := filepath.Join(t.TempDir(), "lenient.yaml")
	writeFile(t, policy, "rules:\n  version.semver: warning\n")
	badAnnotation := "::error file=bad/agent.json,line=" + badLine + ","
	// A second workspace holds an A2A 0.3 card, which migrate-check
	// a2a/1.0 finds would change, beside the bad card.
	work03 := t.TempDir()
	card03, err := os.ReadFile(filepath.Join(root, "internal/migrate/testdata/cards/invoice-0.3-indent2.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work03, "agent-card.json"), string(card03))
	writeFile(t, filepath.Join(work03, "bad/agent.json"), badCard)

	for _, c := range []struct {
		name   string
		inputs map[string]string
		code   int
		want   []string // in stdout
		reject []string // not in stdout
		sarif  bool
		dir    string // the workspace, when not work
	}{
		{"defaults", nil, 1, []string{badAnnotation, "title=version.semver"}, []string{"agent-card.json"}, false, ""},
		{"a good path", map[string]string{"paths": ".well-known/agent-card.json"}, 0, nil, []string{"::error"}, false, ""},
		{"paths on lines", map[string]string{"paths": ".well-known/agent-card.json\nbad/agent.json\n"}, 1, []string{badAnnotation}, nil, false, ""},
		// The pattern is named as an input that could not be read; no
		// card's finding is annotated, as it would be were it expanded.
		{"a glob is not expanded", map[string]string{"paths": "bad/*.json"}, 3, []string{"::error title=cardscan::bad/*.json: "}, []string{"::error file="}, false, ""},
		{"profile", map[string]string{"profile": "a2a"}, 1, []string{"file=.well-known/agent-card.json"}, nil, false, ""},
		{"config", map[string]string{"config": policy}, 0, []string{"::warning file=bad/agent.json,line=" + badLine + ","}, []string{"::error"}, false, ""},
		{"another format is passed on", map[string]string{"format": "jsonl"}, 1, []string{`{"input":"bad/agent.json"`}, nil, false, ""},
		{"sarif", map[string]string{"format": "sarif", "sarif-file": "out/cards.sarif"}, 1, nil, nil, true, ""},
		// migrate-check runs before validation: a card that would change
		// fails the step before the bad card is validated ...
		{"migrate-check stops first", map[string]string{"migrate-check": "a2a/1.0"}, 1, nil, []string{"::error"}, false, work03},
		// ... and where none would (no A2A card here), validation runs.
		{"migrate-check then validation", map[string]string{"migrate-check": "a2a/1.0", "paths": "bad/agent.json"}, 1, []string{badAnnotation}, nil, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.sarif && !sarif {
				t.Skip("this cardscan has no --format sarif yet")
			}
			if c.sarif {
				if err := os.MkdirAll(filepath.Join(work, "out"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			output := filepath.Join(t.TempDir(), "github_output")
			dir := work
			if c.dir != "" {
				dir = c.dir
			}
			env := append(os.Environ(), actionEnv(t, a, c.inputs, runnerTemp)...)
			code, stdout, stderr := runScript(t, script, dir, append(env, "GITHUB_OUTPUT="+output))
			if c.inputs["migrate-check"] != "" && !strings.Contains(stderr, "migrate: ") {
				t.Errorf("migrate-check did not run cardscan migrate; stderr:\n%s", stderr)
			}
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, stdout, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, r := range c.reject {
				if strings.Contains(stdout, r) {
					t.Errorf("stdout has %q:\n%s", r, stdout)
				}
			}
			if c.sarif {
				checkSARIF(t, filepath.Join(work, "out/cards.sarif"), output)
			}
		})
	}
}

// checkSARIF checks that the Action's SARIF report is a SARIF 2.1.0
// document with the bad card's result, and that its path is the step's
// output.
func checkSARIF(t *testing.T, path, githubOutput string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version string
		Runs    []struct {
			Results []struct {
				RuleID string
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if doc.Version != "2.1.0" || len(doc.Runs) != 1 || len(doc.Runs[0].Results) == 0 || doc.Runs[0].Results[0].RuleID != "version.semver" {
		t.Errorf("SARIF report: %s", b)
	}
	out, err := os.ReadFile(githubOutput)
	if err != nil || !strings.Contains(string(out), "sarif-file=out/cards.sarif\n") {
		t.Errorf("GITHUB_OUTPUT: %q, %v", out, err)
	}
}

// hookRepo commits the working tree's files (tracked, and new ones not
// ignored) to a fresh repository, as pre-commit try-repo needs the hook's
// repository to be, and returns its path.
func hookRepo(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout?)", err)
	}
	dst := filepath.Join(t.TempDir(), "hooks")
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		info, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, name), b, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dst, "init", "-q")
	git(t, dst, "add", "-A")
	git(t, dst, "commit", "-q", "-m", "hooks")
	return dst
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitIdentity...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

var gitIdentity = []string{"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.com",
	"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_CONFIG_NOSYSTEM=1"}

// TestPreCommitHook runs the hook with the real pre-commit (try-repo) on
// a repository holding a good card, a bad one and a JSON file the hook's
// names do not match: the bad card fails with cardscan's message.
func TestPreCommitHook(t *testing.T) {
	if testing.Short() {
		t.Skip("pre-commit builds cardscan")
	}
	preCommit, err := exec.LookPath("pre-commit")
	if err != nil {
		t.Skip("pre-commit is not installed (Debian package pre-commit; make debian-packages installs it): the hook's test is skipped")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH for pre-commit's golang language")
	}
	modCache, err := exec.Command(goTool, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	hooks := hookRepo(t)

	work := filepath.Join(t.TempDir(), "work")
	writeFile(t, filepath.Join(work, ".well-known/agent-card.json"), goodCard)
	writeFile(t, filepath.Join(work, "cards/agent.json"), badCard)
	writeFile(t, filepath.Join(work, "cards/weather.agentcard.json"), goodCard)
	writeFile(t, filepath.Join(work, "package.json"), `{"name": "not a card"}`)
	git(t, work, "init", "-q")
	git(t, work, "add", "-A")

	env := append(os.Environ(), gitIdentity...)
	env = append(env,
		// pre-commit's golang language builds with go install under a
		// GOPATH of its own: the module cache stays the shared one, so
		// that nothing is fetched beyond what the proxy already gave.
		"PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "pre-commit"),
		"GOMODCACHE="+strings.TrimSpace(string(modCache)),
		"GOFLAGS=-mod=mod",
		"GOTOOLCHAIN=local",
	)
	tryRepo := func(dir string, args ...string) (string, int) {
		cmd := exec.Command(preCommit, append([]string{"try-repo", hooks, "cardscan", "--color", "never"}, args...)...)
		cmd.Dir = dir
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("pre-commit: %v\n%s", err, out)
		}
		return string(out), 0
	}

	out, code := tryRepo(work, "--all-files")
	if code != 1 {
		t.Fatalf("pre-commit try-repo --all-files: exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{"Failed", "cards/agent.json:" + badLine + ":14: error: version.semver: /version"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// cardscan saw the three cards and only them: package.json is no
	// card name.
	if !strings.Contains(out, "3 records: 2 valid, 1 invalid") || strings.Contains(out, "package.json") {
		t.Errorf("the hook did not judge exactly the three cards:\n%s", out)
	}

	out, code = tryRepo(work, "--files", ".well-known/agent-card.json", "cards/weather.agentcard.json")
	if code != 0 || !strings.Contains(out, "Passed") {
		t.Errorf("good cards: exit %d\n%s", code, out)
	}

	// A card whose name starts with a dash is judged as a card: taken as
	// a flag, it would write out.agentcard.json, read nothing and pass.
	dashed := filepath.Join(t.TempDir(), "dashed")
	writeFile(t, filepath.Join(dashed, "--format=jsonl=out.agentcard.json"), badCard)
	git(t, dashed, "init", "-q")
	git(t, dashed, "add", "-A")
	out, code = tryRepo(dashed, "--all-files")
	if code != 1 || !strings.Contains(out, "--format=jsonl=out.agentcard.json:"+badLine+":14: error: version.semver") {
		t.Errorf("a card named like a flag: exit %d, want 1 with its finding\n%s", code, out)
	}
	if _, err := os.Lstat(filepath.Join(dashed, "out.agentcard.json")); err == nil {
		t.Error("a card's name was taken as --format and wrote out.agentcard.json")
	}
}

// TestActionFindsCards runs run.sh with action.yml's default paths on a
// git repository holding the JSON an ordinary repository has (package.json,
// tsconfig.json, a dependency under node_modules, a card-named file there
// and one git ignores) beside one card at .well-known/agent-card.json:
// exactly that card is judged. With no card at all, in a git repository or
// not, the job fails with an error annotation.
func TestActionFindsCards(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cardscan")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	a, script, runnerTemp, _ := actionInstalled(t)
	runAction := func(t *testing.T, dir string) (code int, stdout, stderr string) {
		t.Helper()
		// The default format, jsonl, so that every judged input is named;
		// paths as action.yml's default leaves it.
		env := append(os.Environ(), actionEnv(t, a, map[string]string{"format": "jsonl"}, runnerTemp)...)
		return runScript(t, script, dir, append(env, gitIdentity...))
	}

	t.Run("one card among other JSON", func(t *testing.T) {
		repo := t.TempDir()
		git(t, repo, "init", "-q")
		writeFile(t, filepath.Join(repo, "package.json"), `{"name":"site","version":"1.0.0"}`+"\n")
		writeFile(t, filepath.Join(repo, "tsconfig.json"), `{"compilerOptions":{"strict":true}}`+"\n")
		writeFile(t, filepath.Join(repo, "node_modules/x/package.json"), `{"name":"x"}`+"\n")
		writeFile(t, filepath.Join(repo, "node_modules/x/agent.json"), `{"name":"x"}`+"\n")
		writeFile(t, filepath.Join(repo, ".gitignore"), "dist/\n")
		writeFile(t, filepath.Join(repo, "dist/agent-card.json"), badCard)
		writeFile(t, filepath.Join(repo, ".well-known/agent-card.json"), badCard)
		code, stdout, stderr := runAction(t, repo)
		if code != 1 {
			t.Fatalf("exit %d, want 1 (the card is bad)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		var inputs []string
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var v struct{ Input string }
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			inputs = append(inputs, v.Input)
		}
		if len(inputs) != 1 || inputs[0] != ".well-known/agent-card.json" {
			t.Errorf("judged %q, want only .well-known/agent-card.json\nstderr:\n%s", inputs, stderr)
		}
		if !strings.Contains(stderr, " 1 record: ") {
			t.Errorf("the summary does not count one record:\n%s", stderr)
		}
	})

	for _, c := range []struct {
		name string
		git  bool
	}{{"no card in a git repository", true}, {"no card outside git", false}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.git {
				git(t, dir, "init", "-q")
			}
			writeFile(t, filepath.Join(dir, "package.json"), `{"name":"site"}`+"\n")
			writeFile(t, filepath.Join(dir, "node_modules/x/agent.json"), `{"name":"x"}`+"\n")
			code, stdout, stderr := runAction(t, dir)
			if code != 2 || !strings.HasPrefix(stdout, "::error ") || !strings.Contains(stdout, "no agent card found") {
				t.Errorf("exit %d, want 2 with an ::error line\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
		})
	}
}

// TestActionCardNamesAreTheHooks: the names run.sh looks for by default are
// the pre-commit hook's files: pattern, so the two check the same files.
func TestActionCardNamesAreTheHooks(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(root, ".github/action/run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^card_names='([^']*)'$`).FindSubmatch(script)
	if m == nil {
		t.Fatal("run.sh: no card_names='...' line")
	}
	hooks, err := os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hs []struct {
		ID    string
		Files string
	}
	if err := yaml.Unmarshal(hooks, &hs); err != nil {
		t.Fatal(err)
	}
	// The validating hook finds what the Action finds; migrate-check
	// looks only at the names A2A cards go by, a subset.
	var validate string
	for _, h := range hs {
		if h.ID == "cardscan" {
			validate = h.Files
		}
	}
	if validate != string(m[1]) {
		t.Errorf("run.sh looks for %q, the cardscan hook's files: are %+v", m[1], hs)
	}
	re := regexp.MustCompile(string(m[1]))
	for _, name := range []string{"agent-card.json", ".well-known/agent-card.json", "a/agent.json", "agentcard.json", "x.agentcard.json", ".well-known/agentcard"} {
		if !re.MatchString(name) {
			t.Errorf("%s is not a card name", name)
		}
	}
	for _, name := range []string{"package.json", "tsconfig.json", "myagent.json", "agentcard", "agent.json.bak"} {
		if re.MatchString(name) {
			t.Errorf("%s is a card name", name)
		}
	}
}
