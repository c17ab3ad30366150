package compare

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Kind groups the tools of a table.
type Kind int

const (
	// KindFloor checks JSON syntax at most: how fast bytes can be read.
	KindFloor Kind = iota
	// KindPeer is what users run today instead of cardscan.
	KindPeer
	// KindLibrary is cardscan's fastvalidate in process, on one core.
	KindLibrary
	// KindCLI is the cardscan binary, timed from outside.
	KindCLI
)

// Tool is one row of a table: a command that judges a corpus and reports
// counts and the time of its own loop.
type Tool struct {
	Key  string // stable id: verdict file names, -tools filter
	Name string // row label
	Kind Kind
	// Judges is false for floors that pass every record (newline splitting,
	// decompression): their valid/invalid columns stay empty.
	Judges bool
	// Profile is the fastvalidate profile, for the library and the CLI.
	Profile string
	// Verdicts is true when the tool can list per-record verdicts.
	Verdicts bool
	// Versus is the key of the cardscan row on the same rule set, which
	// the ratio column compares with; "" means the corpus's reference.
	Versus string

	argv func(c Corpus, verdicts, summary string) []string
	env  []string
}

// Env is what the tools need from the machine.
type Env struct {
	Bin      string   // built Go drivers and the cardscan binary
	BenchDir string   // the bench module, working directory of every tool
	Schema   string   // AgentCard JSON Schema file
	Node     string   // node executable, "" when ajv is not installed
	CLI      bool     // the cardscan binary was built
	Profiles []string // fastvalidate profiles this tree has
}

// singleCore pins a Go driver to one P. Every Go driver judges on one
// goroutine anyway; this keeps the runtime's own background work (GC) on
// the same core, as ajv's single JS thread is.
var singleCore = []string{"GOMAXPROCS=1"}

func (e Env) driver(key, name string, kind Kind, judges bool, extra ...string) Tool {
	bin := filepath.Join(e.Bin, key)
	return Tool{
		Key: key, Name: name, Kind: kind, Judges: judges, Verdicts: judges,
		env: singleCore,
		argv: func(c Corpus, verdicts, _ string) []string {
			args := append([]string{bin}, extra...)
			if verdicts != "" {
				args = append(args, "-verdicts", verdicts)
			}
			return append(args, c.Path)
		},
	}
}

func (e Env) library(profile string) Tool {
	t := e.driver("fastvalidate", "cardscan "+profile+" (library, 1 core)", KindLibrary, true, "-profile", profile)
	t.Key = "fastvalidate-" + profile
	t.Profile = profile
	return t
}

func (e Env) floors() []Tool {
	zst := e.driver("zstd", "klauspost zstd decode (.zst)", KindFloor, false)
	bin := filepath.Join(e.Bin, "zstd")
	zst.argv = func(c Corpus, _, _ string) []string { return []string{bin, c.Zst} }
	return []Tool{
		e.driver("newline", "newline split", KindFloor, false),
		zst,
		e.driver("fastjson", "valyala/fastjson parse", KindFloor, true),
		e.driver("stdjson", "encoding/json.Valid", KindFloor, true),
		e.driver("sonic", "bytedance/sonic.Valid", KindFloor, true),
	}
}

func (e Env) schemaPeers() []Tool {
	js := e.driver("jsonschema", "santhosh-tekuri/jsonschema v6", KindPeer, true, "-schema", e.Schema)
	js.Versus = "fastvalidate-agentcard-schema"
	tools := []Tool{js}
	if e.Node == "" {
		return tools
	}
	script := filepath.Join(e.BenchDir, "ajv", "validate.mjs")
	ajv := func(key, name string, extra ...string) Tool {
		return Tool{
			Key: key, Name: name, Kind: KindPeer, Judges: true, Verdicts: true,
			Versus: "fastvalidate-agentcard-schema",
			argv: func(c Corpus, verdicts, _ string) []string {
				args := append([]string{e.Node, script, "--schema", e.Schema}, extra...)
				if verdicts != "" {
					args = append(args, "--verdicts", verdicts)
				}
				return append(args, c.Path)
			},
		}
	}
	// ajv stops at a card's first error unless told otherwise; cardscan and
	// jsonschema report every one, so both ways are shown.
	all := ajv("ajv-all", "ajv 8 + ajv-formats, allErrors (Node.js)", "--all-errors")
	all.Verdicts = false // the same verdicts as ajv's
	return append(tools, ajv("ajv", "ajv 8 + ajv-formats (Node.js)"), all)
}

func (e Env) a2aPeer() Tool {
	t := e.driver("a2ago", "a2a-go v0.3 AgentCard decode", KindPeer, true)
	t.Versus = "fastvalidate-a2a"
	return t
}

// cli returns the cardscan binary's rows: one and two workers, plain and
// zstd input. Counts come from its --summary file.
func (e Env) cli(profile string) []Tool {
	if !e.CLI {
		return nil
	}
	bin := filepath.Join(e.Bin, "cardscan")
	var tools []Tool
	for _, zst := range []bool{false, true} {
		for _, jobs := range []string{"1", "2"} {
			name, key := "cardscan CLI -j "+jobs, "cli-j"+jobs
			if zst {
				name, key = name+" (.zst)", key+"-zst"
			}
			tools = append(tools, Tool{
				Key: key, Name: name, Kind: KindCLI, Judges: true, Profile: profile,
				argv: func(c Corpus, _, summary string) []string {
					in := c.Path
					if zst {
						in = c.Zst
					}
					return []string{bin, "--quiet", "-j", jobs, "--profile", profile, "--summary", summary, in}
				},
			})
		}
	}
	return tools
}

func (e Env) has(profile string) bool { return slices.Contains(e.Profiles, profile) }

// Tools returns the rows of a corpus's table, floors first. Peers join only
// the corpora they can judge: the AgentCard schema's validators the
// AgentCard dumps, the A2A SDK the A2A dump, and all of them the real cards.
func (e Env) Tools(c Corpus) []Tool {
	tools := e.floors()
	var profiles []string
	cliProfile := ""
	switch c.Dialect {
	case DialectDraft:
		tools = append(tools, e.schemaPeers()...)
		profiles, cliProfile = []string{"agentcard", "agentcard-schema"}, "agentcard"
	case DialectSchema:
		tools = append(tools, e.schemaPeers()...)
		profiles, cliProfile = []string{"agentcard-schema", "agentcard"}, "agentcard-schema"
	case DialectA2A:
		tools = append(tools, e.a2aPeer())
		profiles, cliProfile = []string{"a2a"}, "a2a"
	case DialectMixed:
		tools = append(tools, e.schemaPeers()...)
		tools = append(tools, e.a2aPeer())
		profiles, cliProfile = []string{"agentcard", "agentcard-schema", "a2a", "auto"}, "auto"
	}
	for _, p := range profiles {
		if e.has(p) {
			tools = append(tools, e.library(p))
		}
	}
	if e.has(cliProfile) {
		tools = append(tools, e.cli(cliProfile)...)
	}
	return tools
}

// Reference returns the key of the row the others are compared with: the
// library on the profile that matches the corpus's dialect.
func Reference(c Corpus) string {
	switch c.Dialect {
	case DialectSchema:
		return "fastvalidate-agentcard-schema"
	case DialectA2A:
		return "fastvalidate-a2a"
	}
	return "fastvalidate-agentcard"
}

// cliSummary is the part of the cardscan --summary file the table needs.
type cliSummary struct {
	Records int     `json:"records"`
	Valid   int     `json:"valid"`
	Invalid int     `json:"invalid"`
	Seconds float64 `json:"seconds"`
}

func readCLISummary(path string) (cliSummary, error) {
	var s cliSummary
	raw, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("summary %s: %w", path, err)
	}
	return s, nil
}
