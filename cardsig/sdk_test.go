package cardsig

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/go-jose/go-jose/v4"
)

// sdkCard is an A2A 1.0 card holding only members of the AgentCard
// message, none of them empty: the one card every variant agrees on.
const sdkCard = `{"name":"Geo Route Planner","description":"Plans routes","version":"1.2.0","supportedInterfaces":[{"url":"https://geo.example.com/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["application/json"],"skills":[{"id":"route","name":"Route","description":"Finds a route","tags":["maps"]}]}`

// sdkEmptyCard has an empty description and a member the AgentCard
// message lacks (0.x's url): the SDK signs neither.
const sdkEmptyCard = `{"name":"Geo Route Planner","description":"","url":"https://geo.example.com/a2a","version":"1.2.0","supportedInterfaces":[{"url":"https://geo.example.com/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["application/json"],"skills":[{"id":"route","name":"Route","description":"Finds a route","tags":["maps"]}]}`

// TestA2AJSSDK signs cards with @a2a-js/sdk 1.3.0's
// generateAgentCardSignature and verifies them here, and signs here and
// verifies with its verifyAgentCardSignature, for every algorithm both
// support (the SDK signs with jose, which has all ten). It also checks
// that Explain names the variant the SDK signs over. make test installs
// the SDK (npm ci in testdata/a2ajs); without node or it the test skips.
func TestA2AJSSDK(t *testing.T) {
	dir := filepath.Join("testdata", "a2ajs")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; the @a2a-js/sdk interop test needs it")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk")); err != nil {
		t.Skip("@a2a-js/sdk is not installed: run npm ci in cardsig/testdata/a2ajs (make test does)")
	}
	keys := testKeys(t)
	asIs := newVerifier(t, keys)
	dropEmpty := newVerifier(t, keys, WithCanonical(canon.DropEmpty))

	type task struct {
		JWK  jose.JSONWebKey `json:"jwk"`
		Alg  string          `json:"alg"`
		Card string          `json:"card"`
	}
	var req struct {
		Sign   []task `json:"sign"`
		Verify []task `json:"verify"`
	}
	for _, k := range keys {
		req.Sign = append(req.Sign, task{k.priv, k.alg, sdkCard}, task{k.priv, k.alg, sdkEmptyCard})
		req.Verify = append(req.Verify,
			task{k.priv.Public(), k.alg, string(sign(t, sdkCard, k, SignOptions{}))},
			task{k.priv.Public(), k.alg, string(sign(t, sdkEmptyCard, k, SignOptions{Mode: canon.DropEmpty}))})
	}
	// A changed card the SDK must refuse, so that its "ok" means something.
	bad := sign(t, sdkCard, keys[0], SignOptions{})
	bad[bytes.Index(bad, []byte(`"Route"`))+1] = 'r'
	req.Verify = append(req.Verify, task{keys[0].priv.Public(), keys[0].alg, string(bad)})

	in, _ := json.Marshal(req)
	cmd := exec.Command(node, "sdk.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	type answer struct {
		OK    bool   `json:"ok"`
		Card  string `json:"card"`
		Error string `json:"error"`
	}
	var resp struct{ Signed, Verified []answer }
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("node wrote %q: %v", out, err)
	}
	if len(resp.Signed) != 2*len(keys) || len(resp.Verified) != 2*len(keys)+1 {
		t.Fatalf("node answered %d signed and %d verified", len(resp.Signed), len(resp.Verified))
	}
	for i, k := range keys {
		plain, empty := resp.Signed[2*i], resp.Signed[2*i+1]
		if !plain.OK || !empty.OK {
			t.Errorf("%s: @a2a-js/sdk cannot sign: %s %s", k.alg, plain.Error, empty.Error)
			continue
		}
		// On a card of AgentCard members only, none empty, every variant
		// is the same bytes: cardscan's default verifies.
		if !verified(asIs, []byte(plain.Card)) {
			t.Errorf("%s: the SDK's signature does not verify as-is:\n%s", k.alg, plain.Card)
		}
		exs, _, err := asIs.Explain([]byte(plain.Card), "")
		if err != nil || !slices.Contains(exs[0].Matches, VariantA2AJS) {
			t.Errorf("%s: Explain does not name %s: %+v %v", k.alg, VariantA2AJS, exs, err)
		}
		// With an empty member and a 0.x member, the SDK signs neither:
		// only its own variant matches.
		if verified(asIs, []byte(empty.Card)) || verified(dropEmpty, []byte(empty.Card)) {
			t.Errorf("%s: the SDK's signature over a card with url verifies as-is or drop-empty", k.alg)
		}
		exs, _, err = asIs.Explain([]byte(empty.Card), "")
		if err != nil || !slices.Equal(exs[0].Matches, []string{VariantA2AJS}) {
			t.Errorf("%s: Explain: %+v %v, want only %s", k.alg, exs, err, VariantA2AJS)
		}
		if r := resp.Verified[2*i]; !r.OK {
			t.Errorf("%s: @a2a-js/sdk does not verify cardscan's as-is signature: %s", k.alg, r.Error)
		}
		// cardscan's drop-empty keeps the 0.x url the SDK drops, so
		// the SDK cannot verify it: the variants differ, as documented.
		if r := resp.Verified[2*i+1]; r.OK {
			t.Errorf("%s: @a2a-js/sdk verified a drop-empty signature over a card with a 0.x url", k.alg)
		}
	}
	if r := resp.Verified[2*len(keys)]; r.OK || !strings.Contains(r.Error, "No valid signatures") {
		t.Errorf("@a2a-js/sdk verified a changed card: %+v", r)
	}
}
