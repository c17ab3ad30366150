package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cardscan/cardscan/rule"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/goccy/go-yaml/ast"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/suggest"
	"github.com/cardscan/cardscan/internal/trustfile"
)

// configNames are the names of a policy file, in the order they are
// looked for in each directory.
var configNames = []string{".cardscan.yaml", ".cardscan.yml", ".cardscan.json"}

// maxConfig bounds a policy file: a few dozen lines are a big one, and a
// file far larger was named by mistake.
const maxConfig = trustfile.MaxFileBytes

// configFlags are the policy file's keys that stand for a flag of the same
// name, which overrides them.
var configFlags = []string{"profile", "policy", "fail-on", "format", "min-level"}

// configKeys are every key a policy file may hold.
var configKeys = append(slices.Clone(configFlags), "rules", "include", "exclude", "trust")

// policyFile is a parsed policy file.
type policyFile struct {
	path string
	// dir is the directory the globs are relative to: the file's.
	dir string
	// values holds the keys that stand for flags, with their lines.
	values map[string]setting
	// rules are the rules: map's entries in the file's order.
	rules            []ruleOverride
	include, exclude []string
	// trust is the trust section, read when signatures are verified.
	trust ast.Node
}

type setting struct {
	value string
	line  int
}

// ruleOverride is one rule's severity as a policy file or --rule sets it.
type ruleOverride struct {
	code fastvalidate.Code
	sev  fastvalidate.Severity
}

// findConfig looks for a policy file in dir and its parents, up to the
// root of the repository dir lies in (a directory holding .git), or of the
// file system: a file above the repository belongs to another project, and
// a checkout in CI must not pick up whatever lies above it. It returns ""
// when there is none.
func findConfig(dir string) (string, error) {
	for {
		var found []string
		for _, name := range configNames {
			p := filepath.Join(dir, name)
			st, err := os.Stat(p)
			if err != nil {
				if _, lerr := os.Lstat(p); lerr == nil || !errors.Is(err, fs.ErrNotExist) {
					// A link to nothing or a loop, or a name that cannot
					// be looked at: a policy file meant, not none.
					return "", fmt.Errorf("%s: %s", p, describeLink(err))
				}
			}
			switch {
			case err != nil || st.IsDir():
			case !st.Mode().IsRegular():
				// A FIFO would block the run until someone writes to it.
				return "", fmt.Errorf("%s is not a regular file", p)
			default:
				found = append(found, p)
			}
		}
		switch len(found) {
		case 1:
			return found[0], nil
		case 0:
		default:
			return "", fmt.Errorf("%s and %s are both policy files: keep one", found[0], found[1])
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return "", nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// maxPolicyValue bounds a value of a policy file's keys that stand for
// flags: PATH_MAX, for a format's FILE.
const maxPolicyValue = 4096

// describeLink says why a policy file's name leads nowhere.
func describeLink(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "a symbolic link to nothing (" + describe(err) + ")"
	}
	return describe(err)
}

// loadPolicy reads and checks a policy file. Every mistake is a usage
// error naming the file and the line.
func loadPolicy(path string) (*policyFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, describe(err))
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, maxConfig+1)); err != nil {
		return nil, fmt.Errorf("%s: %s", path, describe(err))
	}
	if buf.Len() > maxConfig {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a policy file", path, maxConfig)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", path, describe(err))
	}
	return parsePolicy(path, filepath.Dir(abs), buf.Bytes())
}

// parsePolicy reads the policy file path holds, src, whose globs are
// relative to dir.
func parsePolicy(path, dir string, src []byte) (*policyFile, error) {
	p := &policyFile{path: path, dir: dir, values: map[string]setting{}}
	at := func(n ast.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, n.GetToken().Position.Line, fmt.Sprintf(format, args...))
	}

	root, err := trustfile.ReadRoot(path, src)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return p, nil // an empty file sets nothing
	}
	entries, ok := trustfile.MappingEntries(root)
	if !ok {
		return nil, at(root, "want a mapping of keys (%s), got %s", strings.Join(configKeys, ", "), trustfile.NodeKind(root))
	}
	for _, e := range entries {
		key, ok := trustfile.Scalar(e.Key)
		if !ok {
			return nil, at(e.Key, "want a key, got %s", trustfile.NodeKind(e.Key))
		}
		v := e.Value
		switch {
		case slices.Contains(configFlags, key):
			value, ok := trustfile.Scalar(v)
			if !ok {
				return nil, at(v, "%s: want a string, got %s", key, trustfile.NodeKind(v))
			}
			if len(value) > maxPolicyValue {
				// No profile, policy, level or format is this long; a
				// format's FILE is a path, within PATH_MAX.
				return nil, at(v, "%s: %s is no value of it", key, trustfile.Quote(value))
			}
			if key == "profile" {
				if err := cmdflag.CheckProfile(value); err != nil {
					return nil, at(v, "%s", err)
				}
			}
			p.values[key] = setting{value, v.GetToken().Position.Line}
		case key == "rules":
			if err := p.readRules(v, at); err != nil {
				return nil, err
			}
		case key == "trust":
			// Checked now, so that a mistake is a usage error whatever
			// the run verifies; read again when a verifier is built.
			if _, err := trustfile.Parse(path, dir, v); err != nil {
				return nil, err
			}
			p.trust = v
		case key == "include" || key == "exclude":
			globs, err := readGlobs(key, v, at)
			if err != nil {
				return nil, err
			}
			if key == "include" {
				p.include = globs
			} else {
				p.exclude = globs
			}
		default:
			msg := fmt.Sprintf("unknown key %s; known keys: %s", trustfile.Quote(key), strings.Join(configKeys, ", "))
			if near := suggest.Nearest(key, configKeys); near != "" {
				msg = fmt.Sprintf("unknown key %s: did you mean %s?", trustfile.Quote(key), near)
			}
			return nil, at(e.Key, "%s", msg)
		}
	}
	return p, nil
}

func (p *policyFile) readRules(v ast.Node, at func(ast.Node, string, ...any) error) error {
	if _, null := v.(*ast.NullNode); null {
		return nil
	}
	entries, ok := trustfile.MappingEntries(v)
	if !ok {
		return at(v, "rules: want a mapping of rule IDs to off, warning or error, got %s", trustfile.NodeKind(v))
	}
	for _, e := range entries {
		id, _ := trustfile.Scalar(e.Key)
		level, ok := trustfile.Scalar(e.Value)
		if !ok {
			return at(e.Value, "rules: %s: want off, warning or error, got %s", id, trustfile.NodeKind(e.Value))
		}
		r, err := parseOverride(id, level)
		if err != nil {
			n := ast.Node(e.Key)
			var le levelError
			if errors.As(err, &le) {
				n = e.Value
			}
			return at(n, "rules: %s", err)
		}
		p.rules = append(p.rules, r)
	}
	return nil
}

func readGlobs(key string, v ast.Node, at func(ast.Node, string, ...any) error) ([]string, error) {
	nodes := []ast.Node{v}
	if seq, ok := v.(*ast.SequenceNode); ok {
		nodes = seq.Values
	}
	var globs []string
	for _, n := range nodes {
		text, ok := trustfile.Scalar(n)
		if !ok || text == "" {
			return nil, at(n, "%s: want a glob or a list of globs, got %s", key, trustfile.NodeKind(n))
		}
		g := strings.TrimPrefix(filepath.ToSlash(text), "./")
		if !doublestar.ValidatePattern(g) || strings.HasPrefix(g, "/") {
			return nil, at(n, "%s: %q is not a glob relative to the policy file's directory", key, text)
		}
		globs = append(globs, g)
	}
	return globs, nil
}

// levelError is a bad level, as against a bad rule ID: a policy file's
// message names the level's line.
type levelError struct{ msg string }

func (e levelError) Error() string { return e.msg }

// parseOverride reads RULE and LEVEL, as --rule and a policy file's rules
// write them.
func parseOverride(id, level string) (ruleOverride, error) {
	r, ok := rule.Lookup(id)
	if !ok {
		ids := ruleIDs()
		if near := suggest.Nearest(id, ids); near != "" {
			return ruleOverride{}, fmt.Errorf("unknown rule %s; the closest known rule is %s", trustfile.Quote(id), near)
		}
		return ruleOverride{}, fmt.Errorf("unknown rule %s (cardscan --list-rules lists them)", trustfile.Quote(id))
	}
	sev, ok := rule.ParseSeverity(level)
	if !ok {
		return ruleOverride{}, levelError{fmt.Sprintf("%s: level %s: want off, warning or error", id, trustfile.Quote(level))}
	}
	if sev != fastvalidate.SeverityError && fastvalidate.Unjudged(r.Code) {
		return ruleOverride{}, levelError{fmt.Sprintf("%s cannot be %s: a card it rejects is not judged further", id, sev)}
	}
	return ruleOverride{code: r.Code, sev: sev}, nil
}

func ruleIDs() []string {
	var ids []string
	for _, r := range rule.All() {
		ids = append(ids, r.ID)
	}
	return ids
}

// ruleFlag is --rule RULE=LEVEL, checked as it is parsed so that the
// error names the flag.
type ruleFlag struct{ list *[]ruleOverride }

func (f ruleFlag) String() string { return "" }

func (f ruleFlag) Set(v string) error {
	id, level, ok := strings.Cut(v, "=")
	if !ok {
		return errors.New("want RULE=off, RULE=warning or RULE=error")
	}
	r, err := parseOverride(id, level)
	if err != nil {
		return err
	}
	*f.list = append(*f.list, r)
	return nil
}

// applyPolicy finds the policy file (--config, or one in the working
// directory or a parent) and sets from it what the command line left
// unset: a flag overrides the file, which overrides the defaults.
func applyPolicy(o *options, set func(name string) bool) error {
	path := o.config
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil // no directory to look from: no policy file
		}
		if path, err = findConfig(wd); err != nil || path == "" {
			return err
		}
		// Messages name the file as the user would reach it from here.
		if rel, err := filepath.Rel(wd, path); err == nil {
			path = rel
		}
	}
	p, err := loadPolicy(path)
	if err != nil {
		return err
	}
	o.policyFile = p
	dst := map[string]*string{"profile": &o.Profile, "policy": &o.Policy, "fail-on": &o.failOn, "format": &o.format, "min-level": &o.minLevel}
	for key, s := range p.values {
		if !set(key) {
			*dst[key] = s.value
		}
	}
	// The file's rules come first, so that --rule overrides them.
	o.overrides = append(slices.Clone(p.rules), o.overrides...)
	return nil
}

// fromPolicy rewrites a usage error about a flag whose value came from
// the policy file so that it names the file and line: the file may set a
// format that the flag's own check refuses.
func fromPolicy(o *options, set func(string) bool, err error) error {
	if o.policyFile == nil {
		return err
	}
	for key, s := range o.policyFile.values {
		if rest, ok := strings.CutPrefix(err.Error(), "--"+key+" "); ok && !set(key) {
			return usagef("%s:%d: %s %s", o.policyFile.path, s.line, key, rest)
		}
	}
	return err
}

// overrideOptions are the validator options for the overrides in force.
func overrideOptions(rules []ruleOverride) []fastvalidate.Option {
	var opts []fastvalidate.Option
	for _, r := range rules {
		opts = append(opts, fastvalidate.WithSeverity(r.code, r.sev))
	}
	return opts
}

// overridesInForce maps each overridden rule's ID to its level, the last
// one set winning, for the summary.
func overridesInForce(rules []ruleOverride) map[string]string {
	if len(rules) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, r := range rules {
		m[r.code.String()] = r.sev.String()
	}
	return m
}

// overrideTable is the overrides as a table by rule, for what judges
// findings outside the validator (signature verification).
func overrideTable(rules []ruleOverride) map[fastvalidate.Code]fastvalidate.Severity {
	if len(rules) == 0 {
		return nil
	}
	m := map[fastvalidate.Code]fastvalidate.Severity{}
	for _, r := range rules {
		m[r.code] = r.sev
	}
	return m
}

// pathFilter decides from a policy file's include and exclude globs which
// files are read. The globs are doublestar patterns (** crosses
// directories) matched against a path relative to the policy file's
// directory, with forward slashes; a file outside that directory is not
// filtered.
type pathFilter struct {
	dir              string
	include, exclude []string
}

func newPathFilter(p *policyFile) *pathFilter {
	if p == nil || len(p.include) == 0 && len(p.exclude) == 0 {
		return nil
	}
	return &pathFilter{dir: p.dir, include: p.include, exclude: p.exclude}
}

// rel returns path relative to the filter's directory, or false when it
// lies outside it.
func (f *pathFilter) rel(path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(f.dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}

// excluded reports whether an exclude glob matches path: a file named on
// the command line, or a directory, which the walk then skips whole.
func (f *pathFilter) excluded(path string) bool {
	if f == nil {
		return false
	}
	rel, ok := f.rel(path)
	return ok && rel != "." && matchAny(f.exclude, rel)
}

// walked reports whether a file a directory walk found is read: it
// matches an include glob, if there are any, and no exclude glob.
func (f *pathFilter) walked(path string) bool {
	if f == nil {
		return true
	}
	rel, ok := f.rel(path)
	if !ok {
		return true
	}
	if len(f.include) > 0 && !matchAny(f.include, rel) {
		return false
	}
	return !matchAny(f.exclude, rel)
}
