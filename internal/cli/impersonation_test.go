package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lookalikeCards are planted for content.impersonation: B's name passes
// for A's with a Cyrillic а on another domain, E's host passes for A's;
// C and D share a name honestly spelt alike, F shares A's origin and
// spells its provider as A does but for case.
var lookalikeCards = []string{
	`{"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAA","name":"PayPal Agent","version":"1.0.0","capabilities":[{"id":"pay","description":"Pays."}],"endpoint":{"protocol":"https","url":"https://agents.paypal.com/a"}}`,
	`{"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAB","name":"P` + "\u0430" + `yPal Agent","version":"1.0.0","capabilities":[{"id":"pay","description":"Pays."}],"endpoint":{"protocol":"https","url":"https://paypa1-agents.example/a"}}`,
	`{"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAC","name":"Weather Agent","version":"1.0.0","capabilities":[{"id":"w","description":"Weather."}],"endpoint":{"protocol":"https","url":"https://a.weather.example/x"}}`,
	`{"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAD","name":"Weather Agent","version":"1.0.0","capabilities":[{"id":"w","description":"Weather."}],"endpoint":{"protocol":"https","url":"https://other.example/x"}}`,
	`{"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAE","name":"Ledger","version":"1.0.0","capabilities":[{"id":"l","description":"Ledger."}],"endpoint":{"protocol":"https","url":"https://p` + "\u0430" + `ypal.com/a"}}`,
	`{"name":"Pay Desk","description":"Pays.","provider":{"organization":"paypal","url":"https://paypal.com"},"supportedInterfaces":[{"url":"https://desk.paypal.com/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"version":"1.0.0","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"pay","name":"Pay","description":"Pays.","tags":["pay"]}]}`,
	`{"name":"Pay Desk Two","description":"Pays.","provider":{"organization":"PayPal","url":"https://paypal.com"},"supportedInterfaces":[{"url":"https://two.paypal.com/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"version":"1.0.0","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"pay","name":"Pay","description":"Pays.","tags":["pay"]}]}`,
}

// wantLookalikes: a finding names every record of its skeleton, the
// honest ones too (which is which, the reader tells).
var wantLookalikes = []string{
	"host paypal.com: in.ndjson:1, in.ndjson:5, in.ndjson:6, in.ndjson:7",
	"name paypal agent: in.ndjson:1, in.ndjson:2",
}

// impersonations returns the content.impersonation findings of jsonl
// output as "KEY: PLACES".
func impersonations(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var f struct {
			Rule    string `json:"rule"`
			Key     string `json:"key"`
			Records []struct {
				Input string `json:"input"`
				Line  int    `json:"line"`
			} `json:"records"`
		}
		if err := json.Unmarshal([]byte(line), &f); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if f.Rule != "content.impersonation" {
			continue
		}
		var places []string
		for _, p := range f.Records {
			places = append(places, fmt.Sprintf("%s:%d", p.Input, p.Line))
		}
		slices.Sort(places)
		got = append(got, f.Key+": "+strings.Join(places, ", "))
	}
	slices.Sort(got)
	return got
}

func TestCrossCardFindsLookalikes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "in.ndjson"), []byte(strings.Join(lookalikeCards, "\n")+"\n"))
	for _, memory := range []string{"1GiB", "1KiB"} {
		r := runIn(t, dir, "--cross-card", "--memory", memory, "--format", "jsonl", "in.ndjson")
		if got := impersonations(t, r.stdout); !slices.Equal(got, wantLookalikes) {
			t.Errorf("memory %s: findings\n%s\nwant\n%s", memory, strings.Join(got, "\n"), strings.Join(wantLookalikes, "\n"))
		}
	}
	// Across shards: each shard's claims in a digest file, judged by merge.
	var digests []string
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("claims-%d", i))
		r := runIn(t, dir, "--format", "jsonl", "--shard", fmt.Sprintf("%d/3", i), "--shard-by", "record", "--digest-out", p, "in.ndjson")
		if r.code > 1 {
			t.Fatalf("shard %d: %d %s", i, r.code, r.stderr)
		}
		digests = append(digests, p)
	}
	m := runIn(t, dir, append([]string{"merge", "--format", "jsonl"}, digests...)...)
	if m.code > 1 {
		t.Fatalf("merge: %d %s", m.code, m.stderr)
	}
	if got := impersonations(t, m.stdout); !slices.Equal(got, wantLookalikes) {
		t.Errorf("merged shards: findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantLookalikes, "\n"))
	}
}
