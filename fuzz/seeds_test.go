package fuzz

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
)

// handSeeds are small cards that reach every rule of the card profiles.
var handSeeds = []string{
	`{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":"ResearchAnalyst","version":"1.2.0","capabilities":[{"id":"text.summarise","description":"Summarise a document to a given word limit.","input_schema":{"type":"object","properties":{"text":{"type":"string"},"max_words":{"type":"integer","default":200}},"required":["text"]}},{"id":"tool.web_search","description":"Search the public web and return top-k results.","tags":["search","retrieval"]}],"endpoint":{"protocol":"https","url":"https://agents.example.com/api/research-analyst","auth":{"scheme":"bearer"}},"pricing":{"base_cost_joules":2.854e-21,"per_token_joules":1.4e-24},"metadata":{"pacr:trust_tier":"established","framework":"crewai"},"goal_subscriptions":[{"goal_id":"01HZQK3P8EMXR9V7T5N2W4J6C1","priority":0.8}]}`,
	`{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":"A","version":"1.0.0","capabilities":[{"id":"a","description":"d"}],"endpoint":{"protocol":"http","url":"http://a.example"}}`,
	`{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":"Schema","version":"0.3.2-beta.1","capabilities":[{"id":"code.review","description":"Review code.","tags":["a","b"],"input_schema":null,"output_schema":{}}],"endpoint":{"protocol":"grpc","url":"grpc://agents.example.com:443","health_url":"https://agents.example.com/health","auth":{"scheme":"oauth2","token_url":"https://auth.example.com/token","header":"X-API-Key"}},"pricing":{"base_cost_joules":1e-18,"estimated_latency_ms":120.0,"currency":"USDC","cost_per_request":0.001},"metadata":{"pacr:interaction_count":12,"pacr:reputation_score":1.0,"pacr:avg_latency_ms":3.5}}`,
	`"{\"agent_id\":\"01HZQK3P8EMXR9V7T5N2W4J6C0\",\"name\":\"E\",\"version\":\"1.0.0\",\"capabilities\":[{\"id\":\"a\",\"description\":\"d\"}],\"endpoint\":{\"protocol\":\"mcp\",\"url\":\"mcp://a\"}}"`,
	`{"agent_id":"81hzqk3p8emxr9v7t5n2w4j6cI","name":"","version":"01.0","capabilities":[{"id":"A b"},7],"endpoint":{"protocol":"HTTPS","url":"a b","auth":{"scheme":"Bearer"}},"pricing":{"base_cost_joules":1e-400,"per_token_joules":-0},"metadata":{"pacr:trust_tier":"gold"},"goal_subscriptions":[{"priority":1.00000000000000000001}]}`,
	`{"a":1,"\u0061":2}`,
	`{"name":"\ud83d\ude00\ud800"}`,
	`[[[[[[[[[[]]]]]]]]]]`,
	``,
	` `,
	`nul`,
	`{"a":[1,2,{"b":null}],"c":-0.0e+5}`,
}

// interesting are fragments that sit at the edges of the strict grammar;
// the mutator splices them in.
var interesting = []string{
	`\ud800`, `\udc00`, `\ud83d\ude00`, `\u0000`, `\u0061`, `\"`, `\\`, `\/`, `\x`, `\u12`,
	`,`, `:`, `{`, `}`, `[`, `]`, `"`, `""`, `"a":1,`, `"a":`, `01`, `-0`, `1e400`, `1.`, `.5`, `NaN`,
	`true`, `null`, `fals`, "\xef\xbb\xbf", "\xc0\xaf", "\xed\xa0\x80", "\xe2\x82", "\xf5", "\x80", "\x00",
	"\t", "\n", " ", "/*c*/", "é", "😀",
}

// mutate returns a copy of b with a few random edits: bytes replaced,
// fragments inserted, ranges deleted or repeated (which makes duplicate
// member names).
func mutate(r *rand.Rand, b []byte) []byte {
	out := append([]byte(nil), b...)
	for n := 1 + r.IntN(3); n > 0; n-- {
		if len(out) == 0 {
			out = append(out, interesting[r.IntN(len(interesting))]...)
			continue
		}
		i := r.IntN(len(out))
		switch r.IntN(6) {
		case 0:
			out[i] = "\"\\{}[],:0-+.eEu \t\n\x80\xc0\xed\xf5\x00"[r.IntN(23)]
		case 1, 2:
			frag := interesting[r.IntN(len(interesting))]
			out = append(out[:i], append([]byte(frag), out[i:]...)...)
		case 3:
			j := min(len(out), i+1+r.IntN(8))
			out = append(out[:i], out[j:]...)
		case 4:
			j := min(len(out), i+1+r.IntN(40))
			out = append(out[:j], append(append([]byte(nil), out[i:j]...), out[j:]...)...)
		case 5:
			out[i] ^= byte(1 << r.IntN(8))
		}
	}
	return out
}

// repoRoot finds the repository root from the test's working directory
// (the fuzz module), so that shared/ is found beside the checkout.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	return filepath.Dir(filepath.Dir(file))
}

// sharedPath returns a path under shared/ beside the repository, or skips
// the test when that directory is absent.
func sharedPath(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(repoRoot(t)), "shared", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared/%s not found beside the repository (%v)", rel, err)
	}
	return p
}

// realCards returns the real-world cards under shared/corpus/real beside
// the repository, skipping the test when there are none. They feed only
// the *Real tests: the seeds and mutants of every other test and fuzz
// target are the project's own, so that their outcome is the same on any
// checkout.
func realCards(t testing.TB) [][]byte {
	t.Helper()
	dir := sharedPath(t, filepath.Join("corpus", "real"))
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var cards [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) <= maxFuzzInput {
			cards = append(cards, b)
		}
	}
	if len(cards) == 0 {
		t.Skipf("no real cards of at most %d bytes in %s", maxFuzzInput, dir)
	}
	return cards
}

// seedCards are the inputs the fuzz targets start from and the
// differential tests mutate: the hand seeds and generated cards, nothing
// from outside the repository.
func seedCards(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, s := range handSeeds {
		seeds = append(seeds, []byte(s))
	}
	seeds = append(seeds, generatedCards(t, 200)...)
	return seeds
}
